import unittest

from addressbook import AddressBook


class AddressBookTest(unittest.TestCase):
    def test_listing_is_sorted(self):
        book = AddressBook()
        book.add("Grace", "Hopper")
        book.add("Ada", "Lovelace")
        book.add("Alan", "Turing")
        self.assertEqual(book.listing(), ["Hopper, Grace", "Lovelace, Ada", "Turing, Alan"])
