"""Count lines in text, the way `wc -l` does, plus one for an unterminated last line."""


def count_lines(text):
    """Number of lines: newline-terminated ones, and a last line without a newline."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def count_file(path):
    """count_lines of a UTF-8 text file."""
    with open(path, encoding="utf-8") as f:
        return count_lines(f.read())
