"""Launcher of kernels_cu/update.cu (ΔP = N \\ P, P ∪= ΔP; likewise for c⁻¹).

Grid: persistent, ``persistent_grid()`` blocks of 256 threads; warps take representative
nodes from ``ctl[CTL_WORK_UPDATE]``. Writes: P, D, N and NR (emptied), C, DC, NC (emptied) of every
node it completes; ``ctl[CTL_CHANGED]`` (+1 per node with a non-empty delta),
``ctl[CTL_NPAIRS]`` (store pairs of the next round), ``ctl[CTL_NSUCC]`` (successor pairs),
``ctl[CTL_NACTIVE]`` (active copy edges), ``ctl[CTL_DELTA_BITS]``; the pool;
``ctl[CTL_OVF_UPDATE] = 1`` for nodes it had to leave (run again with ``resume``).
Does nothing when ``ctl[CTL_OVF_RULES]`` is set.
"""

from __future__ import annotations

import cupy
import numpy as np

from ._gpu_pool import BLOCK, CTL_UPDATE_ITEMS, DevicePool, module, persistent_grid


def update_deltas(g, heads, succ: cupy.ndarray, pool: DevicePool, NR: cupy.ndarray,
                  resume: bool = False) -> None:
    """Fold the next deltas N ∪ NR, NC into P, C and make them the current deltas D, DC.

    ``NR`` (uint32[n] list heads) holds the rule kernel's part of the next points-to deltas,
    N the copy kernel's (the two kernels run at once, each writing its own lists); NR is all
    NIL again afterwards."""
    P, D, N, C, DC, NC = heads
    f = module("update.cu").get_function
    # the nodes with a next delta to fold in or a current one to clear; when resumed, the same
    # nodes as the interrupted launch (their lists are partly updated)
    work, count = pool.frontier("update_work", CTL_UPDATE_ITEMS, g, f("heads_frontier"),
                                (g.nodes, np.uint32(g.n_work), N, NC, D, DC, NR), again=resume)
    f("update_deltas")((persistent_grid(),), (BLOCK,), (
        work, count, P, D, N, C, DC, NC, NR, succ, g.s_ptr, np.uint32(g.i2p),
        np.int32(resume), *pool.args()))
