"""Hidden checks for split-amount-tests: run after the agent ends, never shown to it.

The tests the model wrote must pass on billing.py as it is, and fail on each
mutant: a copy of billing.py with one plausible bug in it.
"""

import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

WORKSPACE = os.getcwd()
TEST_FILE = 'tests/test_split_amount.py'
TEST_MODULE = 'tests.test_split_amount'
SOURCE = 'billing.py'

# (what the bug is, text in billing.py, what it becomes)
MUTANTS = [
    ('gives the extra cents to the last shares', 'share + 1 if i < remainder else share', 'share + 1 if i >= parts - remainder else share'),
    ('drops the remainder', 'share + 1 if i < remainder else share', 'share'),
    ('hands out one extra cent too many', 'share + 1 if i < remainder else share', 'share + 1 if i <= remainder else share'),
    ('accepts zero parts', 'if parts < 1:', 'if parts < 0:'),
    ('accepts a negative total', 'if total_cents < 0:', 'if total_cents < -10**9:'),
]


def run_tests(mutant=None):
    """Run the model's tests on a copy of the workspace; return (exit code, tests run, output)."""
    root = tempfile.mkdtemp()
    try:
        work = os.path.join(root, "work")
        shutil.copytree(WORKSPACE, work, ignore=shutil.ignore_patterns("__pycache__", ".git"))
        if mutant is not None:
            _name, find, replace = mutant
            path = os.path.join(work, SOURCE)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if text.count(find) != 1:
                raise AssertionError(f"{SOURCE} has changed: cannot apply the mutant {mutant[0]!r}")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(find, replace))
        env = dict(os.environ, PYTHONPATH=work, PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.run(
            [sys.executable, "-m", "unittest", TEST_MODULE],
            cwd=work, env=env, capture_output=True, text=True, timeout=120,
        )
        ran = re.search(r"^Ran (\d+) tests?", proc.stderr, re.M)
        return proc.returncode, int(ran.group(1)) if ran else 0, proc.stderr
    finally:
        shutil.rmtree(root, ignore_errors=True)


class SplitAmountTestHiddenTest(unittest.TestCase):
    def test_the_test_file_defines_SplitAmountTest(self):
        path = os.path.join(WORKSPACE, TEST_FILE)
        self.assertTrue(os.path.isfile(path), f"{TEST_FILE} does not exist")
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        classes = [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
        self.assertIn('SplitAmountTest', classes)

    def test_the_tests_pass_on_the_real_code(self):
        code, ran, output = run_tests()
        self.assertGreaterEqual(ran, 3, output)
        self.assertEqual(code, 0, output)

    def test_the_tests_catch_each_mutant(self):
        for mutant in MUTANTS:
            with self.subTest(bug=mutant[0]):
                code, ran, output = run_tests(mutant)
                self.assertGreater(ran, 0, output)
                self.assertNotEqual(code, 0, f"the tests still pass when {SOURCE} {mutant[0]}")
