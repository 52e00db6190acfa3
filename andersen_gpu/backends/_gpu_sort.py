"""Launcher of kernels_cu/sort.cu: the solver's sorts of pair batches, without a synchronisation.

CuPy's sort (thrust's sort, which blocks until it is done) cost 16 us of host time a call for
1,000 keys and 69 us for 3,000 on the H200's host (device call of 2026-11-30), and 0.11 ms a
call for perl's larger batches, where the host then waited for the device: a stall a round.
Batches of at most ``SMALL_SORT_MAX`` keys are sorted by one block in one launch
(``block_sort_u64``, bitonic, in shared memory); batches of up to ``MERGE_SORT_MAX`` keys in
chunks of that size by one launch and then by merge passes (``merge_runs_u64``, one launch
each, ping-ponging with a scratch buffer); larger ones by CuPy, where the sort's own time
dwarfs the stall.
"""

from __future__ import annotations

import cupy
import numpy as np

from ._gpu_pool import BLOCK, module

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
    f = module("sort.cu").get_function
    chunks = (n + SMALL_SORT_MAX - 1) // SMALL_SORT_MAX
    size = 1 << (min(n, SMALL_SORT_MAX) - 1).bit_length()
    f("block_sort_u64")((chunks,), (min(1024, max(32, size // 2)),), (keys, np.uint64(n)))
    if chunks == 1:
        return
    src, dst = keys, cupy.empty_like(keys)
    blocks = ((n + BLOCK - 1) // BLOCK,)
    width = SMALL_SORT_MAX
    while width < n:
        f("merge_runs_u64")(blocks, (BLOCK,), (src, dst, np.uint64(n), np.uint64(width)))
        src, dst = dst, src
        width *= 2
    if src is not keys:
        keys[...] = src
