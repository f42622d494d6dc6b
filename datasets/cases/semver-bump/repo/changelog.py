"""Read release headings from a CHANGELOG.md."""

import re

_HEADING = re.compile(r"^## \[?v?(\d+\.\d+\.\d+)\]?(?: - (\d{4}-\d{2}-\d{2}))?\s*$")


def releases(text):
    """(version, date or None) for each "## 1.2.3 - 2024-05-01" heading, in file order."""
    found = []
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match:
            found.append((match.group(1), match.group(2)))
    return found


def latest(text):
    """The version of the first heading, or None when there is none."""
    entries = releases(text)
    return entries[0][0] if entries else None
