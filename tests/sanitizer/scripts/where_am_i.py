"""Prints what plain python would set up for a script: argv, path[0], __name__, __file__,
the module's own names in their order (`__cached__`, `__annotations__` among them), and
imports a sibling module."""
import sys

import sibling_helper

print(sys.argv)
print(sys.path[0])
print(__name__, __file__, __spec__)
print(sibling_helper.VALUE)
print([name for name in globals()], __cached__, __annotations__)
