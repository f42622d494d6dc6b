"""Hidden checks for config-relative-paths: run after the agent ends, never shown to it."""

import json
import os
import shutil
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from reportgen.config import load_config
from reportgen.render import render


def same(a, b):
    return os.path.realpath(a) == os.path.realpath(b)


class RelativePathsHiddenTest(unittest.TestCase):
    def setUp(self):
        self.root = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.root)
        self.project = self.root / "project"
        self.conf = self.project / "conf"
        self.conf.mkdir(parents=True)
        self.elsewhere = self.root / "elsewhere"
        self.elsewhere.mkdir()
        cwd = os.getcwd()
        self.addCleanup(os.chdir, cwd)
        os.chdir(self.elsewhere)

    def write_config(self, data):
        path = self.conf / "report.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    def assertPath(self, got, want):
        self.assertIsInstance(got, Path)
        self.assertTrue(got.is_absolute(), f"{got} is not absolute")
        self.assertTrue(same(got, want), f"{got} is not {want}")

    def test_relative_to_the_config_file_not_the_cwd(self):
        config = load_config(self.write_config({"template": "templates/r.txt", "output_dir": "build"}))
        self.assertPath(config["template"], self.conf / "templates" / "r.txt")
        self.assertPath(config["output_dir"], self.conf / "build")

    def test_output_dir_defaults_to_out_next_to_the_config(self):
        config = load_config(self.write_config({"template": "r.txt"}))
        self.assertPath(config["output_dir"], self.conf / "out")

    def test_parent_directories(self):
        config = load_config(self.write_config({"template": "../shared/r.txt"}))
        self.assertPath(config["template"], self.project / "shared" / "r.txt")

    def test_relative_config_path_still_gives_absolute_paths(self):
        self.write_config({"template": "templates/r.txt"})
        os.chdir(self.project)
        config = load_config(os.path.join("conf", "report.json"))
        self.assertPath(config["template"], self.conf / "templates" / "r.txt")
        config = load_config(Path("conf") / "report.json")
        self.assertPath(config["output_dir"], self.conf / "out")

    def test_absolute_paths_stay(self):
        absolute = self.root / "abs" / "r.txt"
        config = load_config(self.write_config({"template": str(absolute), "output_dir": str(self.root / "o")}))
        self.assertPath(config["template"], absolute)
        self.assertPath(config["output_dir"], self.root / "o")

    def test_tilde_is_the_home_directory(self):
        home = self.root / "home"
        home.mkdir()
        with mock.patch.dict(os.environ, {"HOME": str(home), "USERPROFILE": str(home)}):
            config = load_config(self.write_config({"template": "~/templates/r.txt"}))
        self.assertPath(config["template"], home / "templates" / "r.txt")

    def test_title_is_kept(self):
        self.assertEqual(load_config(self.write_config({"title": "Weekly", "template": "r.txt"}))["title"], "Weekly")

    def test_render_from_another_directory(self):
        (self.conf / "r.txt").write_text("$title: $count\n", encoding="utf-8")
        path = self.write_config({"title": "Stock", "template": "r.txt", "output_dir": "build"})
        target = render(path, {"count": 3})
        self.assertTrue(same(target, self.conf / "build" / "report.txt"))
        self.assertEqual((self.conf / "build" / "report.txt").read_text(encoding="utf-8"), "Stock: 3\n")
        self.assertEqual(os.listdir(self.elsewhere), [])
