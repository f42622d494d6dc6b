"""Hidden checks for fix-shared-defaults: run after the agent ends, never shown to it."""

import copy
import json
import os
import tempfile
import unittest

import settings
from settings import load_user_settings, merge_settings


class MergeSettingsHiddenTest(unittest.TestCase):
    def setUp(self):
        self.defaults = {
            "editor": {"theme": "light", "font_size": 12},
            "sync": {"enabled": False},
            "language": "en",
        }
        self.overrides = {"editor": {"theme": "dark"}, "language": "fr", "plugins": {"git": True}}
        self.before = copy.deepcopy((self.defaults, self.overrides))

    def test_merges_as_before(self):
        self.assertEqual(merge_settings(self.defaults, self.overrides), {
            "editor": {"theme": "dark", "font_size": 12},
            "sync": {"enabled": False},
            "language": "fr",
            "plugins": {"git": True},
        })

    def test_arguments_are_left_unchanged(self):
        merge_settings(self.defaults, self.overrides)
        self.assertEqual((self.defaults, self.overrides), self.before)

    def test_result_is_a_new_dict(self):
        merged = merge_settings(self.defaults, {})
        self.assertIsNot(merged, self.defaults)
        self.assertEqual(merged, self.defaults)

    def test_changing_the_result_leaves_the_defaults_alone(self):
        merged = merge_settings(self.defaults, {"language": "de"})
        merged["editor"]["theme"] = "solarized"
        merged["sync"]["enabled"] = True
        self.assertEqual(self.defaults, self.before[0])

    def test_changing_the_result_leaves_the_overrides_alone(self):
        merged = merge_settings({}, self.overrides)
        merged["plugins"]["git"] = False
        self.assertEqual(self.overrides, self.before[1])


class LoadUserSettingsHiddenTest(unittest.TestCase):
    def write(self, data):
        fd, path = tempfile.mkstemp(suffix=".json")
        self.addCleanup(os.remove, path)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        return path

    def test_one_user_does_not_leak_into_the_next(self):
        defaults = copy.deepcopy(settings.DEFAULTS)
        first = load_user_settings(self.write({"editor": {"theme": "dark"}, "language": "fr"}))
        second = load_user_settings(self.write({"sync": {"enabled": True}}))
        self.assertEqual(first["editor"]["theme"], "dark")
        self.assertEqual(second["editor"]["theme"], "light")
        self.assertEqual(second["language"], "en")
        self.assertEqual(settings.DEFAULTS, defaults)
