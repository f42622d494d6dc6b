"""Hidden checks for venv-python: run after the agent ends, never shown to it."""

import sys
import unittest
from pathlib import Path, PurePath

from tools.envpaths import venv_python


def parts(path):
    return PurePath(path).as_posix()


class VenvPythonHiddenTest(unittest.TestCase):
    def test_linux_and_macos_use_bin_python(self):
        for platform in ("linux", "darwin", "freebsd14"):
            with self.subTest(platform=platform):
                self.assertEqual(parts(venv_python("/srv/app/.venv", platform)), "/srv/app/.venv/bin/python")

    def test_windows_uses_scripts_python_exe(self):
        self.assertEqual(parts(venv_python("/srv/app/.venv", "win32")), "/srv/app/.venv/Scripts/python.exe")

    def test_cygwin_uses_the_posix_layout(self):
        self.assertEqual(parts(venv_python("/srv/app/.venv", "cygwin")), "/srv/app/.venv/bin/python")

    def test_returns_a_path(self):
        self.assertIsInstance(venv_python("/srv/app/.venv", "linux"), PurePath)
        self.assertIsInstance(venv_python(Path("/srv/app/.venv"), "win32"), PurePath)

    def test_relative_venv_stays_relative(self):
        self.assertEqual(parts(venv_python(".venv", "linux")), ".venv/bin/python")

    def test_platform_defaults_to_this_one(self):
        self.assertEqual(venv_python("/srv/app/.venv"), venv_python("/srv/app/.venv", sys.platform))
