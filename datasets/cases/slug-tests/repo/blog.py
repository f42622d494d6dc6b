"""Blog posts and the URLs they are published at."""

from dataclasses import dataclass
from datetime import date

from slug import slugify


@dataclass
class Post:
    title: str
    published: date

    @property
    def path(self):
        """URL path of the post: /2024/05/my-first-post/."""
        return f"/{self.published:%Y/%m}/{slugify(self.title)}/"
