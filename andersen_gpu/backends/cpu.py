"""The fast CPU backend: compiled worklist solver on shared sparse bit-sets.

Pipeline: offline preprocessing (:func:`andersen_gpu.preprocess.collapse`:
copy-cycle collapse and HVN) shrinks the problem; the nodes are renumbered in
the pointee order (:mod:`andersen_gpu.preprocess.order`, the GPU backend's: the
objects the large sets hold get neighbouring ids, so a set takes fewer words);
the compiled core
(:mod:`._cpu_core`) solves it with difference propagation in topological
waves, collapsing copy cycles each wave and merging by the dump's HCD table
on the fly. Points-to sets live in a hash-consed set table
(:mod:`._cpu_sets`): every distinct set is stored once, nodes hold set ids,
unions are memoized and sets no node holds are freed, so memory follows the
distinct sets, not the nodes. The :class:`Solution` is built from the table's
distinct sets, each expanded once (never per node).

``threads > 1`` swaps the compiled core for the multi-core one
(:mod:`._cpu_wave`: level-synchronous wave propagation with owner-writes,
numba ``prange``) on private per-node sets; same result, and slower.
"""

from __future__ import annotations

import resource
import time

import numba
import numpy as np

from constraints.model import ConstraintSet

from ..preprocess import collapse
from ..preprocess.order import original_ids, pointee_order, renumber
from ..preprocess.rewrite import apply_rep
from ..solution import Solution, SolveStats
from . import _cpu_core, _cpu_sets, _cpu_wave

#: ``order=None`` renumbers (the pointee order) when the address-taken nodes hold fewer than this
#: many ids per 64-id word on average: the sparse bit-sets spend a word on each 64 ids. Where they
#: are denser the order does not pay (what was measured: commit 179849c's message,
#: bench/results/here-95e3adf/FINDINGS.md).
SPARSE_BITS_PER_WORD = 8.0
#: Parallel regions hand out this many iterations at a time (dynamic scheduling:
#: a few nodes with huge sets must not stall one thread's static share).
PARALLEL_CHUNK = 16


def _i64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, np.int64)


def _solve_parallel(columns: tuple, threads: int) -> tuple:
    """:func:`._cpu_wave.solve_wave` on ``threads`` numba threads (restored afterwards)."""
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    chunk = numba.set_parallel_chunksize(PARALLEL_CHUNK)
    try:
        return _cpu_wave.solve_wave(*columns, numba.config.NUMBA_NUM_THREADS)
    finally:
        numba.set_parallel_chunksize(chunk)
        numba.set_num_threads(before)


def _table_notes(st: np.ndarray, node_set: np.ndarray, indptr: np.ndarray) -> dict[str, object]:
    """The set table's counters as stats notes, with its peak bytes per final points-to fact.

    Final facts count every node of the solution (what a per-node representation would store).
    """
    facts = int(np.diff(indptr)[node_set].sum()) if len(node_set) else 0
    values = dict(zip(_cpu_sets.STAT_NAMES, (int(x) for x in st)))
    peak = values["table bytes (peak)"]
    notes: dict[str, object] = {f"set table {name}": v for name, v in values.items()}
    notes["set table bytes per final fact"] = round(peak / facts, 4) if facts else None
    return notes


def _sparse_pointees(cs: ConstraintSet) -> bool:
    """Whether the address-taken nodes of ``cs`` average fewer than :data:`SPARSE_BITS_PER_WORD`
    per 64-id word."""
    taken = np.unique(cs.addr_src)
    return len(taken) > 0 and len(taken) < SPARSE_BITS_PER_WORD * len(np.unique(taken >> 6))


def solve(cs: ConstraintSet, preprocess: bool = True, threads: int = 1, hcd: bool = True,
          order: bool | None = None) -> Solution:
    """Least solution of ``cs``, identical to the reference backend's.

    Parameters
    ----------
    cs : ConstraintSet
    preprocess : bool
        Run the offline passes (SCC collapse + HVN) first. Off: only
        duplicate constraints are dropped.
    threads : int
        1 (default): the serial solver. N > 1: the multi-core solver of
        :mod:`._cpu_wave` on min(N, numba's thread limit) threads (the limit is
        the core count unless ``NUMBA_NUM_THREADS`` says otherwise; the
        number used is in ``stats.notes["threads"]``). Same solution, but
        *slower* on every input measured, and its sets are private per node
        (memory grows with nodes times set size, unlike the serial solver's
        shared sets; ``bench/results/cpu-threads-h200.md``,
        ``bench/results/cpu-shared-sets.md``): it exists to be measured and
        improved, not as a speed-up.
    hcd : bool
        Merge online by the HCD table (``cs.hcd_ptr``/``cs.hcd_target``)
        when there is one.
    order : bool or None
        Solve under the pointee order (:func:`andersen_gpu.preprocess.order.pointee_order`,
        as the GPU backend does): the objects the large sets hold are numbered together, so
        a set costs fewer words of the sparse bit-sets; the solution is mapped back (same
        solution). None (default): where the address-taken nodes are sparse
        (:data:`SPARSE_BITS_PER_WORD`).

    Returns
    -------
    Solution
        With ``stats``: backend "cpu", iterations (node visits), solve_ms
        (preprocessing included), peak_host_bytes (process max RSS), and
        notes with preprocessing counts, rounds, online merges, the
        core's work counters (``core pushes``, ``core new edges``, ...) and,
        for the serial solver, the set table's (``set table ...``: distinct
        sets made and freed, memo hits, ``set table table bytes (peak)`` and
        ``set table bytes per final fact``, that peak over the solution's
        points-to facts of every node).

    Raises
    ------
    ValueError
        ``threads`` is not a positive integer.
    """
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads must be a positive integer; got {threads!r}")
    t0 = time.perf_counter()
    notes: dict[str, object] = {}
    if preprocess:
        work, pstats = collapse(cs)
        notes.update(pstats.notes())
    else:
        work = apply_rep(cs, cs.rep)
    perm = None
    if order or (order is None and _sparse_pointees(work)):
        ordered = pointee_order(work)
        perm = ordered.perm
        work = renumber(work, perm)
        notes["pointee order ms"] = round(ordered.ms, 1)
    hp, ht = (work.hcd_ptr, work.hcd_target) if hcd else (np.zeros(0, np.int32),) * 2
    t1 = time.perf_counter()
    # walk and call geps ride in the gep columns, flagged: the rule is the gep's against their bound
    kind = np.concatenate((np.full(len(work.gep_dst), _cpu_core.GEP, np.int8),
                           np.full(len(work.walk_dst), _cpu_core.WALK, np.int8),
                           np.full(len(work.call_dst), _cpu_core.CALL, np.int8)))
    size = _i64(work.gep_bound())
    walk_size = _i64(work.walk_size()) if len(work.walk_dst) else size   # read by walks only
    call_bound = _i64(work.call_bound()) if len(work.call_dst) else size   # read by call geps only
    fi = _i64(work.field_insensitive_mask())
    columns = (work.n_nodes, _i64(work.rep), size, walk_size, call_bound, fi, int(work.int_to_pointer),
               _i64(work.addr_dst), _i64(work.addr_src), _i64(work.copy_dst), _i64(work.copy_src),
               _i64(work.load_dst), _i64(work.load_src), _i64(work.store_dst), _i64(work.store_src),
               _i64(np.concatenate((work.gep_dst, work.walk_dst, work.call_dst))),
               _i64(np.concatenate((work.gep_src, work.walk_src, work.call_src))),
               _i64(np.concatenate((work.gep_offset, work.walk_offset, work.call_offset))), kind, _i64(hp), _i64(ht))
    if threads == 1:
        parent, pts, table, visits, rounds, m_scc, m_hcd, ctr = _cpu_core.solve_core(*columns)
        t2 = time.perf_counter()
        node_set, indptr, indices = _cpu_core.extract(work.n_nodes, parent, pts, table)
        notes.update(_table_notes(_cpu_sets.stats(table), node_set, indptr))
        del table
        counter_names = _cpu_core.COUNTER_NAMES
    else:
        used = min(int(threads), numba.config.NUMBA_NUM_THREADS)
        notes["threads"] = used
        parent, pts, plen, visits, rounds, m_scc, m_hcd, ctr, ms = _solve_parallel(columns, used)
        counter_names = _cpu_wave.COUNTER_NAMES
        notes["step ms"] = ", ".join(f"{name} {t:.1f}" for name, t in zip(_cpu_wave.PHASE_NAMES, ms))
        t2 = time.perf_counter()
        node_set, indptr, indices = _cpu_wave.extract(work.n_nodes, parent, pts, plen)
        del pts
    if perm is not None:
        node_set, indices = original_ids(node_set, indptr, indices, perm)
    t3 = time.perf_counter()
    notes.update({"rounds": rounds, "online merges (scc, hcd)": f"{m_scc:,}, {m_hcd:,}",
                  "core ms": round((t2 - t1) * 1e3, 1), "extract ms": round((t3 - t2) * 1e3, 1),
                  "distinct sets": len(indptr) - 1})
    notes.update({f"core {name}": int(c) for name, c in zip(counter_names, ctr)})
    sol = Solution(node_set, indptr, indices, names=cs.names)
    sol.stats = SolveStats(backend="cpu", iterations=int(visits), solve_ms=(time.perf_counter() - t0) * 1e3,
                           peak_host_bytes=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                           notes=notes)
    return sol
