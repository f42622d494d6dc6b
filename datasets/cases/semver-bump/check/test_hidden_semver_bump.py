"""Hidden checks for semver-bump: run after the agent ends, never shown to it."""

import io
import unittest

from semver import bump_version, parse_version


class ParseVersionHiddenTest(unittest.TestCase):
    def test_three_numbers(self):
        self.assertEqual(parse_version("1.4.2"), (1, 4, 2))
        self.assertEqual(parse_version("0.10.0"), (0, 10, 0))

    def test_leading_v(self):
        self.assertEqual(parse_version("v1.4.2"), (1, 4, 2))

    def test_returns_ints(self):
        self.assertTrue(all(type(part) is int for part in parse_version("10.20.30")))

    def test_anything_else_raises(self):
        for text in ("1.4", "1.4.2.0", "1.x.2", "", "1.-4.2", "1..2", "v", "1.4.2-rc1"):
            with self.subTest(text=text):
                with self.assertRaises(ValueError):
                    parse_version(text)


class BumpVersionHiddenTest(unittest.TestCase):
    def test_major_resets_minor_and_patch(self):
        self.assertEqual(bump_version("1.4.2", "major"), "2.0.0")

    def test_minor_resets_patch(self):
        self.assertEqual(bump_version("1.4.2", "minor"), "1.5.0")
        self.assertEqual(bump_version("v0.9.9", "minor"), "0.10.0")

    def test_patch(self):
        self.assertEqual(bump_version("1.4.2", "patch"), "1.4.3")

    def test_result_has_no_v(self):
        self.assertEqual(bump_version("v2.0.0", "patch"), "2.0.1")

    def test_unknown_part_raises(self):
        for part in ("build", "Major", ""):
            with self.subTest(part=part):
                with self.assertRaises(ValueError):
                    bump_version("1.2.3", part)

    def test_bad_version_raises(self):
        with self.assertRaises(ValueError):
            bump_version("1.2", "patch")


class SemverTestsHiddenTest(unittest.TestCase):
    def test_the_new_tests_run_and_pass(self):
        suite = unittest.defaultTestLoader.loadTestsFromName("tests.test_semver")
        result = unittest.TextTestRunner(stream=io.StringIO()).run(suite)
        self.assertGreaterEqual(result.testsRun, 2)
        self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
