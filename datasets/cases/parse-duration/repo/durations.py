"""Durations for job timeouts, written the way people type them: "1h 30m"."""

UNITS = (("h", 3600), ("m", 60), ("s", 1))


def format_duration(seconds):
    """Format whole seconds as "1h 2m 5s", leaving out zero parts; 0 is "0s"."""
    if seconds < 0:
        raise ValueError("a duration cannot be negative")
    parts = []
    for unit, size in UNITS:
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts) or "0s"
