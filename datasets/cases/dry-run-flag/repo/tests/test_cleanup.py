import io
import os
import tempfile
import time
import unittest

from cleanup import DAY, main, old_files


class CleanupTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(self.dir))
        now = time.time()
        for name, age_days in (("old.log", 40), ("new.log", 1), ("older.log", 90)):
            path = os.path.join(self.dir, name)
            with open(path, "w") as f:
                f.write(name)
            os.utime(path, (now - age_days * DAY, now - age_days * DAY))

    def test_old_files(self):
        names = [os.path.basename(p) for p in old_files(self.dir, 30)]
        self.assertEqual(names, ["old.log", "older.log"])

    def test_main_removes_and_reports(self):
        out = io.StringIO()
        self.assertEqual(main([self.dir, "--older-than", "30"], out=out), 0)
        self.assertEqual(sorted(os.listdir(self.dir)), ["new.log"])
        self.assertEqual(
            out.getvalue().splitlines(),
            [f"removed {os.path.join(self.dir, 'old.log')}", f"removed {os.path.join(self.dir, 'older.log')}"],
        )
