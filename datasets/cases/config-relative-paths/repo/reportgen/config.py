"""Load a report's JSON config file."""

import json
from pathlib import Path


def load_config(config_path):
    """Read the config: a dict with "title", "template" and "output_dir".

    "template" and "output_dir" come back as Path objects.
    """
    with open(config_path, encoding="utf-8") as f:
        data = json.load(f)
    return {
        "title": data.get("title", "Report"),
        "template": Path(data["template"]),
        "output_dir": Path(data.get("output_dir", "out")),
    }
