"""Hidden checks for human-size: run after the agent ends, never shown to it."""

import unittest

from du_report import human_size

KiB = 1024


class HumanSizeHiddenTest(unittest.TestCase):
    def test_whole_bytes_below_one_kib(self):
        self.assertEqual(human_size(0), "0 B")
        self.assertEqual(human_size(1), "1 B")
        self.assertEqual(human_size(512), "512 B")
        self.assertEqual(human_size(1023), "1023 B")

    def test_one_decimal_in_binary_units(self):
        self.assertEqual(human_size(KiB), "1.0 KiB")
        self.assertEqual(human_size(1536), "1.5 KiB")
        self.assertEqual(human_size(5 * KiB**3), "5.0 GiB")

    def test_unit_is_picked_after_rounding(self):
        self.assertEqual(human_size(1048575), "1.0 MiB")
        self.assertEqual(human_size(KiB**2), "1.0 MiB")
        self.assertEqual(human_size(KiB**3 - 1), "1.0 GiB")

    def test_tib_is_the_largest_unit(self):
        self.assertEqual(human_size(KiB**4), "1.0 TiB")
        self.assertEqual(human_size(2048 * KiB**4), "2048.0 TiB")

    def test_negative_raises(self):
        with self.assertRaises(ValueError):
            human_size(-1)
