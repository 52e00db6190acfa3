"""The device pool of 128-byte sparse bit-vector elements and the control block.

One element is 32 uint32 words (base, 30 bit-words, next; kernels_cu/bitvec.cuh). Elements
are handed out by a bump pointer on the device, ``ctl[CTL_TOP]``; a kernel that finds the pool
full raises ``ctl[CTL_OVF]`` and gives up, and the host makes room (``grow``, or the set
store's compaction, which replaces ``words`` by a smaller or larger pool holding only the
live lists) and runs the step again.
"""

from __future__ import annotations

import cupy
import numpy as np

from .device import CTL_ROUND_END, CTL_ROUND_FIRST, CTL_SLOTS, CTL_TOP, fill_bytes

ELEM_WORDS = 32
ELEM_BYTES = 4 * ELEM_WORDS


class ElementPool:
    """Element pool ``words`` (uint32[cap * 32]) and the control block ``ctl`` (uint64[32]).

    Parameters
    ----------
    capacity : int
        Initial capacity in elements (at least 1).
    """

    def __init__(self, capacity: int):
        self.cap = int(max(1, capacity))
        self.words = cupy.empty(self.cap * ELEM_WORDS, dtype=cupy.uint32)
        self.ctl = cupy.zeros(CTL_SLOTS, dtype=cupy.uint64)
        self.growths = 0

    @property
    def nbytes(self) -> int:
        return self.cap * ELEM_BYTES

    def args(self) -> tuple:
        """The (pool_w, ctl, cap) kernel arguments."""
        return (self.words, self.ctl, np.uint32(self.cap))

    @property
    def round_slots(self) -> cupy.ndarray:
        """The per-round slots of the control block (a view; a round starts with them zeroed)."""
        return self.ctl[CTL_ROUND_FIRST:CTL_ROUND_END]

    def clear_round(self) -> None:
        """Zero the per-round slots of the control block (one memset)."""
        fill_bytes(self.round_slots, 0)

    def replace(self, words: cupy.ndarray, top: int) -> None:
        """Install a compacted pool whose first ``top`` elements are in use."""
        self.words = words
        self.cap = int(words.size) // ELEM_WORDS
        self.ctl[CTL_TOP] = top

    def release(self) -> None:
        """Drop the elements (before a compaction installs a new pool: :meth:`replace`)."""
        self.words = cupy.empty(0, dtype=cupy.uint32)
        self.cap = 0
        cupy.get_default_memory_pool().free_all_blocks()

    def grow(self, top: int) -> None:
        """Reallocate to at least twice the capacity, keeping the used part (``top``: the bump
        pointer the kernels left, which may run past ``cap`` after failed requests).

        Raises MemoryError when the device cannot hold the larger pool (the old one is then
        still in place)."""
        old = self.cap
        new_cap = max(2 * old, int(top) + old // 2 + 1)
        if new_cap >= 2**32 - 1:
            raise MemoryError(f"points-to pool would need {new_cap:,} elements (over 2^32)")
        try:
            words = cupy.empty(new_cap * ELEM_WORDS, dtype=cupy.uint32)
        except cupy.cuda.memory.OutOfMemoryError:
            raise MemoryError(f"device out of memory growing the points-to pool to "
                              f"{new_cap * ELEM_BYTES / 2**30:.1f} GiB") from None
        words[: old * ELEM_WORDS] = self.words
        self.words = words
        self.cap = new_cap
        self.ctl[CTL_TOP] = min(int(top), old)
        self.growths += 1
