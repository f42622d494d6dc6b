"""Run the project's test suite."""

import subprocess

from tools.envpaths import project_root


def check_command(root):
    """The command line that runs the tests of the project at root."""
    return ["python", "-m", "unittest", "discover", "-s", "tests"]


def run_checks(start=None):
    """Run the tests from the project root; return the exit code."""
    root = project_root(start)
    return subprocess.run(check_command(root), cwd=root, check=False).returncode
