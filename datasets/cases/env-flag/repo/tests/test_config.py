import unittest

from app.config import Config, load_config


class LoadConfigTest(unittest.TestCase):
    def test_defaults(self):
        self.assertEqual(load_config({}), Config(host="127.0.0.1", port=8000, log_level="info"))

    def test_values_from_the_environment(self):
        config = load_config({"APP_HOST": "0.0.0.0", "APP_PORT": "9000", "APP_LOG_LEVEL": "DEBUG"})
        self.assertEqual((config.host, config.port, config.log_level), ("0.0.0.0", 9000, "debug"))

    def test_bad_port(self):
        with self.assertRaises(ValueError):
            load_config({"APP_PORT": "eighty"})
