import unittest

from names import display_name, normalize


class NormalizeTest(unittest.TestCase):
    def test_collapses_whitespace(self):
        self.assertEqual(normalize("  Ada   Lovelace "), "Ada Lovelace")

    def test_empty(self):
        self.assertEqual(normalize("   "), "")


class DisplayNameTest(unittest.TestCase):
    def test_last_comma_first(self):
        self.assertEqual(display_name("Ada", "Lovelace"), "Lovelace, Ada")

    def test_one_part_only(self):
        self.assertEqual(display_name("", "Hopper"), "Hopper")
        self.assertEqual(display_name("Grace", " "), "Grace")
