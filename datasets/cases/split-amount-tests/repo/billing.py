"""Split bills between people, in whole cents."""


def split_amount(total_cents, parts):
    """Split total_cents into `parts` whole-cent shares that add up to the total.

    Shares differ by at most one cent, and the larger shares come first:
    split_amount(1000, 3) == [334, 333, 333]. parts must be at least 1 and
    total_cents must not be negative, else ValueError.
    """
    if parts < 1:
        raise ValueError("parts must be at least 1")
    if total_cents < 0:
        raise ValueError("total_cents must not be negative")
    share, remainder = divmod(total_cents, parts)
    return [share + 1 if i < remainder else share for i in range(parts)]


def format_cents(cents):
    """1234 -> "12.34"."""
    return f"{cents // 100}.{cents % 100:02d}"
