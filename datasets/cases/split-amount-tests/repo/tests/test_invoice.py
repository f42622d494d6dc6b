import unittest

from billing import format_cents
from invoice import shares


class InvoiceTest(unittest.TestCase):
    def test_even_split(self):
        self.assertEqual(shares(3000, ["ana", "bo"]), {"ana": "15.00", "bo": "15.00"})

    def test_format_cents(self):
        self.assertEqual(format_cents(1234), "12.34")
        self.assertEqual(format_cents(5), "0.05")
