"""The host loop of the GPU solver: set up, run rounds until nothing changes, export.

Each round is queued without a synchronisation and ends with one read of the control block
(:mod:`.rounds`); between rounds the host grows what ran out and compacts the pool when it
fills, or when the next round may not fit in what is left (:meth:`.sets.SetStore.compact`).
"""

from __future__ import annotations

import json
import logging
import time

import cupy
import numpy as np

from constraints.model import ConstraintSet

from ...solution import Solution, SolveStats
from . import cycles
from .device import (CTL_CHUNKS, CTL_DELTA_BITS, CTL_MEMO_HITS, CTL_MEMO_MISSES, CTL_NSETS,
                     CTL_OVF, CTL_TOP, CTL_UNIONS, NIL, PROFILE, PROFILE_SLOTS, device_name,
                     fill_bytes)
from .graph import DeviceGraph
from .lists import insert_pairs
from .options import GpuOptions
from .pool import ElementPool
from .rounds import Counts, Round
from .sets import SetStore
from .timing import Timer

#: With ``trace``, every round's entry is also logged here (DEBUG, one JSON object a line) as it
#: ends, so that a solve cut short (a timeout, a signal) still shows its rounds (bench/gpu_rounds.py).
log = logging.getLogger("andersen_gpu.gpu.rounds")

#: A compaction leaves room for this many rounds like the largest recent one.
ROOM_ROUNDS = 4

_ORDER_POOL: list = []


def _order_pool():
    """The one worker thread that computes pointee orders (made on first use)."""
    if not _ORDER_POOL:
        from concurrent.futures import ThreadPoolExecutor
        _ORDER_POOL.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="pointee-order"))
    return _ORDER_POOL[0]


def _pointee_order(cs):
    from andersen_gpu.preprocess.order import pointee_order
    return pointee_order(cs)


#: Pool elements to start with (32 MiB), whatever the input: the pool grows when a round needs
#: more, and compaction keeps it near what the live sets use, so a start sized by the input only
#: raised the peak (bench/results/h200-13ee781/FINDINGS.md).
INITIAL_CAPACITY = 1 << 18


def solve_gpu(cs: ConstraintSet, opt: GpuOptions, policy: cycles.CyclePolicy | None = None) -> Solution:
    """Least solution of ``cs`` on the GPU (see :func:`andersen_gpu.backends.gpu.solve`);
    ``policy`` says when the online cycle passes run (default ``cycles.CyclePolicy()``)."""
    t0 = time.perf_counter()
    notes: dict[str, object] = {}
    original = cs
    # the pointee order needs only the node ids, which the collapse keeps: computed on the set
    # as given, in a second thread, while the collapse runs (both are compiled, nogil)
    order_job = _order_pool().submit(_pointee_order, cs) if opt.pointee_order else None
    if opt.preprocess:
        from andersen_gpu.preprocess import collapse
        t_pre = time.perf_counter()
        cs, pstats = collapse(cs, hvn_passes=opt.hvn_passes, walks=opt.walk_geps)
        notes["preprocess_ms"] = round((time.perf_counter() - t_pre) * 1e3, 3)
        notes["walk geps (cycles, added)"] = f"{pstats.walk_cycles:,}, {pstats.walks:,}"

    def perm():
        """The order's permutation (None without one), waited for once the graph's columns are
        uploaded: the order overlaps the collapse and the host's part of the graph build."""
        order = order_job.result() if order_job is not None else None
        if order is None:
            return None
        notes["pointee_order_ms"] = round(order.ms, 3)
        return order.perm

    mempool = cupy.get_default_memory_pool()
    base_used = mempool.used_bytes()
    peak = [base_used]

    def read_ctl() -> np.ndarray:
        peak[0] = max(peak[0], mempool.used_bytes())
        return pool.ctl.get()

    t_build = time.perf_counter()
    g = DeviceGraph(cs, perm)
    min_cap = opt.capacity or INITIAL_CAPACITY
    pool = ElementPool(min_cap)
    n_loads = int(g.load_ptrs.size)
    # the set table and the caches start small and grow with what the rounds use (Round.fit);
    # the sizes below are the largest the caches may take
    store = SetStore(pool, capacity=g.n_work // 4, update_slots=4 * g.n_work,
                     shift_slots=2 * int(cs.gep_dst.size + cs.walk_dst.size + cs.call_dst.size),
                     image_slots=4 * n_loads)
    timer = Timer(opt.timing)
    rnd = Round(g, pool, store, timer, table_slots=4 * int(cs.store_dst.size))
    t_graph = time.perf_counter()

    # the initial sets: x = &y gives y in the list of x; interned into Pn, Dn, then committed
    heads = cupy.full(max(g.n, 1), NIL, cupy.uint32)
    addr = g.addr_pairs()
    while True:
        timer.run("initial", insert_pairs, addr, int(addr.size), heads, pool, CTL_OVF)
        c = read_ctl()
        if not c[CTL_OVF]:
            break
        pool.grow(int(c[CTL_TOP]))
        pool.ctl[CTL_OVF] = 0
    del addr
    while True:
        pool.clear_round()
        timer.run("initial", store.intern_heads, g.nodes, heads, rnd.Pn, rnd.Dn, rnd.chg_next)
        rnd.commit(0)
        c = read_ctl()
        if not c[CTL_OVF]:
            break
        store.make_room(c)   # the sealed copies of the lists, or their set ids, did not fit
    del heads
    counts = Counts.read(c)
    rnd.advance()

    iterations, retries, delta_bits, hits, misses, unions, chunks = 0, 0, 0, 0, 0, 0, 0
    spec_rounds, spec_misses = 0, 0
    # pool elements a round takes (the most of the recent rounds, decaying): a compaction
    # leaves room for ROOM_ROUNDS such rounds, and comes before a round that may not fit
    need = 0
    room_made: dict[str, int] = {}
    trace: list[dict] = []
    policy = policy or cycles.CyclePolicy()
    profile = _Profile(pool.ctl) if PROFILE else None
    while counts.nchg:
        if opt.max_iterations is not None and iterations >= opt.max_iterations:
            raise RuntimeError(f"gpu solver did not converge in {opt.max_iterations} rounds")
        iterations += 1
        top_before = counts.top
        t_round, retries_before, compactions_before = time.perf_counter(), retries, store.compactions
        marks_before = len(timer.marks)
        speculate = True
        while True:
            if rnd.launch_first(counts, speculate):
                # both halves queued at once (rounds.py): one read of the control block
                rnd.launch_second(counts)
                c = read_ctl()
                if not c[CTL_OVF]:
                    spec_rounds += 1
                    break
                # its room was too small (or something ran out): again, reading the counts; the pool
                # the round takes is still counted from its start (top_before), so that a pool that
                # ran out is given room for the whole round (make_room)
                spec_misses += 1
                speculate = False
                rnd.speculation_missed(c)
                counts.nsets = int(c[CTL_NSETS])
                continue
            c = read_ctl()
            if not c[CTL_OVF]:
                rnd.launch_second(counts, c)
                c = read_ctl()
                if not c[CTL_OVF]:
                    break
            retries += 1
            what = rnd.make_room(c, counts, top_before, min_cap)
            room_made[what] = room_made.get(what, 0) + 1
            c = read_ctl()
            counts.top, counts.nsets = int(c[CTL_TOP]), int(c[CTL_NSETS])
            top_before = counts.top
        delta_bits += int(c[CTL_DELTA_BITS])
        hits += int(c[CTL_MEMO_HITS])
        misses += int(c[CTL_MEMO_MISSES])
        unions += int(c[CTL_UNIONS])
        chunks += int(c[CTL_CHUNKS])
        new = Counts.read(c)
        need = max(new.top - top_before, need - need // 4)
        entry = dict(changed=counts.nchg, pairs_bound=rnd.c_cap, store_pairs_bound=rnd.bound_g,
                     next_changed=new.nchg, pool_top=new.top, pool_cap=pool.cap, sets=new.nsets,
                     retries=retries - retries_before, speculative=rnd.speculative) if opt.trace else None
        if PROFILE:   # the round's counters (maxima of this round), then zeroed for the next
            profile.add(c, entry)
        counts = new
        rnd.advance()
        rnd.fit(c)
        merged = 0
        if opt.online_cycles and policy.due(iterations, (time.perf_counter() - t_round) * 1e3):
            done = cycles.run_pass(rnd, counts, policy, iterations)
            merged = done["merged"] if done is not None else 0
            if entry is not None:
                if done is not None:
                    entry["cycle_pass"] = done
                else:
                    entry["cycle_pass_put_off"] = True
        if counts.top > opt.compact_fill * pool.cap or counts.top + need + need // 4 > pool.cap:
            store.compact(rnd.roots(), counts.nsets, min_cap, want_free=max(ROOM_ROUNDS * need, min_cap // 2),
                          min_free=need + need // 4, release=rnd.release_buffers)
            c = read_ctl()
            counts.top, counts.nsets = int(c[CTL_TOP]), int(c[CTL_NSETS])
        if entry is not None:
            entry.update(compactions=store.compactions - compactions_before, merged=merged,
                         ms=round((time.perf_counter() - t_round) * 1e3, 3))
            if opt.timing:   # the round's kernels (read_ctl above synchronised after them)
                entry["kernel_ms"] = timer.totals(marks_before)
            trace.append(entry)
            if log.isEnabledFor(logging.DEBUG):
                log.debug(json.dumps(dict(round=iterations, **entry)))

    # distinct final sets: the sets of the representatives, read through rep
    P_all = rnd.P[g.rep] if g.n else cupy.zeros(0, cupy.uint32)
    which, indptr, indices = store.export(P_all)
    if g.perm is not None:
        # back to the constraint set's ids: node v's set is that of its new id perm[v]
        which = which[g.perm]
        indices = _original_ids(indices, indptr, g.inverse)
    counts_per_set = indptr[1:] - indptr[:-1]
    final_edges = int(counts_per_set[which].sum()) if g.n else 0
    n_sets = int(indptr.size - 1)
    cupy.cuda.Device().synchronize()
    peak[0] = max(peak[0], mempool.used_bytes())
    t_solved = time.perf_counter()
    sol = Solution(which.get(), indptr.get(), indices.get(), names=original.names)
    t_back = time.perf_counter()
    peak_bytes = peak[0] - base_used
    notes.update(graph_build_ms=round((t_graph - t_build) * 1e3, 3),
                 copy_back_ms=round((t_back - t_solved) * 1e3, 3),
                 final_edges=final_edges, distinct_sets=n_sets,
                 sets_made=store.sets_made + counts.nsets, live_sets=counts.nsets,
                 pool_elements_used=counts.top, pool_growths=pool.growths, compactions=store.compactions,
                 staged_compactions=store.staged_compactions,
                 bytes_per_fact=round(peak_bytes / final_edges, 4) if final_edges else None,
                 memo_hits=hits, memo_misses=misses, unions=unions, image_chunks=chunks, delta_bits=delta_bits,
                 round_retries=retries, speculative_rounds=spec_rounds, speculation_misses=spec_misses,
                 representatives=g.n_work,
                 table_slots=dict(set_ids=store.cap, update=store.update.slots, shift=store.shift.slots,
                                  image=store.image.slots, elements=store.elements.slots, stores=rnd.table.slots),
                 cycle_passes=policy.passes,
                 cycle_passes_put_off=policy.skipped, cycle_merges=policy.merged, cycle_ms=round(policy.ms, 3))
    if room_made:
        notes["room_made"] = room_made
    if PROFILE:
        notes["profile"] = profile.totals(c)
    if opt.trace:
        notes["trace"] = trace
    sol.stats = SolveStats(backend="gpu", device=device_name(), iterations=iterations,
                           solve_ms=(t_solved - t0) * 1e3, kernel_ms=timer.totals(), pool_bytes=pool.nbytes,
                           peak_device_bytes=peak_bytes, notes=notes)
    return sol


class _Profile:
    """The kernels' profile counters (ANDERSEN_GPU_PROFILE=1), read after each round and zeroed
    for the next, so that a trace entry holds its round's counts and maxima; the totals sum the
    counts and keep the largest maxima (a counter is a maximum when its name says ``max``)."""

    def __init__(self, ctl):
        self.ctl = ctl
        self.is_max = np.array(["max" in name for name in PROFILE_SLOTS])
        self.sums = np.zeros(len(PROFILE_SLOTS), np.uint64)

    def _read(self, c: np.ndarray) -> np.ndarray:
        return c[32:32 + len(PROFILE_SLOTS)].astype(np.uint64)

    def add(self, c: np.ndarray, entry: dict | None) -> None:
        vals = self._read(c)
        self.sums = np.where(self.is_max, np.maximum(self.sums, vals), self.sums + vals)
        if entry is not None:
            entry["profile"] = {k: int(v) for k, v in zip(PROFILE_SLOTS, vals) if v}
        fill_bytes(self.ctl[32:32 + len(PROFILE_SLOTS)], 0)

    def totals(self, c: np.ndarray) -> dict[str, int]:
        vals = self._read(c)   # what ran after the last round
        out = np.where(self.is_max, np.maximum(self.sums, vals), self.sums + vals)
        return dict(zip(PROFILE_SLOTS, (int(v) for v in out)))


def _original_ids(indices, indptr, inverse):
    """int32[total]: ``inverse[indices]`` with every set (``indptr`` rows) sorted again (the
    renumbering moves whole objects, so a set's order changes)."""
    total = int(indices.size)
    if total == 0:
        return indices
    rows = cupy.searchsorted(indptr[1:], cupy.arange(total, dtype=cupy.int64), side="right")
    keys = (rows.astype(cupy.uint64) << np.uint64(32)) | inverse[indices].astype(cupy.uint64)
    keys.sort()
    return (keys & np.uint64(0xFFFFFFFF)).astype(cupy.int32)
