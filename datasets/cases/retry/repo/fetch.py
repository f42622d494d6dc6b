"""Fetch JSON documents over HTTP."""

import json
import urllib.request


def fetch_json(url, opener=urllib.request.urlopen, timeout=10):
    """GET url and decode the body as JSON; opener is swapped out in tests."""
    with opener(url, timeout=timeout) as response:
        return json.loads(response.read().decode("utf-8"))
