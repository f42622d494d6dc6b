import unittest

from durations import format_duration


class FormatDurationTest(unittest.TestCase):
    def test_hours_minutes_seconds(self):
        self.assertEqual(format_duration(3725), "1h 2m 5s")

    def test_zero_parts_are_left_out(self):
        self.assertEqual(format_duration(3600), "1h")
        self.assertEqual(format_duration(65), "1m 5s")

    def test_zero(self):
        self.assertEqual(format_duration(0), "0s")

    def test_negative_raises(self):
        with self.assertRaises(ValueError):
            format_duration(-1)
