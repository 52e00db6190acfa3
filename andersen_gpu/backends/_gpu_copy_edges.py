"""Launcher of kernels_cu/copy_edges.cu (Copy⁻¹ over the old copy edges, driven by ΔP).

``emit_active_edges`` grid: persistent, ``persistent_grid()`` blocks of 256 threads, warps take
representatives from ``ctl[CTL_WORK_AUX]``; writes ``pairs[0:min(count, cap)]`` with
``(rep x << 32) | cls(y)`` for every y with a non-empty ΔP and x ∈ succ(y) (key NIL when
rep x == y), and adds the count to ``ctl[CTL_ACTIVE_FILL]``. ``apply_copy_pairs`` grid: one
warp per 32 sorted pairs (``apply_copy_parts`` likewise); writes N(x) of every x present, part
lists of long runs (``chunk``), the pool; ``ctl[CTL_OVF_RULES] = 1`` when the pool is full
(then the round runs again: every write is an OR).
"""

from __future__ import annotations

import cupy
import numpy as np

from ._gpu_pool import BLOCK, CTL_EMIT_ITEMS, DevicePool, fill_bytes, module, persistent_grid


def _module():
    return module("copy_edges.cu")


def emit_active_edges(g, D: cupy.ndarray, succ: cupy.ndarray, cls: cupy.ndarray, use_cls: bool,
                      pairs: cupy.ndarray, cap: int, pool: DevicePool) -> None:
    """Write the active copy edges (target, source class) into ``pairs`` (at most ``cap``)."""
    f = _module().get_function
    work, count = pool.frontier("emit_work", CTL_EMIT_ITEMS, g, f("heads_frontier"),
                                (g.nodes, np.uint32(g.n_work), D, D, D, D, D))
    f("emit_active_edges")((persistent_grid(),), (BLOCK,), (
        work, count, g.rep, D, succ, cls, np.int32(use_cls), pairs, np.uint64(cap),
        *pool.args()))


def apply_copy_pairs(pairs: cupy.ndarray, npairs: int, P: cupy.ndarray, D: cupy.ndarray,
                     N: cupy.ndarray, filter_known: bool, pool: DevicePool, chunk: int) -> None:
    """N(x) ∪= ΔP(y) \\ P(x) for the sorted active edges ``pairs[:npairs]``.

    ``chunk`` (a power of two >= 32, or 0 for none) cuts long runs of one target into chunks
    of that many pairs, each unioned by its own warp into a part list, and the parts into N(x)
    by a second kernel (see kernels_cu/copy_edges.cu).
    """
    if npairs == 0:
        return
    shift = chunk.bit_length() - 1 if chunk else 40   # 2**40 pairs: never a boundary inside
    # part-list heads, all NIL (0xFF bytes): the solve's scratch, set by one memset
    # (``cupy.full`` cost about 20 us of host time a round)
    parts = pool.scratch("copy_parts", (npairs >> shift) + 1)
    fill_bytes(parts, 0xFF)
    blocks = (((npairs + 31) // 32) * 32 + BLOCK - 1) // BLOCK
    f = _module().get_function
    f("apply_copy_pairs")((blocks,), (BLOCK,), (
        pairs, np.uint64(npairs), P, D, N, np.int32(filter_known), parts, np.uint32(shift),
        *pool.args()))
    if npairs > (1 << shift):
        f("apply_copy_parts")((blocks,), (BLOCK,), (
            pairs, np.uint64(npairs), N, parts, np.uint32(shift), *pool.args()))
