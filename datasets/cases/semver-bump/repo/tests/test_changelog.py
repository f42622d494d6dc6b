import unittest

from changelog import latest, releases

TEXT = """# Changelog

## [1.4.2] - 2024-05-01
- Fix.

## 1.4.1 - 2024-04-12
- Log.

## v1.4.0
- Batches.
"""


class ReleasesTest(unittest.TestCase):
    def test_headings_in_order(self):
        self.assertEqual(releases(TEXT), [("1.4.2", "2024-05-01"), ("1.4.1", "2024-04-12"), ("1.4.0", None)])

    def test_latest(self):
        self.assertEqual(latest(TEXT), "1.4.2")
        self.assertIsNone(latest("# Changelog\n"))
