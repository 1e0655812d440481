"""Prints the import path it would use; changes it only when run as a script."""
import os.path as osp
import sys

lib_path = osp.join(osp.dirname(__file__), "..", "lib")

if __name__ == "__main__":
    sys.path.insert(0, lib_path)
    print(sys.path)
