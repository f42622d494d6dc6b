import json
import os
import tempfile
import unittest

from inventory import Item, load_items, total_value


class InventoryTest(unittest.TestCase):
    def test_load_items(self):
        rows = [{"sku": "B-4", "name": "Bolt", "quantity": 100, "price": 0.05}]
        fd, path = tempfile.mkstemp(suffix=".json")
        self.addCleanup(os.remove, path)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(rows, f)
        self.assertEqual(load_items(path), [Item("B-4", "Bolt", 100, 0.05)])

    def test_total_value(self):
        items = [Item("B-4", "Bolt", 100, 0.05), Item("N-4", "Nut", 3, 0.1)]
        self.assertEqual(total_value(items), 5.3)
