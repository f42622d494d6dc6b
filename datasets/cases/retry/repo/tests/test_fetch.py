import io
import unittest

from fetch import fetch_json


class FakeResponse(io.BytesIO):
    """What urlopen returns, as far as fetch_json cares."""


class FetchJsonTest(unittest.TestCase):
    def test_decodes_the_body(self):
        calls = []

        def opener(url, timeout):
            calls.append((url, timeout))
            return FakeResponse(b'{"ok": true, "items": [1, 2]}')

        self.assertEqual(fetch_json("https://example.test/api", opener=opener), {"ok": True, "items": [1, 2]})
        self.assertEqual(calls, [("https://example.test/api", 10)])
