"""Delete old files from a directory: python3 cleanup.py DIR --older-than DAYS."""

import argparse
import os
import sys
import time

DAY = 24 * 60 * 60


def old_files(directory, older_than_days, now=None):
    """Files directly in directory last modified more than older_than_days ago, sorted by name."""
    now = time.time() if now is None else now
    cutoff = now - older_than_days * DAY
    found = []
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        if entry.is_file() and entry.stat().st_mtime < cutoff:
            found.append(entry.path)
    return found


def remove_old(directory, older_than_days, now=None):
    """Delete the old files; return their paths."""
    paths = old_files(directory, older_than_days, now)
    for path in paths:
        os.remove(path)
    return paths


def build_parser():
    parser = argparse.ArgumentParser(description="Delete old files from a directory.")
    parser.add_argument("directory")
    parser.add_argument("--older-than", type=float, default=30, metavar="DAYS", help="age in days (default: 30)")
    return parser


def main(argv=None, out=None):
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    for path in remove_old(args.directory, args.older_than):
        print(f"removed {path}", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
