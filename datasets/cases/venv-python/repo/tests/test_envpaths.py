import os
import tempfile
import unittest
from pathlib import Path

from tools.envpaths import default_venv, project_root


class ProjectRootTest(unittest.TestCase):
    def test_finds_pyproject_above(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp).resolve()
            (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
            (root / "src" / "demo").mkdir(parents=True)
            self.assertEqual(project_root(root / "src" / "demo"), root)

    def test_default_venv(self):
        self.assertEqual(default_venv("/work/demo"), Path("/work/demo/.venv"))


class CheckCommandTest(unittest.TestCase):
    def test_runs_unittest(self):
        from tools.run_checks import check_command

        self.assertEqual(check_command(os.getcwd())[1:3], ["-m", "unittest"])
