"""Hidden checks for wordcount: run after the agent ends, never shown to it."""

import io
import unittest
from collections import Counter

from wordcount import count_words, most_common


class CountWordsHiddenTest(unittest.TestCase):
    def test_returns_a_counter(self):
        self.assertIsInstance(count_words("a b"), Counter)

    def test_lower_cases_and_drops_punctuation(self):
        self.assertEqual(count_words("Hello, hello world!"), Counter({"hello": 2, "world": 1}))

    def test_apostrophes_stay_inside_words(self):
        self.assertEqual(count_words("Don't stop, don't."), Counter({"don't": 2, "stop": 1}))

    def test_anything_else_separates_words(self):
        self.assertEqual(count_words("end.Start\tnext\nline--dash"),
                         Counter({"end": 1, "start": 1, "next": 1, "line": 1, "dash": 1}))

    def test_digits_are_word_characters(self):
        self.assertEqual(count_words("Route 66, route 66"), Counter({"route": 2, "66": 2}))

    def test_empty_text(self):
        self.assertEqual(count_words(""), Counter())
        self.assertEqual(count_words(" ... "), Counter())


class MostCommonHiddenTest(unittest.TestCase):
    def test_highest_count_first(self):
        self.assertEqual(most_common("b a b c b a", 2), [("b", 3), ("a", 2)])

    def test_ties_in_alphabetical_order(self):
        self.assertEqual(most_common("pear apple pear apple fig", 2), [("apple", 2), ("pear", 2)])
        self.assertEqual(most_common("c b a", 3), [("a", 1), ("b", 1), ("c", 1)])

    def test_n_larger_than_the_vocabulary(self):
        self.assertEqual(most_common("z y", 10), [("y", 1), ("z", 1)])

    def test_counts_words_the_same_way(self):
        self.assertEqual(most_common("Yes, yes! No.", 1), [("yes", 2)])


class WordcountTestsHiddenTest(unittest.TestCase):
    def test_the_new_tests_run_and_pass(self):
        suite = unittest.defaultTestLoader.loadTestsFromName("tests.test_wordcount")
        result = unittest.TextTestRunner(stream=io.StringIO()).run(suite)
        self.assertGreaterEqual(result.testsRun, 2)
        self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
