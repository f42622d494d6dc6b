"""Split work into fixed-size batches."""


def batches(items, size):
    """Split items into consecutive lists of `size` items; the last one may be shorter."""
    if size < 1:
        raise ValueError("size must be at least 1")
    out = []
    for start in range(0, len(items) - size, size):
        out.append(items[start:start + size])
    return out


def flatten(groups):
    """Join a list of lists back into one list."""
    return [item for group in groups for item in group]
