import unittest

from uploader import upload


class UploadTest(unittest.TestCase):
    def test_nothing_to_send(self):
        sent = []
        self.assertEqual(upload([], sent.append), 0)
        self.assertEqual(sent, [])
