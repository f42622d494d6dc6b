import json
import tempfile
import unittest
from pathlib import Path

from reportgen.render import render


class RenderTest(unittest.TestCase):
    def test_render(self):
        root = Path(tempfile.mkdtemp()).resolve()
        self.addCleanup(lambda: __import__("shutil").rmtree(root))
        (root / "t.txt").write_text("$title: $count items\n", encoding="utf-8")
        config = root / "report.json"
        config.write_text(json.dumps({"title": "Stock", "template": str(root / "t.txt"), "output_dir": str(root / "out")}))
        target = render(config, {"count": 3})
        self.assertEqual(target, root / "out" / "report.txt")
        self.assertEqual(target.read_text(encoding="utf-8"), "Stock: 3 items\n")
