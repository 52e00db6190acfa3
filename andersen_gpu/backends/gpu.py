r"""The GPU backend: seed 002's inclusion-based solver on CuPy RawKernels.

Points-to sets, copy-inverse edge sets and copy-successor sets are sparse bit-vectors of
128-byte elements (base, 30 bit-words, next) in one growing device pool (``_gpu_pool``).
Edges are stored inverted so that the warp of node x writes only x's lists; one warp per
representative node with work in the round, handed out by atomic counters (from 8,192
representatives on, frontier kernels list the nodes with work first: the last rounds of the
large inputs change a handful of nodes; ``_gpu_pool.DevicePool.frontier``). A round,
semi-naive over the deltas ΔP / Δc⁻¹ of the last round only:

1. pointer equivalence (``sets.cu``): classes of equal ΔP in one kernel, through a hash
   table whose slots are taken only after an exact comparison of the lists (the hash-sort of
   seed 002 -- hash, CuPy sort, exact compare of neighbours, CuPy prefix sum -- stays behind
   ``class_table=False``); likewise the classes of equal P of the sources of new copy edges;
2. Copy⁻¹ over old edges (``copy_edges.cu``): every y with ΔP(y) ≠ ∅ emits (x, class(y)) for
   its successors x; they are sorted (``_gpu_sort``: no synchronisation up to 2^19 keys); one
   warp per x merges the ΔP of each class once;
3. the per-node rules (``rules.cu``): Copy⁻¹ over the new edges Δc⁻¹ (all of P(y)), Load⁻¹,
   AddPtr⁻¹ with the object-size bound, and the store pairs (Store⁻¹, first half);
4. store pairs and successor pairs sorted and OR-ed into their lists (``insert_pairs.cu``);
5. ``update.cu``: ΔP = (N ∪ NR) \ P, P ∪= ΔP (likewise for c⁻¹), and the counts of what the
   next round emits. The host reads this one small control block per round.

Steps 2 and 3-4 run at once, on two streams (``overlap``): the copy kernel's last warps run
long unions while most of the device idles, and the rule kernel fills that room. The copy
kernel writes the next deltas N, the rule kernel its own lists NR, so every list still has one
writer (linux 527-555 -> 436-443 ms, php 353-358 -> 302-322, vim 142-156 -> 122-137 against
31e8ed9; H200, 2026-11-30).

Before solving, the nodes are renumbered so that the pointees of the large sets are numbered
together (``andersen_gpu.preprocess.order``, computed in a second host thread while the offline
collapse runs): a set costs every kernel its number of 960-bit elements, and the paper inputs
scatter their pointees (linux: 801 -> 598 ms and 6.20 -> 3.16 device bytes per final edge
with it; H200, f5009a0). The graph is renumbered on the device and the final sets mapped back.
The offline merges of the constraint set (and those of ``andersen_gpu.preprocess.collapse``
when it is present) give the representative table; the inverted graph is built from it on the
device (``_gpu_graph``, CuPy sorts). With ``hcd`` / ``cycles`` the table changes while
solving (``_gpu_merge``): between rounds, pointees entering ΔP of an HCD pointer are merged
with the entry's target, and strongly connected components of the copy edges whose ends have
equal P are merged; the class's lists are folded into its representative and the graph is
rebuilt under the new table (``_gpu_graph``: a sort and three kernels a list; a batch
synchronises once). HCD merging is paced by cost by default (``hcd="auto"``): the pairs wait on
the device until rounds grow long against what a merge costs, and merges are made from then
on whenever enough pairs wait, so graphs with long rounds merge (linux: rules and copy
kernels 2.4 s to 0.42 s, H200, 9a971d2) and small ones never pay for it. Cycle
detection is off by default: its scans cost more than they save (linux 2.8 s to 17 s, php
0.8 s to 16 s, vim 0.30 s to 0.77 s; H200, 2026-11-30). The final sets are grouped into
distinct sets on the device (hash, sort, exact compare, prefix sum) and only those are
expanded and copied back: no per-node CSR is built.

CuPy is imported inside :func:`solve` only, so CPU-only machines import this module fine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from constraints.model import ConstraintSet

from ..solution import Solution, SolveStats


@dataclass
class HostGraph:
    """The constraint graph of the representatives, inverted, as host arrays.

    All ids are representatives (``rep``) except pointees, which keep their own ids.

    Attributes
    ----------
    n : int                      number of nodes
    rep : int32[n]               representative of every node
    nodes : uint32[n_work]       the representatives (the work list)
    l_ptr, l_src : uint32        load⁻¹ CSR: x = *y  gives y in l⁻¹(x)
    g_ptr, g_src, g_off : uint32 gep⁻¹ CSR: x = y + o gives (y, o) in a⁻¹(x)
    s_ptr, s_dst : uint32        store CSR: *x = y gives y in s(x)
    size : uint32[n]             object sizes (gep bound)
    i2p : int                    int-to-pointer id, or 0xFFFFFFFF
    addr_pairs : uint64          (rep x) << 32 | y for x = &y
    copy_pairs : uint64          (rep x) << 32 | (rep y) for x = y, rep x != rep y
    """

    n: int
    rep: np.ndarray
    nodes: np.ndarray
    l_ptr: np.ndarray
    l_src: np.ndarray
    g_ptr: np.ndarray
    g_src: np.ndarray
    g_off: np.ndarray
    s_ptr: np.ndarray
    s_dst: np.ndarray
    size: np.ndarray
    i2p: int
    addr_pairs: np.ndarray
    copy_pairs: np.ndarray

    @property
    def n_work(self) -> int:
        return int(self.nodes.size)


def _csr(n: int, keys: np.ndarray, *cols: np.ndarray) -> tuple[np.ndarray, ...]:
    """Deduplicated CSR over ``n`` rows: (indptr uint32[n+1], each col uint32 sorted by key, cols)."""
    if keys.size:
        order = np.lexsort(tuple(reversed((keys,) + cols)))
        stacked = np.stack([keys[order]] + [c[order] for c in cols])
        keep = np.ones(stacked.shape[1], bool)
        keep[1:] = np.any(stacked[:, 1:] != stacked[:, :-1], axis=0)
        stacked = stacked[:, keep]
        keys, cols = stacked[0], tuple(stacked[1:])
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(keys, minlength=n), out=ptr[1:])
    ptr = ptr.astype(np.uint32)
    return (ptr,) + tuple(np.ascontiguousarray(c, np.uint32) for c in cols)


def build_graph(cs: ConstraintSet) -> HostGraph:
    """Invert and deduplicate the constraints of ``cs`` over its representatives."""
    n = cs.n_nodes
    rep = cs.rep.astype(np.int64)
    nodes = np.flatnonzero(rep == np.arange(n)).astype(np.uint32)
    l_ptr, l_src = _csr(n, rep[cs.load_dst], rep[cs.load_src])
    g_ptr, g_src, g_off = _csr(n, rep[cs.gep_dst], rep[cs.gep_src], cs.gep_offset.astype(np.int64))
    s_ptr, s_dst = _csr(n, rep[cs.store_dst], rep[cs.store_src])
    addr = (rep[cs.addr_dst] << 32) | cs.addr_src.astype(np.int64)
    cd, cs_ = rep[cs.copy_dst], rep[cs.copy_src]
    keep = cd != cs_
    copy = (cd[keep] << 32) | cs_[keep]
    return HostGraph(n, cs.rep, nodes, l_ptr, l_src, g_ptr, g_src, g_off, s_ptr, s_dst,
                     cs.obj_size.astype(np.uint32), cs.int_to_pointer if cs.int_to_pointer >= 0 else 0xFFFFFFFF,
                     addr.astype(np.uint64), copy.astype(np.uint64))


class _DeviceGraph:
    """``HostGraph`` uploaded to the device (same attribute names, cupy arrays)."""

    def __init__(self, hg: HostGraph, cupy):
        self.n, self.n_work, self.i2p = hg.n, hg.n_work, hg.i2p
        for name in ("nodes", "l_ptr", "l_src", "g_ptr", "g_src", "g_off", "s_ptr", "s_dst", "size"):
            setattr(self, name, cupy.asarray(getattr(hg, name)))
        self.rep = cupy.asarray(hg.rep.astype(np.uint32))
        self.n_work_dev = cupy.full(1, self.n_work, cupy.uint64)
        # a dummy element so that empty CSR columns still have a device pointer
        for name in ("l_src", "g_src", "g_off", "s_dst"):
            if getattr(self, name).size == 0:
                setattr(self, name, cupy.zeros(1, cupy.uint32))


_EVENTS: list = []   # CUDA events reused by every solve (creating two per timed call cost more)


class _Timer:
    """CUDA-event timing per kernel name; read once at the end (no syncs in between).

    Events come from the module's ``_EVENTS``, reused from solve to solve (a solve reads its
    marks before it returns)."""

    def __init__(self, cupy, enabled: bool):
        self.cupy, self.enabled, self.marks = cupy, enabled, []
        self.used = 0

    def _event(self):
        if self.used == len(_EVENTS):
            _EVENTS.append(self.cupy.cuda.Event())
        self.used += 1
        return _EVENTS[self.used - 1]

    def run(self, name: str, fn, *args, **kw):
        if not self.enabled:
            return fn(*args, **kw)
        a = self._event()
        a.record()
        out = fn(*args, **kw)
        b = self._event()
        b.record()
        self.marks.append((name, a, b))
        return out

    def per_call(self, name: str) -> list[float]:
        """Milliseconds of every call of one name, in order."""
        return [self.cupy.cuda.get_elapsed_time(a, b) for n, a, b in self.marks if n == name]

    def totals(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for name, a, b in self.marks:
            out[name] = out.get(name, 0.0) + self.cupy.cuda.get_elapsed_time(a, b)
        return out


def _initial_capacity(hg: HostGraph) -> int:
    # a few elements per constraint and per node; the pool grows when this is short
    m = hg.addr_pairs.size + hg.copy_pairs.size + hg.l_src.size + hg.g_src.size + hg.s_dst.size
    return int(max(1 << 20, 8 * m + hg.n_work))


def solve(cs: ConstraintSet, preprocess: bool = True, pointer_equivalence: bool = True,
          ptr_eq_min_changed: int = 256, filter_known: bool = True, set_classes: bool = True,
          device_graph: bool = True, dedupe_pairs: bool | None = None, hcd: bool | str = "auto",
          cycles: bool = False, cycle_period: int = 4, merge_period: int = 1,
          merge_cost_factor: float = 1.5, copy_chunk: int = 1024, copy_filter: bool = False,
          pointee_order: bool = True, capacity: int | None = None, class_table: bool = True,
          overlap: bool = True, timing: bool = False, trace: bool = False,
          max_iterations: int | None = None) -> Solution:
    """Least solution of ``cs`` on the GPU.

    Parameters
    ----------
    cs : ConstraintSet
    preprocess : bool
        Run ``andersen_gpu.preprocess.collapse`` first when that module exists (more offline
        merges; same solution).
    pointer_equivalence : bool
        Union the ΔP of pointer-equivalent sources once per node (hash-sort classes of ΔP,
        computed in rounds where at least ``ptr_eq_min_changed`` nodes changed).
    filter_known : bool
        Leave out of the next deltas what the node already has while applying the rules
        (walks P and c⁻¹ of the node); otherwise the update kernel does it alone. The copy
        kernel over old edges filters only with ``copy_filter`` as well.
    set_classes : bool
        Each round, group the nodes by equal P (with ``class_table`` only the sources of the
        round's new copy edges; else all, by hash-sort; exact compare either way) so that the
        new copy edges made by loads and stores pull each distinct P once per target. On by default:
        on the H200 it cut the rules kernel from 1537 to 59 ms on vim and from 28.4 to 1.6 s on
        linux, exact on ex, gcc, perl, vim and the hypothesis cases (device run 7).
    device_graph : bool
        Build the inverted graph on the device (CuPy sorts, ``_gpu_graph``) instead of with
        NumPy on the host. Required by ``hcd`` and ``cycles``.
    dedupe_pairs : bool, optional
        Drop repeated store pairs after sorting them (one more sync a round); repeats are
        common once pointees are merged online. Default: on once a merge has been made.
    hcd : bool or "auto"
        Merge online by the HCD table (``cs.hcd_ptr``/``cs.hcd_target``): every pointee
        entering ΔP(p) is merged with the entry's target (``_gpu_merge``).
        ``True`` merges every ``merge_period`` rounds. ``"auto"`` (the default) lets the
        pairs wait on the device until the median wall time of the last three rounds reaches
        ``merge_cost_factor`` times what a small merge costs (``_gpu_merge.AUTO_MERGE_MS``),
        and from then on merges every ``merge_period`` rounds once at least
        ``_gpu_merge.AUTO_MIN_PAIRS`` pairs wait: a merge costs a millisecond or more of
        launches and synchronisations, which pays on graphs whose rounds are long (linux:
        3.09 s to 0.79 s, H200, 9a971d2) but not on small ones (ex: 24 to 49 ms merging every round).
        Without an HCD table, or without ``device_graph``, "auto" is off.
    cycles : bool
        Every ``cycle_period`` rounds (when new copy edges came), merge the strongly connected
        components of the copy edges whose ends have equal P (``_gpu_merge``).
    merge_period : int
        With ``hcd``, apply the merges found at most every this many rounds (in one batch);
        the pairs found in between wait on the device.
    merge_cost_factor : float
        See ``hcd="auto"``. 1.5 (merging starts once rounds take 3 ms) since a merge's unions
        run at once: against 3.0, same device call (H200, 2026-11-30), svn 177 -> 150 ms,
        linux 834 -> 771, python 125 -> 117, gimp 504 -> 485, mplayer 700 -> 671; gdb 305 ->
        317, pine 368 -> 380, php 556 -> 569.
    copy_chunk : int
        Copy⁻¹ over old edges: a run of one target's sources is cut into chunks of this many
        sorted pairs (a power of two >= 32), each unioned by its own warp, the chunks then
        into N(x) (``_gpu_copy_edges``); 0 leaves a run to one warp. One target draws
        231,337 of linux's 247,325 active edges in some rounds.
    copy_filter : bool
        ``filter_known`` for the copy kernel too. Off by default: there the filter walked P(x)
        once per 32 sources, and the update kernel drops the known bits in one walk anyway
        (vim 310 -> 249 ms, pine 420 -> 375 ms; the rest within noise; same device call, H200,
        2026-11-30).
    pointee_order : bool
        Renumber the nodes before solving so that the pointees of the large sets are
        numbered together (``andersen_gpu.preprocess.order``): a set's cost in every kernel
        is its number of 960-bit elements. Computed in a second host thread while
        ``preprocess`` runs; the graph is renumbered on the device and the solution mapped
        back (same solution). Needs ``device_graph``.
    capacity : int, optional
        Initial pool capacity in elements (default: from the input's size); the pool grows.
    class_table : bool
        Compute the per-round classes (``pointer_equivalence``, ``set_classes``) with one
        hash-table kernel (``_gpu_sets.ClassTable``: two launches, no sort) instead of the
        hash-sort of ``_gpu_sets.classes`` (about fifteen launches and a sort per use).
    overlap : bool
        Run a round's copy kernel (over the old edges) and its rule kernel at once, on two
        streams: the copy kernel's last warps run long unions alone while most of the device
        idles (linux: 10 % of the warp slots busy on average, ncu), and the rule kernel fills
        that room. Each writes its own next-delta lists (N, NR), which the update folds
        together. Off: the same kernels one after the other.
    timing : bool
        Time every kernel with CUDA events (``stats.kernel_ms``; ``--stats`` turns it on).
        Off by default: the events cost about 0.1 ms a round (ex: 24 against 17 ms).
    trace : bool
        Record per round (``stats.notes["trace"]``) the counts the host read, the longest
        runs of equal keys among the sorted pairs and, with ``timing``, each kernel's
        milliseconds (extra synchronisations: for diagnosis, not for timing).
    max_iterations : int, optional
        Stop with RuntimeError after this many rounds (a guard for experiments).

    Returns
    -------
    Solution
        Exactly the reference backend's solution; ``stats`` holds iterations, per-kernel
        milliseconds, pool bytes, peak device bytes and the copy-back time in ``notes``.

    Raises
    ------
    MemoryError
        The device ran out of memory (the pool could not grow).
    """
    import cupy

    from . import (_gpu_copy_edges, _gpu_insert_pairs, _gpu_merge, _gpu_rules, _gpu_sets, _gpu_sort,
                   _gpu_update)
    from ._gpu_graph import DeviceGraph
    from ._gpu_pool import (CTL_ACTIVE_FILL, CTL_CHANGED, CTL_DELTA_BITS, CTL_NACTIVE, CTL_NPAIRS,
                            CTL_NSUCC, CTL_OVF_RULES, CTL_OVF_UPDATE, CTL_TOP, CTL_WORK_AUX,
                            CTL_WORK_UPDATE, NIL, DevicePool)

    if hcd not in (True, False, "auto"):
        raise ValueError(f"hcd must be True, False or 'auto', not {hcd!r}")
    if copy_chunk and (copy_chunk < 32 or copy_chunk & (copy_chunk - 1)):
        raise ValueError(f"copy_chunk must be 0 or a power of two >= 32, not {copy_chunk}")
    t0 = time.perf_counter()
    notes: dict[str, object] = {}
    original = cs
    # the pointee order needs only the node ids, which collapse keeps: it is computed on the
    # set as given, in a second thread, while collapse runs (both are compiled, nogil)
    order_job = _order_pool().submit(_pointee_order, cs) if pointee_order and device_graph else None
    if preprocess:
        try:
            from andersen_gpu.preprocess import collapse
        except ImportError:
            collapse = None
        if collapse is not None:
            t_pre = time.perf_counter()
            cs, _pstats = collapse(cs)
            notes["preprocess_ms"] = round((time.perf_counter() - t_pre) * 1e3, 3)
    order = order_job.result() if order_job is not None else None
    if order is not None:
        notes.update(pointee_order_ms=round(order.ms, 3), hub_spans=order.hub_spans)
    if hcd == "auto" and (not device_graph or not cs.hcd_ptr.size):
        hcd = False
    if (hcd or cycles) and not device_graph:
        raise ValueError("online merging (hcd, cycles) needs device_graph=True")
    mempool = cupy.get_default_memory_pool()
    peak = [mempool.used_bytes()]
    base_used = mempool.used_bytes()

    def note_peak():
        peak[0] = max(peak[0], mempool.used_bytes())

    t_build = time.perf_counter()
    if device_graph:
        g = DeviceGraph(cs, order.perm if order is not None else None)
        addr_init, copy_init = g.initial_pairs()
        m = addr_init.size + copy_init.size + cs.load_dst.size + cs.gep_dst.size + cs.store_dst.size
        cap0 = int(max(1 << 20, 8 * m + g.n_work))
    else:
        hg = build_graph(cs)
        g = _DeviceGraph(hg, cupy)
        addr_init, copy_init = (cupy.sort(cupy.asarray(p)) for p in (hg.addr_pairs, hg.copy_pairs))
        cap0 = _initial_capacity(hg)
    t_graph = time.perf_counter()
    n = g.n
    pool = DevicePool(capacity or cap0)
    heads = tuple(cupy.full(max(n, 1), NIL, cupy.uint32) for _ in range(6))
    P, D, N, C, DC, NC = heads
    succ = cupy.full(max(n, 1), NIL, cupy.uint32)   # succ(y) = {x : y →c x}, the old copy edges
    NR = cupy.full(max(n, 1), NIL, cupy.uint32)     # the rule kernel's part of the next deltas
    cls = cupy.arange(max(n, 1), dtype=cupy.uint32)
    pcls = cupy.arange(max(n, 1), dtype=cupy.uint32) if set_classes or cycles else None
    timer = _Timer(cupy, timing)
    ctl = pool.ctl
    table = _gpu_sets.ClassTable() if class_table else None
    # member[y] == round: y is a source of a new copy edge this round (its set class is read)
    member = cupy.full(max(n, 1), NIL, cupy.uint32) if table is not None and set_classes else None

    lanes = _Lanes(cupy, overlap)

    def read_ctl() -> np.ndarray:
        note_peak()
        return ctl.get()

    # initial lists: N(x) = {y : x = &y}, NC(x) = {rep y : x = y}
    for init, dst in ((addr_init, N), (copy_init, NC)):
        if init.size:
            while True:
                timer.run("insert_pairs", _gpu_insert_pairs.insert_pairs, init, init.size, dst, pool,
                          CTL_OVF_RULES)
                c = read_ctl()
                if not c[CTL_OVF_RULES]:
                    break
                pool.grow(int(c[CTL_TOP]))
                ctl[CTL_OVF_RULES] = 0

    merger = _gpu_merge.OnlineMerger(g, heads, succ, pool, bool(hcd), cycles, cycle_period, timer,
                                     pcls, merge_period,
                                     merge_cost_factor if hcd == "auto" else None) if (hcd or cycles) else None

    def update(resume: bool) -> np.ndarray:
        timer.run("update", _gpu_update.update_deltas, g, heads, succ, pool, NR, resume)
        if merger is not None:
            timer.run("merge_find", merger.launch_hcd)
        c = read_ctl()
        while c[CTL_OVF_UPDATE]:
            pool.grow(int(c[CTL_TOP]))
            ctl[CTL_OVF_UPDATE] = 0
            ctl[CTL_WORK_UPDATE] = 0
            timer.run("update", _gpu_update.update_deltas, g, heads, succ, pool, NR, True)
            if merger is not None:
                timer.run("merge_find", merger.launch_hcd)
            c = read_ctl()
        return c

    def room(buf: cupy.ndarray, need: int) -> cupy.ndarray:
        return buf if need <= buf.size else cupy.empty(max(need, 2 * buf.size), cupy.uint64)

    c = update(False)
    del addr_init, copy_init
    new_edges = 0
    # three distinct buffers: one array bound to all three names made the store pairs and
    # the successor pairs of a round overwrite each other while no buffer had grown yet
    store_pairs, succ_pairs, active_pairs = (cupy.empty(1, cupy.uint64) for _ in range(3))
    iterations, total_pairs, total_active, ptr_eq_rounds = 0, 0, 0, 0
    delta_bits = int(c[CTL_DELTA_BITS])
    rounds: list[dict] = []
    t_round = time.perf_counter()   # start of the current round (its wall time paces "auto" merges)
    while c[CTL_CHANGED]:
        if max_iterations is not None and iterations >= max_iterations:
            raise RuntimeError(f"gpu solver did not converge in {max_iterations} rounds")
        iterations += 1
        if merger is not None and merger.step(iterations, new_edges, c,
                                              (time.perf_counter() - t_round) * 1e3):
            c = read_ctl()
        t_round = time.perf_counter()
        new_edges = int(c[CTL_NSUCC])
        npairs, nsucc, nactive = int(c[CTL_NPAIRS]), int(c[CTL_NSUCC]), int(c[CTL_NACTIVE])
        total_pairs += npairs
        total_active += nactive
        store_pairs, succ_pairs = room(store_pairs, npairs), room(succ_pairs, nsucc)
        active_pairs = room(active_pairs, nactive)
        use_cls = pointer_equivalence and int(c[CTL_CHANGED]) >= ptr_eq_min_changed
        if trace:
            rounds.append(dict(changed=int(c[CTL_CHANGED]), nactive=nactive, npairs=npairs,
                               nsucc=nsucc, ptr_eq=bool(use_cls), mark=len(timer.marks)))
        if use_cls:
            ptr_eq_rounds += 1
            if table is not None:
                # cls[y]: a node whose ΔP equals ΔP(y)
                timer.run("ptr_eq", table, g.nodes, D, pool.words, cls)
            else:
                cl = timer.run("ptr_eq", _gpu_sets.classes, g.nodes, D, pool.words)
                # cls[y]: the first node (in hash order) whose ΔP equals ΔP(y)
                leaders = timer.run("ptr_eq", _gpu_sets.class_leaders, g.nodes, cl, g.n_work)
                cls[g.nodes[cl.order]] = leaders[cl.seg]
        if set_classes and nsucc and not (merger is not None and merger.pcls_fresh):
            if table is not None:
                # pcls[y]: a node whose P equals P(y), for the sources y of new copy edges
                timer.run("set_classes", table.mark, g.nodes, DC, g.rep, pool.words, member, iterations)
                timer.run("set_classes", table, g.nodes, P, pool.words, pcls, member, iterations)
            else:
                # pcls[y]: the first node (in hash order) whose P equals P(y)
                pc = timer.run("set_classes", _gpu_sets.classes, g.nodes, P, pool.words)
                pleaders = timer.run("set_classes", _gpu_sets.class_leaders, g.nodes, pc, g.n_work)
                pcls[g.nodes[pc.order]] = pleaders[pc.seg]
        while True:
            pool.clear_counts()
            lanes.fork()
            with lanes.copy:
                if nactive:
                    # active_pairs: (x, class of y) for y →c x with ΔP(y) ≠ ∅, sorted by x
                    # (none when the update counted none: succ has not changed since)
                    timer.run("copy_edges", _gpu_copy_edges.emit_active_edges, g, D, succ, cls, use_cls,
                              active_pairs, nactive, pool)
                    lanes.emitted.record()
                    view = active_pairs[:nactive]
                    timer.run("sort", _gpu_sort.sort_keys, view)
                    timer.run("copy_edges", _gpu_copy_edges.apply_copy_pairs, view, nactive, P, D, N,
                              filter_known and copy_filter, pool, copy_chunk)
                    if trace:
                        rounds[-1]["active_run"] = _longest_run(view)
                else:
                    lanes.emitted.record()
            with lanes.rules:
                timer.run("rules", _gpu_rules.apply_rules, g, heads, store_pairs[:max(npairs, 1)],
                          succ_pairs[:max(nsucc, 1)], pool, filter_known, pcls if set_classes else None, NR)
                _insert_pairs_of_round(store_pairs, npairs, succ_pairs, nsucc, NC, succ, pool, timer, lanes,
                                       dedupe_pairs if dedupe_pairs is not None else
                                       merger is not None and merger.merge_rounds > 0,
                                       rounds[-1] if trace else None)
            lanes.join()
            c = update(False)
            if not c[CTL_OVF_RULES]:
                break
            pool.grow(int(c[CTL_TOP]))
            ctl[CTL_OVF_RULES] = 0
            # succ may have gained edges before the pool ran out: count the active edges again
            ctl[CTL_ACTIVE_FILL] = 0
            ctl[CTL_WORK_AUX] = 0
            _gpu_copy_edges.emit_active_edges(g, D, succ, cls, use_cls, active_pairs, 0, pool)
            nactive = int(ctl[CTL_ACTIVE_FILL].get())
            active_pairs = room(active_pairs, nactive)
        delta_bits += int(c[CTL_DELTA_BITS])
    pool_used = int(min(int(c[CTL_TOP]), pool.cap))
    del store_pairs, succ_pairs, active_pairs

    # distinct final sets, grouped on the device
    fin = timer.run("export", _gpu_sets.classes, g.nodes, P, pool.words)
    n_sets = int(fin.seg[-1]) + 1 if g.n_work else 0
    class_of = cupy.zeros(max(n, 1), cupy.int32)
    class_of[g.nodes[fin.order]] = fin.seg.astype(cupy.int32)
    node_set = class_of[g.rep] if n else cupy.zeros(0, cupy.int32)
    leaders = _gpu_sets.class_leaders(g.nodes, fin, n_sets)
    slot = cupy.where(fin.starts != 0, fin.seg, n_sets)
    counts = cupy.zeros(n_sets + 1, cupy.int64)
    counts[slot] = fin.bits[fin.order].astype(cupy.int64)
    indptr = cupy.zeros(n_sets + 1, cupy.int64)
    cupy.cumsum(counts[:n_sets], out=indptr[1:])
    total = int(indptr[-1]) if n_sets else 0
    indices = timer.run("export", _gpu_sets.expand, leaders, P, pool.words, indptr, total)
    if device_graph and g.perm is not None:
        # back to the constraint set's ids: node v's set is that of its new id perm[v]
        node_set = node_set[g.perm]
        indices = timer.run("export", _original_ids, indices, indptr, g.inverse)
    final_edges = int(counts[:n_sets][node_set].sum()) if n else 0
    cupy.cuda.Device().synchronize()
    note_peak()
    t_solved = time.perf_counter()

    sol = Solution(node_set.get(), indptr.get(), indices.get(), names=original.names)
    t_back = time.perf_counter()
    dev_name = _device_name()
    notes.update(graph_build_ms=round((t_graph - t_build) * 1e3, 3),
                 copy_back_ms=round((t_back - t_solved) * 1e3, 3),
                 final_edges=final_edges, distinct_sets=n_sets, pool_elements_used=pool_used,
                 pool_growths=pool.growths, store_pairs=total_pairs, active_copy_edges=total_active,
                 delta_bits=delta_bits, ptr_eq_rounds=ptr_eq_rounds, representatives=g.n_work)
    if merger is not None:
        notes.update(merger.notes())
    if trace:
        ends = [r["mark"] for r in rounds[1:]] + [len(timer.marks)]
        for r, end in zip(rounds, ends):
            ms: dict[str, float] = {}
            for name, a, b in timer.marks[r.pop("mark"):end]:
                ms[name] = round(ms.get(name, 0.0) + cupy.cuda.get_elapsed_time(a, b), 3)
            r.update(ms)
        notes["trace"] = rounds
    if timing:
        for name in ("rules", "ptr_eq", "set_classes"):
            notes[f"{name}_ms_per_call"] = [round(t, 2) for t in timer.per_call(name)]
    sol.stats = SolveStats(backend="gpu", device=dev_name, iterations=iterations,
                           solve_ms=(t_solved - t0) * 1e3, kernel_ms=timer.totals(), pool_bytes=pool.nbytes,
                           peak_device_bytes=peak[0] - base_used, notes=notes)
    return sol


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


def _original_ids(indices, indptr, inverse):
    """int32[total]: ``inverse[indices]`` with every set (``indptr`` rows) sorted again (the
    renumbering moves whole objects, so a set's order changes)."""
    import cupy
    total = int(indices.size)
    if total == 0:
        return indices
    rows = cupy.searchsorted(indptr[1:], cupy.arange(total, dtype=cupy.int64), side="right")
    keys = (rows.astype(cupy.uint64) << np.uint64(32)) | inverse[indices].astype(cupy.uint64)
    keys.sort()
    return (keys & np.uint64(0xFFFFFFFF)).astype(cupy.int32)


def _longest_run(view) -> list[int]:
    """[longest run of one key, distinct keys] in sorted uint64 pairs (key << 32 | value)."""
    import cupy
    _, counts = cupy.unique(view >> np.uint64(32), return_counts=True)
    return [int(counts.max()), int(counts.size)]


class _Lanes:
    """The streams of a round's rule work: ``copy`` (the active copy edges: emission, sort,
    copy kernel) and ``rules`` (the rule kernel, then the sorts and inserts of its pairs), both
    ordered after the work before ``fork()`` and before the work after ``join()`` on the
    solve's stream. ``emitted`` is recorded on ``copy`` once the active edges are emitted:
    the successor lists they read must not change before. Without overlap both are the
    solve's stream, and the events order nothing new."""

    def __init__(self, cupy, overlap: bool):
        self.main = cupy.cuda.get_current_stream()
        if overlap:
            self.copy = cupy.cuda.Stream(non_blocking=True)
            self.rules = cupy.cuda.Stream(non_blocking=True)
        else:
            self.copy = self.rules = self.main
        self._forked, self.emitted, self._copied, self._ruled = (
            cupy.cuda.Event(disable_timing=True) for _ in range(4))

    def fork(self) -> None:
        self._forked.record(self.main)
        self.copy.wait_event(self._forked)
        self.rules.wait_event(self._forked)

    def join(self) -> None:
        self._copied.record(self.copy)
        self._ruled.record(self.rules)
        self.main.wait_event(self._copied)
        self.main.wait_event(self._ruled)


def _insert_pairs_of_round(store_pairs, npairs: int, succ_pairs, nsucc: int, NC, succ, pool, timer,
                           lanes: _Lanes, dedupe: bool, trace_round: dict | None) -> None:
    """Sort this round's store pairs (x, z) and successor pairs (y, x) and insert them into NC
    and succ, on the current stream (``lanes.rules``); the successor pairs only once the
    active edges were emitted from succ. With ``dedupe``, repeated store pairs are dropped
    first (one synchronisation)."""
    from . import _gpu_insert_pairs, _gpu_sort
    from ._gpu_pool import CTL_OVF_RULES

    for buf, count, dst in ((store_pairs, npairs, NC), (succ_pairs, nsucc, succ)):
        if not count:
            continue
        view = buf[:count]
        timer.run("sort", _gpu_sort.sort_keys, view)
        if dst is NC and dedupe:
            # many pointees of one class give one key: drop repeats before the warp of that
            # key walks them one by one
            view = timer.run("sort", _unique_sorted, view)
            count = int(view.size)
        if dst is succ:
            lanes.rules.wait_event(lanes.emitted)
        timer.run("insert_store" if dst is NC else "insert_succ",
                  _gpu_insert_pairs.insert_pairs, view, count, dst, pool, CTL_OVF_RULES)
        if trace_round is not None:
            trace_round["store_run" if dst is NC else "succ_run"] = _longest_run(view)


def _unique_sorted(view):
    """The distinct values of a sorted cupy array (one synchronisation for the size)."""
    import cupy
    keep = cupy.empty(view.size, cupy.bool_)
    keep[:1] = True
    cupy.not_equal(view[1:], view[:-1], out=keep[1:])
    return view[keep]


def _device_name() -> str:
    """The current device's name."""
    from ._gpu_pool import device_properties
    name = device_properties()["name"]
    return name.decode() if isinstance(name, bytes) else str(name)
