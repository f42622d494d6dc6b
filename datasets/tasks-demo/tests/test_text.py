import pytest

from shelf.text import page_range, sort_key, title_case


def test_title_case_keeps_small_words_small():
    assert title_case("the lord of the rings") == "The Lord of the Rings"


def test_title_case_capitalises_last_word():
    assert title_case("what it is made of") == "What It Is Made Of"


def test_sort_key_drops_article():
    assert sort_key("The Hobbit") == "hobbit"


def test_sort_key_keeps_a_lone_article():
    assert sort_key("A") == "a"


def test_page_range_one_page():
    assert page_range(5, 5) == "p. 5"


def test_page_range_pages():
    assert page_range(5, 9) == "pp. 5-9"


def test_page_range_backwards():
    with pytest.raises(ValueError):
        page_range(9, 5)
