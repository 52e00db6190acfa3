"""The fast CPU backend: compiled worklist solver on sparse bit-sets.

Pipeline: offline preprocessing (:func:`andersen_gpu.preprocess.collapse`:
copy-cycle collapse and HVN) shrinks the problem; the compiled core
(:mod:`._cpu_core`) solves it with difference propagation in topological
waves, collapsing copy cycles each wave and merging by the dump's HCD table
on the fly; equal sets are then deduplicated *before* they are expanded into
the :class:`Solution` (linux has about 1.5 G points-to edges but far fewer
distinct sets).
"""

from __future__ import annotations

import resource
import time

import numpy as np

from constraints.model import ConstraintSet

from ..preprocess import collapse
from ..preprocess.rewrite import apply_rep
from ..solution import Solution, SolveStats
from . import _cpu_core


def _i64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, np.int64)


def solve(cs: ConstraintSet, preprocess: bool = True, threads: int = 1, hcd: bool = True) -> Solution:
    """Least solution of ``cs``, identical to the reference backend's.

    Parameters
    ----------
    cs : ConstraintSet
    preprocess : bool
        Run the offline passes (SCC collapse + HVN) first. Off: only
        duplicate constraints are dropped.
    threads : int
        Must be 1: the solver is sequential. No multi-core mode exists yet:
        a wave's visits write into each other's sets (copy pushes, new
        edges), so a ``prange`` over a wave needs per-target ownership
        (inverted edges, as the GPU backend does); on the 2-core development
        box it could not be measured meaningfully, so none is offered.
    hcd : bool
        Merge online by the HCD table (``cs.hcd_ptr``/``cs.hcd_target``)
        when there is one.

    Returns
    -------
    Solution
        With ``stats``: backend "cpu", iterations (node visits), solve_ms
        (preprocessing included), peak_host_bytes (process max RSS), and
        notes with preprocessing counts, rounds, online merges and the
        core's work counters (``core pushes``, ``core new edges``, ...).
    """
    if threads != 1:
        raise ValueError(f"the cpu backend runs on one thread; got threads={threads}")
    t0 = time.perf_counter()
    notes: dict[str, object] = {}
    if preprocess:
        work, pstats = collapse(cs)
        notes.update(pstats.notes())
    else:
        work = apply_rep(cs, cs.rep)
    hp, ht = (work.hcd_ptr, work.hcd_target) if hcd else (np.zeros(0, np.int32),) * 2
    t1 = time.perf_counter()
    parent, pts, plen, visits, rounds, m_scc, m_hcd, ctr = _cpu_core.solve_core(
        work.n_nodes, _i64(work.rep), _i64(work.obj_size), int(work.int_to_pointer),
        _i64(work.addr_dst), _i64(work.addr_src), _i64(work.copy_dst), _i64(work.copy_src),
        _i64(work.load_dst), _i64(work.load_src), _i64(work.store_dst), _i64(work.store_src),
        _i64(work.gep_dst), _i64(work.gep_src), _i64(work.gep_offset), _i64(hp), _i64(ht))
    t2 = time.perf_counter()
    node_set, indptr, indices = _cpu_core.extract(work.n_nodes, parent, pts, plen)
    del pts
    t3 = time.perf_counter()
    notes.update({"rounds": rounds, "online merges (scc, hcd)": f"{m_scc:,}, {m_hcd:,}",
                  "core ms": round((t2 - t1) * 1e3, 1), "extract ms": round((t3 - t2) * 1e3, 1),
                  "distinct sets": len(indptr) - 1})
    notes.update({f"core {name}": int(c) for name, c in zip(_cpu_core.COUNTER_NAMES, ctr)})
    sol = Solution(node_set, indptr, indices, names=cs.names)
    sol.stats = SolveStats(backend="cpu", iterations=int(visits), solve_ms=(time.perf_counter() - t0) * 1e3,
                           peak_host_bytes=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                           notes=notes)
    return sol
