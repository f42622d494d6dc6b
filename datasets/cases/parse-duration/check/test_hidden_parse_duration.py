"""Hidden checks for parse-duration: run after the agent ends, never shown to it."""

import unittest

from durations import format_duration, parse_duration


class ParseDurationHiddenTest(unittest.TestCase):
    def test_examples_from_the_task(self):
        self.assertEqual(parse_duration("1h30m"), 5400)
        self.assertEqual(parse_duration("2m 5s"), 125)
        self.assertEqual(parse_duration("45s"), 45)

    def test_returns_an_int(self):
        self.assertIs(type(parse_duration("1h")), int)

    def test_all_three_units(self):
        self.assertEqual(parse_duration("1h 0m 1s"), 3601)
        self.assertEqual(parse_duration("2h5s"), 7205)

    def test_inverse_of_format_duration(self):
        for seconds in (0, 1, 59, 60, 61, 3599, 3600, 3725, 86400, 90061):
            with self.subTest(seconds=seconds):
                self.assertEqual(parse_duration(format_duration(seconds)), seconds)

    def test_rejects_what_is_not_a_duration(self):
        for text in ("", "   ", "10", "5x", "abc", "1h1h", "30m1h", "h", "1.5h", "-5m"):
            with self.subTest(text=text):
                with self.assertRaises(ValueError):
                    parse_duration(text)
