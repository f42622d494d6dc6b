import json
import tempfile
import unittest
from pathlib import Path

from reportgen.config import load_config


class LoadConfigTest(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp()).resolve()
        self.addCleanup(lambda: __import__("shutil").rmtree(self.dir))

    def write_config(self, data):
        path = self.dir / "report.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    def test_absolute_paths(self):
        template = self.dir / "t.txt"
        config = load_config(self.write_config({"title": "Weekly", "template": str(template), "output_dir": str(self.dir / "build")}))
        self.assertEqual(config, {"title": "Weekly", "template": template, "output_dir": self.dir / "build"})

    def test_title_defaults(self):
        config = load_config(self.write_config({"template": str(self.dir / "t.txt")}))
        self.assertEqual(config["title"], "Report")
