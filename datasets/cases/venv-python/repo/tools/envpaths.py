"""Where things live inside a project checkout."""

import os
from pathlib import Path


def project_root(start=None):
    """The nearest directory at or above start (default: the cwd) holding pyproject.toml."""
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    raise FileNotFoundError(f"no pyproject.toml at or above {here}")


def default_venv(root):
    """The project's virtual environment: <root>/.venv."""
    return Path(root) / ".venv"
