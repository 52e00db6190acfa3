"""Launcher of kernels_cu/sort.cu: the per-round sorts of the solver's pair batches.

CuPy's sort (CUB radix sort through thrust: temporary storage and several launches) cost
16 us of host time a call for 1,000 keys and 69 us for 3,000 on the H200's host (device
call of 2026-11-30), and a round sorts up to three batches: on ex (47 rounds of a few
hundred pairs) the sorts were an eighth of the solve. Batches of at most ``SMALL_SORT_MAX``
keys are sorted by one block in one launch (``block_sort_u64``, bitonic, in shared
memory); larger ones by CuPy.
"""

from __future__ import annotations

import cupy
import numpy as np

from ._gpu_pool import module

SMALL_SORT_MAX = 4096   # must match BLOCK_SORT_MAX in kernels_cu/sort.cu


def sort_keys(keys: cupy.ndarray) -> None:
    """Sort ``keys`` (uint64[k], contiguous) ascending, in place, on the current stream."""
    n = int(keys.size)
    if n <= 1:
        return
    if n > SMALL_SORT_MAX:
        keys.sort()
        return
    size = 1 << (n - 1).bit_length()
    threads = min(1024, max(32, size // 2))
    module("sort.cu").get_function("block_sort_u64")((1,), (threads,), (keys, np.uint64(n)))
