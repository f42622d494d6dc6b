"""Hidden checks for env-flag: run after the agent ends, never shown to it."""

import os
import unittest
from unittest import mock

from app.config import Config, env_flag, load_config


class EnvFlagHiddenTest(unittest.TestCase):
    def test_true_values(self):
        for value in ("1", "true", "TRUE", "yes", "Yes", "on", " on ", "True\n"):
            with self.subTest(value=value):
                self.assertIs(env_flag({"APP_DEBUG": value}, "APP_DEBUG"), True)

    def test_false_values(self):
        for value in ("0", "false", "False", "no", "NO", "off", " 0 ", ""):
            with self.subTest(value=value):
                self.assertIs(env_flag({"APP_DEBUG": value}, "APP_DEBUG"), False)

    def test_unset_is_false(self):
        self.assertIs(env_flag({}, "APP_DEBUG"), False)

    def test_anything_else_raises_naming_the_variable(self):
        for value in ("maybe", "2", "enabled", "y"):
            with self.subTest(value=value):
                with self.assertRaises(ValueError) as caught:
                    env_flag({"APP_DEBUG": value}, "APP_DEBUG")
                self.assertIn("APP_DEBUG", str(caught.exception))

    def test_other_names(self):
        self.assertIs(env_flag({"APP_TRACE": "yes"}, "APP_TRACE"), True)


class LoadConfigDebugHiddenTest(unittest.TestCase):
    def test_debug_from_the_environment(self):
        self.assertIs(load_config({"APP_DEBUG": "0"}).debug, False)
        self.assertIs(load_config({"APP_DEBUG": "true"}).debug, True)
        self.assertIs(load_config({}).debug, False)

    def test_bad_debug_value_raises(self):
        with self.assertRaises(ValueError):
            load_config({"APP_DEBUG": "sometimes"})

    def test_reads_os_environ_by_default(self):
        with mock.patch.dict(os.environ, {"APP_DEBUG": "on"}):
            self.assertIs(load_config().debug, True)

    def test_config_built_by_hand_defaults_to_no_debug(self):
        self.assertIs(Config(host="h", port=1, log_level="info").debug, False)


class EnvExampleHiddenTest(unittest.TestCase):
    def test_env_example_lists_app_debug(self):
        with open(".env.example", encoding="utf-8") as f:
            lines = [line.strip() for line in f]
        self.assertIn("APP_DEBUG=0", lines)
        self.assertIn("APP_PORT=8000", lines)
