"""Helpers for showing people's names in the address book."""


def normalize(name):
    """Collapse runs of whitespace and trim the ends: "  Ada   Lovelace " -> "Ada Lovelace"."""
    return " ".join(name.split())


def display_name(first, last):
    """Return "Last, First", or just the part that is given."""
    first, last = normalize(first), normalize(last)
    if first and last:
        return f"{last}, {first}"
    return first or last
