"""Launcher of kernels_cu/sets.cu: pointer-equivalence classes by hash-sort, and set export.

``classes`` numbers the distinct lists of a set of nodes: list_hash (one warp per node, a
grid-stride over ``nodes``) writes hash and bit count per node; ``cupy.argsort`` orders nodes
by hash; mark_classes (one warp per position) writes 1 where a new class begins, comparing
lists exactly; ``cupy.cumsum`` numbers the classes. ``expand`` (one warp per set) writes the
ids of the chosen lists, ascending, into a CSR.
"""

from __future__ import annotations

from dataclasses import dataclass

import cupy
import numpy as np

import kernels_cu

from ._gpu_pool import BLOCK, compile_options, persistent_grid


@cupy.memoize(for_each_device=True)
def _module():
    return cupy.RawModule(code=kernels_cu.source("sets.cu"), options=compile_options())


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


def expand(leaders: cupy.ndarray, heads: cupy.ndarray, pool_words: cupy.ndarray,
           indptr: cupy.ndarray, total: int) -> cupy.ndarray:
    """int32[total]: the ids of ``heads[leaders[k]]`` at ``indptr[k]:indptr[k+1]``, ascending."""
    out = cupy.empty(total, cupy.int32)
    if leaders.size:
        _module().get_function("expand_lists")((persistent_grid(),), (BLOCK,), (
            leaders, np.uint32(leaders.size), heads, pool_words, indptr, out))
    return out
