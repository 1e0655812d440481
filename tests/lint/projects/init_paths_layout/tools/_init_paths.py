"""Puts the repository's `lib/` on the import path, as pose and detection repos do."""
import os.path as osp
import sys


def add_path(path):
    if path not in sys.path:
        sys.path.insert(0, path)


this_dir = osp.dirname(__file__)
add_path(osp.join(this_dir, "..", "lib"))
