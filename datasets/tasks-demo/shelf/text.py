"""Titles and page ranges as a catalogue prints them."""

SMALL_WORDS = {"a", "an", "and", "of", "the", "to", "in", "on"}


def title_case(title):
    """Capitalise each word but the small ones, except the first and last."""
    words = title.split()
    out = []
    for i, word in enumerate(words):
        if 0 < i < len(words) - 1 and word.lower() in SMALL_WORDS:
            out.append(word.lower())
        else:
            out.append(word[:1].upper() + word[1:].lower())
    return " ".join(out)


def sort_key(title):
    """The key a shelf sorts by: lower case, a leading article left out."""
    words = title.lower().split()
    if len(words) > 1 and words[0] in ("a", "an", "the"):
        words = words[1:]
    return " ".join(words)


def page_range(first, last):
    """'p. 5' for one page, 'pp. 5-9' for several; ValueError when backwards."""
    if last < first:
        raise ValueError("last page before first")
    if first == last:
        return "p. %d" % first
    return "pp. %d-%d" % (first, last)
