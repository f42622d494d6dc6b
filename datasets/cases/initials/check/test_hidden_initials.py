"""Hidden checks for the initials case: run after the agent ends, never shown to it."""

import unittest

from names import initials


class InitialsHiddenTest(unittest.TestCase):
    def test_two_words(self):
        self.assertEqual(initials("Ada Lovelace"), "AL")

    def test_lower_case_input_is_upper_cased(self):
        self.assertEqual(initials("grace hopper"), "GH")

    def test_any_run_of_whitespace_separates_words(self):
        self.assertEqual(initials("  Ada \t  Lovelace\n"), "AL")

    def test_hyphen_starts_a_new_word(self):
        self.assertEqual(initials("jean-paul sartre"), "JPS")
        self.assertEqual(initials("Mary-Kate  Olsen"), "MKO")

    def test_single_word(self):
        self.assertEqual(initials("Cher"), "C")

    def test_blank_name_gives_empty_string(self):
        self.assertEqual(initials(""), "")
        self.assertEqual(initials("   "), "")
