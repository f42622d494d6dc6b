"""Disk-usage report: the largest files under a directory."""

import os


def file_sizes(root):
    """Yield (path relative to root, with forward slashes, size in bytes) for every file."""
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            yield rel, os.path.getsize(path)


def largest(root, count=10):
    """The `count` largest files, biggest first; equal sizes by path."""
    return sorted(file_sizes(root), key=lambda item: (-item[1], item[0]))[:count]


def report_lines(root, count=10):
    """The report: one line a file, the size right-aligned."""
    return [f"{size:>12}  {path}" for path, size in largest(root, count)]
