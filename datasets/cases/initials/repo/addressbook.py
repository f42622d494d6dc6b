"""A small in-memory address book."""

from names import display_name


class AddressBook:
    def __init__(self):
        self._people = []

    def add(self, first, last, email=""):
        self._people.append({"first": first, "last": last, "email": email})

    def listing(self):
        """Display names of everyone in the book, sorted."""
        return sorted(display_name(p["first"], p["last"]) for p in self._people)
