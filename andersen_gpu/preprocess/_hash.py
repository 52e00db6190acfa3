"""Hashing shared by the compiled preprocessing passes (``hvn``, ``rewrite``)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def fmix64(h):
    """Murmur3's 64-bit finalizer: spreads every bit of the uint64 ``h`` over the low bits
    used as a hash-table slot."""
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h
