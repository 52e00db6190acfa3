"""Launcher of kernels_cu/sets.cu: pointer-equivalence classes by hash-sort, and set export.

``classes`` numbers the distinct lists of a set of nodes: list_hash (one warp per node, a
grid-stride over ``nodes``) writes hash and bit count per node; ``cupy.argsort`` orders nodes
by hash; mark_classes (one warp per position) writes 1 where a new class begins, comparing
lists exactly; ``cupy.cumsum`` numbers the classes. ``class_table`` gives each node a leader
of its class in one kernel (an open-addressing table of hashes, exact comparisons on a tag
match; no sort, no prefix sum): what the solver loop uses every round. ``expand`` (one warp per
set) writes the ids of the chosen lists, ascending, into a CSR.
"""

from __future__ import annotations

from dataclasses import dataclass

import cupy
import numpy as np

from ._gpu_pool import BLOCK, NIL, fill_bytes, module, persistent_grid


def _module():
    return module("sets.cu")


@dataclass
class Classes:
    """Equal-list classes of ``nodes``.

    Attributes
    ----------
    order : uint32[n_work]    positions into ``nodes`` sorted by list hash
    seg : int64[n_work]       class number of the node at each sorted position (0-based)
    starts : int32[n_work]    1 where a class begins in sorted order
    bits : uint64[n_work]     bit count of each node's list (indexed like ``nodes``)
    """

    order: cupy.ndarray
    seg: cupy.ndarray
    starts: cupy.ndarray
    bits: cupy.ndarray


def classes(nodes: cupy.ndarray, heads: cupy.ndarray, pool_words: cupy.ndarray) -> Classes:
    """Group ``nodes`` (uint32[k]) by equal lists ``heads[node]``."""
    k = int(nodes.size)
    hsh = cupy.empty(k, cupy.uint64)
    bits = cupy.empty(k, cupy.uint64)
    grid = (persistent_grid(),)
    # hsh, bits: per node of `nodes`
    _module().get_function("list_hash")(grid, (BLOCK,), (nodes, np.uint32(k), heads, pool_words, hsh, bits))
    order = cupy.argsort(hsh).astype(cupy.uint32)
    starts = cupy.empty(k, cupy.int32)
    # starts: 1 where the list differs from the previous one in hash order
    _module().get_function("mark_classes")(grid, (BLOCK,), (order, np.uint32(k), nodes, heads, hsh,
                                                            pool_words, starts))
    seg = cupy.cumsum(starts, dtype=cupy.int64) - 1
    return Classes(order, seg, starts, bits)


def class_leaders(nodes: cupy.ndarray, cl: Classes, n_classes: int) -> cupy.ndarray:
    """uint32[n_classes]: one node of ``nodes`` per class (the first in sorted order)."""
    slot = cupy.where(cl.starts != 0, cl.seg, n_classes)
    leaders = cupy.empty(n_classes + 1, cupy.uint32)
    leaders[slot] = nodes[cl.order]
    return leaders[:n_classes]


class ClassTable:
    """The slot table of :func:`class_table`, kept between calls (uint64, a power of two)."""

    def __init__(self):
        self.table = cupy.empty(0, cupy.uint64)

    def __call__(self, nodes: cupy.ndarray, heads: cupy.ndarray, pool_words: cupy.ndarray,
                 cls: cupy.ndarray, member: cupy.ndarray | None = None, stamp: int = 0) -> None:
        """cls[x] = a node of ``nodes`` (uint32[k]) whose list ``heads[]`` equals ``heads[x]``,
        x itself for an empty list; written for every x in ``nodes``, or with ``member`` only
        for those with member[x] == stamp (and the leaders are among them). Two launches (a
        memset and the kernel), no synchronisation."""
        k = int(nodes.size)
        if k == 0:
            return
        size = 1 << max(10, (2 * k - 1).bit_length())   # at least 2k slots: probes stay short
        if self.table.size != size:
            self.table = cupy.empty(size, cupy.uint64)
        fill_bytes(self.table, 0xFF)
        # cls: of every x in nodes (of those with member[x] == stamp); table: claimed slots
        _module().get_function("class_table")((persistent_grid(),), (BLOCK,), (
            nodes, np.uint32(k), heads, pool_words, self.table, np.uint32(size - 1), cls,
            member if member is not None else cls, np.uint32(stamp if member is not None else NIL)))

    @staticmethod
    def mark(nodes: cupy.ndarray, heads: cupy.ndarray, rep: cupy.ndarray, pool_words: cupy.ndarray,
             member: cupy.ndarray, stamp: int) -> None:
        """member[rep z] = stamp for every z in the lists heads[x], x in ``nodes``."""
        if nodes.size:
            # member: stamp at rep z for every z of the lists
            _module().get_function("mark_members")((persistent_grid(),), (BLOCK,), (
                nodes, np.uint32(nodes.size), heads, rep, pool_words, member, np.uint32(stamp)))


def expand(leaders: cupy.ndarray, heads: cupy.ndarray, pool_words: cupy.ndarray,
           indptr: cupy.ndarray, total: int) -> cupy.ndarray:
    """int32[total]: the ids of ``heads[leaders[k]]`` at ``indptr[k]:indptr[k+1]``, ascending."""
    out = cupy.empty(total, cupy.int32)
    if leaders.size:
        _module().get_function("expand_lists")((persistent_grid(),), (BLOCK,), (
            leaders, np.uint32(leaders.size), heads, pool_words, indptr, out))
    return out
