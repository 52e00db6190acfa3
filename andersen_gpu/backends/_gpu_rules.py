"""Launcher of kernels_cu/rules.cu (Copy⁻¹ over new edges, Load⁻¹, AddPtr⁻¹, Store⁻¹ first half).

Grid: persistent, ``persistent_grid()`` blocks of 256 threads; warps take representative
nodes from ``ctl[CTL_WORK_RULES]``. Writes: N(x) (or NR(x), see ``apply_rules``) and NC(x) of
every node (OR of the rules' new facts), ``pairs[0:ctl[CTL_PAIR_FILL]]`` (store pairs, unsorted),
``succ_pairs[0:ctl[CTL_SUCC_FILL]]`` (successor pairs), the pool; ``ctl[CTL_OVF_RULES] = 1``
when the pool is full (then run again after growing: it only ORs).
"""

from __future__ import annotations

import cupy
import numpy as np

from ._gpu_pool import BLOCK, CTL_RULES_ITEMS, DevicePool, module, persistent_grid


def _module():
    return module("rules.cu")


def apply_rules(g, heads, pairs: cupy.ndarray, succ_pairs: cupy.ndarray, pool: DevicePool,
                filter_known: bool = True, pcls: cupy.ndarray | None = None,
                NR: cupy.ndarray | None = None) -> None:
    """One semi-naive round of the per-node rules over every representative node.

    ``g`` is the device graph (nodes, rep, load/gep/store CSR, sizes, i2p); ``heads`` the
    six list-head arrays P, D, N, C, DC, NC (uint32[n]); the rules' new points-to facts go
    into the lists ``NR`` (uint32[n]; default N: with the copy kernel running beside this
    one, N is that kernel's and the update folds NR in); ``pairs`` and ``succ_pairs`` receive
    the store pairs and the successor pairs of the new copy edges; ``filter_known`` leaves out
    of N, NC what P, c⁻¹ already hold (walking them); ``pcls`` (uint32[n] or None) maps each
    node to one whose P is equal, so new copy edges pull each distinct P once per node.
    """
    P, D, N, C, DC, NC = heads
    f = _module().get_function
    # the nodes with work this round (a handful in the last rounds of the larger inputs)
    work, count = pool.frontier("rules_work", CTL_RULES_ITEMS, g, f("rules_frontier"), (
        g.nodes, np.uint32(g.n_work), D, DC, g.l_ptr, g.l_src, g.g_ptr, g.g_src, g.s_ptr))
    f("apply_rules")((persistent_grid(),), (BLOCK,), (
        work, count, g.rep, pcls if pcls is not None else g.rep,
        np.int32(pcls is not None), np.int32(filter_known), P, D, N if NR is None else NR, C, DC, NC,
        g.l_ptr, g.l_src, g.g_ptr, g.g_src, g.g_off, g.s_ptr, g.s_dst, g.size, np.uint32(g.i2p),
        pairs, np.uint64(pairs.size), succ_pairs, np.uint64(succ_pairs.size), *pool.args()))
