"""Imported by where_am_i.py and trainpkg: only findable through sys.path[0]."""
VALUE = "sibling imported"
