"""Launcher of kernels_cu/insert_pairs.cu (Store⁻¹ second half; initial addr/copy lists).

Grid: one warp per 32 consecutive pairs, ``ceil(npairs / 32)`` warps in blocks of 256 threads.
Writes: the lists ``heads[key]`` of every key present in ``pairs`` (OR of its ids); the pool
and ``ctl[CTL_TOP]``; ``ctl[ovf_slot] = 1`` when the pool is full (the call is then
idempotent: run it again after growing).
"""

from __future__ import annotations

import cupy
import numpy as np

import kernels_cu

from ._gpu_pool import BLOCK, DevicePool, compile_options


@cupy.memoize(for_each_device=True)
def _kernel():
    mod = cupy.RawModule(code=kernels_cu.source("insert_pairs.cu"), options=compile_options())
    return mod.get_function("insert_pairs")


def insert_pairs(pairs: cupy.ndarray, npairs: int, heads: cupy.ndarray, pool: DevicePool,
                 ovf_slot: int) -> None:
    """OR ids into lists from ``pairs`` (uint64 ``key << 32 | id``, sorted ascending).

    Keys ``>= heads.size`` are placeholders and are skipped.
    """
    if npairs == 0:
        return
    warps = (npairs + 31) // 32
    blocks = (warps * 32 + BLOCK - 1) // BLOCK
    _kernel()((blocks,), (BLOCK,), (pairs, np.uint64(npairs), heads, np.uint32(heads.size), *pool.args(),
                                    np.int32(ovf_slot)))
