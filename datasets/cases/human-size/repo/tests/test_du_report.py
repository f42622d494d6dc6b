import os
import tempfile
import unittest

from du_report import largest, report_lines


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(self.root))
        os.makedirs(os.path.join(self.root, "logs"))
        for rel, size in (("a.txt", 10), ("logs/b.log", 300), ("c.bin", 300)):
            with open(os.path.join(self.root, rel), "wb") as f:
                f.write(b"x" * size)

    def test_largest_first_then_by_path(self):
        self.assertEqual(largest(self.root), [("c.bin", 300), ("logs/b.log", 300), ("a.txt", 10)])

    def test_count(self):
        self.assertEqual(len(largest(self.root, count=1)), 1)

    def test_report_lines(self):
        self.assertEqual(report_lines(self.root, count=1), ["         300  c.bin"])
