"""A package imported whole (`import tools`): its names come from its modules."""
from .opt import prepare
