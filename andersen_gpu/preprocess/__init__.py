"""Offline preprocessing shared by every backend.

``collapse(cs)`` merges nodes that provably share a points-to set (copy
cycles; pointer-equivalent nodes found by value numbering) and returns a
constraint set with the same node ids and the same least solution, its
``offline_rep`` extended with the new merges.
"""

from .collapse import PreprocessStats, collapse

__all__ = ["collapse", "PreprocessStats"]
