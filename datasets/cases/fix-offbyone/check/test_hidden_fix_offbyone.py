"""Hidden checks for fix-offbyone: run after the agent ends, never shown to it."""

import unittest

from batching import batches, flatten
from uploader import upload


class BatchesHiddenTest(unittest.TestCase):
    def test_example_from_the_task(self):
        self.assertEqual(batches([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]])

    def test_exact_multiple(self):
        self.assertEqual(batches([1, 2, 3, 4], 2), [[1, 2], [3, 4]])

    def test_size_larger_than_the_list(self):
        self.assertEqual(batches([1, 2], 5), [[1, 2]])

    def test_size_one(self):
        self.assertEqual(batches("abc", 1), ["a", "b", "c"])

    def test_every_item_once_in_order(self):
        for n in range(0, 12):
            for size in range(1, 6):
                with self.subTest(n=n, size=size):
                    items = list(range(n))
                    groups = batches(items, size)
                    self.assertEqual(flatten(groups), items)
                    self.assertTrue(all(len(g) == size for g in groups[:-1]))
                    self.assertTrue(all(0 < len(g) <= size for g in groups))

    def test_still_refuses_size_zero(self):
        with self.assertRaises(ValueError):
            batches([1], 0)

    def test_upload_sends_every_record(self):
        sent = []
        self.assertEqual(upload(list(range(250)), sent.append, batch_size=100), 250)
        self.assertEqual([len(batch) for batch in sent], [100, 100, 50])
