"""Hidden checks for csv-export: run after the agent ends, never shown to it."""

import csv
import io
import unittest

from export import export_csv
from inventory import Item


def exported(items):
    stream = io.StringIO()
    count = export_csv(items, stream)
    return count, list(csv.reader(io.StringIO(stream.getvalue())))


class ExportCsvHiddenTest(unittest.TestCase):
    def test_header_and_rows_in_order(self):
        count, rows = exported([Item("B-4", "Bolt", 100, 0.05), Item("N-4", "Nut", 3, 2)])
        self.assertEqual(count, 2)
        self.assertEqual(rows, [
            ["sku", "name", "quantity", "price"],
            ["B-4", "Bolt", "100", "0.05"],
            ["N-4", "Nut", "3", "2.00"],
        ])

    def test_two_decimals(self):
        _, rows = exported([Item("W-1", "Washer", 7, 3.5), Item("W-2", "Washer", 1, 0.1), Item("W-3", "Washer", 1, 12)])
        self.assertEqual([row[3] for row in rows[1:]], ["3.50", "0.10", "12.00"])

    def test_names_with_commas_quotes_and_newlines_survive(self):
        names = ["Bolt, M4", 'Hex "Allen" key', "Two\nlines"]
        items = [Item(f"S-{i}", name, 1, 1.0) for i, name in enumerate(names)]
        count, rows = exported(items)
        self.assertEqual(count, 3)
        self.assertEqual([row[1] for row in rows[1:]], names)
        self.assertTrue(all(len(row) == 4 for row in rows))

    def test_no_items_writes_the_header_only(self):
        self.assertEqual(exported([]), (0, [["sku", "name", "quantity", "price"]]))

    def test_any_iterable_of_items(self):
        count, rows = exported(item for item in [Item("B-4", "Bolt", 1, 1.0)])
        self.assertEqual((count, len(rows)), (1, 2))


class ExportTestsHiddenTest(unittest.TestCase):
    def test_the_new_tests_run_and_pass(self):
        suite = unittest.defaultTestLoader.loadTestsFromName("tests.test_export")
        result = unittest.TextTestRunner(stream=io.StringIO()).run(suite)
        self.assertGreaterEqual(result.testsRun, 2)
        self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
