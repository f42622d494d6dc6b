"""Hidden checks for dry-run-flag: run after the agent ends, never shown to it."""

import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import cleanup


class DryRunHiddenTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        now = time.time()
        for name, age_days in (("a-old.log", 40), ("b-new.log", 1), ("c-older.log", 90)):
            path = os.path.join(self.dir, name)
            with open(path, "w") as f:
                f.write(name)
            os.utime(path, (now - age_days * cleanup.DAY, now - age_days * cleanup.DAY))
        self.old = [os.path.join(self.dir, "a-old.log"), os.path.join(self.dir, "c-older.log")]
        self.everything = sorted(os.listdir(self.dir))

    def run_main(self, *argv):
        out = io.StringIO()
        code = cleanup.main(list(argv), out=out)
        return code, out.getvalue().splitlines()

    def test_dry_run_deletes_nothing_and_says_what_it_would_do(self):
        code, lines = self.run_main(self.dir, "--older-than", "30", "--dry-run")
        self.assertEqual(code, 0)
        self.assertEqual(sorted(os.listdir(self.dir)), self.everything)
        self.assertEqual(lines, [f"would remove {path}" for path in self.old])

    def test_short_flag(self):
        code, lines = self.run_main(self.dir, "-n", "--older-than", "30")
        self.assertEqual(code, 0)
        self.assertEqual(sorted(os.listdir(self.dir)), self.everything)
        self.assertEqual(lines, [f"would remove {path}" for path in self.old])

    def test_flag_before_the_directory(self):
        code, lines = self.run_main("--dry-run", self.dir)
        self.assertEqual(sorted(os.listdir(self.dir)), self.everything)
        self.assertEqual(lines, [f"would remove {path}" for path in self.old])

    def test_without_the_flag_files_are_still_removed(self):
        code, lines = self.run_main(self.dir, "--older-than", "30")
        self.assertEqual(sorted(os.listdir(self.dir)), ["b-new.log"])
        self.assertEqual(lines, [f"removed {path}" for path in self.old])

    def test_remove_old_dry_run(self):
        self.assertEqual(cleanup.remove_old(self.dir, 30, dry_run=True), self.old)
        self.assertEqual(sorted(os.listdir(self.dir)), self.everything)
        self.assertEqual(cleanup.remove_old(self.dir, 30), self.old)
        self.assertEqual(sorted(os.listdir(self.dir)), ["b-new.log"])

    def test_from_the_command_line(self):
        proc = subprocess.run(
            [sys.executable, "cleanup.py", self.dir, "--older-than", "30", "--dry-run"],
            capture_output=True, text=True, timeout=60,
        )
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.splitlines(), [f"would remove {path}" for path in self.old])
        self.assertEqual(sorted(os.listdir(self.dir)), self.everything)
