import unittest

from batching import batches, flatten


class BatchingTest(unittest.TestCase):
    def test_size_must_be_positive(self):
        with self.assertRaises(ValueError):
            batches([1, 2, 3], 0)

    def test_no_items_no_batches(self):
        self.assertEqual(batches([], 3), [])

    def test_flatten(self):
        self.assertEqual(flatten([[1, 2], [3], []]), [1, 2, 3])
