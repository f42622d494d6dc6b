"""User settings: built-in defaults, overridden section by section."""

import json

DEFAULTS = {
    "editor": {"theme": "light", "font_size": 12, "tab_width": 4},
    "sync": {"enabled": False, "interval_minutes": 30},
    "language": "en",
}


def merge_settings(defaults, overrides):
    """Return defaults with overrides applied; sections (dicts) merge key by key.

    Neither argument is changed.
    """
    result = defaults
    for key, value in overrides.items():
        if isinstance(value, dict):
            result.setdefault(key, {}).update(value)
        else:
            result[key] = value
    return result


def load_user_settings(path):
    """Read a user's JSON settings file and merge it over DEFAULTS."""
    with open(path, encoding="utf-8") as f:
        return merge_settings(DEFAULTS, json.load(f))
