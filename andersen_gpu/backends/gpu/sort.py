"""Launcher of kernels_cu/sort.cu: sorts of uint64 pair buffers without a synchronisation.

CuPy's sort (thrust's) blocks the host until it is done; a round sorts its pair buffers
while the host is already queueing the next kernels. Buffers of at most ``SMALL_SORT_MAX``
keys are sorted by one block (``block_sort_u64``, bitonic, in shared memory); up to
``MERGE_SORT_MAX`` keys in chunks of that size and then by merge passes (``merge_runs_u64``,
one launch each); larger ones by CuPy, where the sort's own time dwarfs the wait.
:func:`sort_counted` sorts a prefix whose length a kernel wrote on the device, launched for a
capacity of at most ``MERGE_SORT_MAX`` keys: no read of the count on the host.
"""

from __future__ import annotations

import cupy
import numpy as np

from .device import BLOCK, module

SMALL_SORT_MAX = 4096   # must match BLOCK_SORT_MAX in kernels_cu/sort.cu
MERGE_SORT_MAX = 1 << 19


def sort_keys(keys: cupy.ndarray) -> None:
    """Sort ``keys`` (uint64[k], contiguous) ascending, in place, on the current stream."""
    n = int(keys.size)
    if n <= 1:
        return
    if n > MERGE_SORT_MAX:
        keys.sort()
        return
    _blocks_and_merges(keys, n, "", ())


def sort_counted(keys: cupy.ndarray, count: cupy.ndarray) -> None:
    """Sort ``keys[:min(keys.size, count[0])]`` ascending, in place, on the current stream, with the
    count read on the device (``count``: uint64[1], a view of the word a kernel queued before wrote).

    ``keys`` (uint64[cap], contiguous, cap <= ``MERGE_SORT_MAX``) is the capacity the launches are
    sized for: its keys past the count are left unsorted (and may be overwritten)."""
    cap = int(keys.size)
    if cap > MERGE_SORT_MAX:
        raise ValueError(f"sort_counted: capacity {cap:,} > {MERGE_SORT_MAX:,} keys")
    if cap <= 1:
        return
    _blocks_and_merges(keys, cap, "_counted", (count,))


def _blocks_and_merges(keys: cupy.ndarray, n: int, kind: str, extra: tuple) -> None:
    """The block sorts of ``n`` keys (chunks of ``SMALL_SORT_MAX``), then the merge passes."""
    f = module("sort.cu")
    chunks = (n + SMALL_SORT_MAX - 1) // SMALL_SORT_MAX
    size = 1 << (min(n, SMALL_SORT_MAX) - 1).bit_length()
    f("block_sort_u64" + kind)((chunks,), (min(1024, max(32, size // 2)),), (keys, np.uint64(n), *extra))
    if chunks == 1:
        return
    src, dst = keys, cupy.empty_like(keys)
    blocks = ((n + BLOCK - 1) // BLOCK,)
    width = SMALL_SORT_MAX
    while width < n:
        f("merge_runs_u64" + kind)(blocks, (BLOCK,), (src, dst, np.uint64(n), np.uint64(width), *extra))
        src, dst = dst, src
        width *= 2
    if src is not keys:
        keys[...] = src
