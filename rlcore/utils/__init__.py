"""Small helpers shared by the packages."""

from rlcore.utils.random import make_rng, sample_space
from rlcore.utils.tree import show_tree

__all__ = ["make_rng", "sample_space", "show_tree"]
