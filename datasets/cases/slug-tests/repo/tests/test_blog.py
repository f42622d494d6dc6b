import unittest
from datetime import date

from blog import Post


class PostTest(unittest.TestCase):
    def test_path(self):
        post = Post("My first post", date(2024, 5, 1))
        self.assertEqual(post.path, "/2024/05/my-first-post/")
