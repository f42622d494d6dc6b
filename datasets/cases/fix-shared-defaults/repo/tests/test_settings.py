import json
import os
import tempfile
import unittest

from settings import load_user_settings, merge_settings


class MergeSettingsTest(unittest.TestCase):
    def test_sections_merge_key_by_key(self):
        merged = merge_settings(
            {"editor": {"theme": "light", "font_size": 12}, "language": "en"},
            {"editor": {"theme": "dark"}},
        )
        self.assertEqual(merged, {"editor": {"theme": "dark", "font_size": 12}, "language": "en"})

    def test_plain_values_are_replaced(self):
        self.assertEqual(merge_settings({"language": "en"}, {"language": "fr"}), {"language": "fr"})

    def test_new_sections_are_added(self):
        self.assertEqual(merge_settings({}, {"sync": {"enabled": True}}), {"sync": {"enabled": True}})


class LoadUserSettingsTest(unittest.TestCase):
    def test_reads_the_file(self):
        fd, path = tempfile.mkstemp(suffix=".json")
        self.addCleanup(os.remove, path)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"sync": {"enabled": True}}, f)
        settings = load_user_settings(path)
        self.assertTrue(settings["sync"]["enabled"])
        self.assertEqual(settings["sync"]["interval_minutes"], 30)
