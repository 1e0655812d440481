"""Prints what plain python would set up for a script: argv, path[0], __name__, __file__,
and imports a sibling module."""
import sys

import sibling_helper

print(sys.argv)
print(sys.path[0])
print(__name__, __file__, __spec__)
print(sibling_helper.VALUE)
