"""Turn post titles into URL slugs."""

import re
import unicodedata


def slugify(title, max_length=50):
    """Lower-case ASCII words joined by single hyphens, at most max_length characters.

    Accents are dropped ("Crème" becomes "creme"), every run of other
    characters becomes one hyphen, and the slug never starts or ends with a
    hyphen, even after it is cut short.
    """
    text = unicodedata.normalize("NFKD", title)
    text = text.encode("ascii", "ignore").decode("ascii")
    text = text.lower()
    text = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    return text[:max_length].rstrip("-")
