"""Imported relatively by trainpkg.train."""
STEPS = 3
