"""Puts lib_dry/ first on the import path."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib_dry"))
