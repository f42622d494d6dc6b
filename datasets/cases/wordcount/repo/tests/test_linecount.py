import unittest

from linecount import count_lines


class CountLinesTest(unittest.TestCase):
    def test_empty(self):
        self.assertEqual(count_lines(""), 0)

    def test_terminated_lines(self):
        self.assertEqual(count_lines("a\nb\n"), 2)

    def test_last_line_without_newline(self):
        self.assertEqual(count_lines("a\nb"), 2)
