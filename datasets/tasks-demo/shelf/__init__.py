"""Book-shelf helpers: titles, page ranges and loans."""

from shelf.loans import due_in, is_overdue
from shelf.text import page_range, sort_key, title_case

__all__ = ["due_in", "is_overdue", "page_range", "sort_key", "title_case"]
