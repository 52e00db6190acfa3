"""Launcher of kernels_cu/insert_pairs.cu: the initial lists (x = &y gives y in the list of x).

Two paths, same result. ``insert_pairs``: one warp per 32 consecutive pairs, ``ceil(npairs /
32)`` warps in blocks of 256 threads; the warp owning a key's first pair walks its whole run.
Records (``pack_records`` + ``insert_records``), for large batches whose ids are dense: the
pairs are first ORed in parallel into one 128-byte record per distinct (key, element base),
so a run of 10^5 pairs of one key becomes at most a few hundred element merges.
Writes: the lists ``heads[key]`` of every key present in ``pairs`` (OR of its ids); the pool
and ``ctl[CTL_TOP]``; ``ctl[ovf_slot] = 1`` when the pool is full (the call is then
idempotent: run it again after growing).
"""

from __future__ import annotations

import cupy
import numpy as np

from .device import BLOCK, module
from .pool import ElementPool


# Batches of fewer pairs take the one-kernel path without looking (the records cost a few
# launches and a synchronisation); larger ones take the records when a record holds at least
# RECORD_MIN_FILL pairs on average (the records then need at most 128 / RECORD_MIN_FILL bytes
# a pair, and the walk they save is that many times longer).
RECORDS_MIN_PAIRS = 1 << 15
RECORD_MIN_FILL = 4


def _module():
    return module("insert_pairs.cu")


def insert_pairs(pairs: cupy.ndarray, npairs: int, heads: cupy.ndarray, pool: ElementPool,
                 ovf_slot: int) -> None:
    """OR ids into lists from ``pairs`` (uint64 ``key << 32 | id``, sorted ascending).

    Keys ``>= heads.size`` are placeholders and are skipped.
    """
    if npairs == 0:
        return
    if npairs >= RECORDS_MIN_PAIRS and _insert_records(pairs[:npairs], heads, pool, ovf_slot):
        return
    warps = (npairs + 31) // 32
    blocks = (warps * 32 + BLOCK - 1) // BLOCK
    _module()("insert_pairs")((blocks,), (BLOCK,), (
        pairs, np.uint64(npairs), heads, np.uint32(heads.size), *pool.args(), np.int32(ovf_slot)))


def _insert_records(pairs: cupy.ndarray, heads: cupy.ndarray, pool: ElementPool, ovf_slot: int) -> bool:
    """The records path for sorted ``pairs``; False (nothing done) when the records would
    hold fewer than RECORD_MIN_FILL pairs each on average."""
    n = int(pairs.size)
    mod = _module()
    blocks = min((n + BLOCK - 1) // BLOCK, 65535)
    # records are the distinct (key, element base) of the sorted pairs, numbered in order
    # (one kernel and a scan: the NumPy-style version made ten launches, 0.3 ms of host time)
    start = cupy.empty(n, cupy.uint32)
    mod("record_starts")((blocks,), (BLOCK,), (pairs, np.uint64(n), start))
    pos = cupy.cumsum(start, dtype=cupy.uint32)
    nrec = int(pos[-1])
    if nrec * RECORD_MIN_FILL > n:
        return False
    rec = cupy.zeros(nrec * 32, cupy.uint32)
    mod("pack_records")((blocks,), (BLOCK,), (pairs, np.uint64(n), pos, rec))
    warps = (nrec + 31) // 32
    mod("insert_records")(((warps * 32 + BLOCK - 1) // BLOCK,), (BLOCK,), (
        rec, np.uint64(nrec), heads, np.uint32(heads.size), *pool.args(), np.int32(ovf_slot)))
    return True
