"""Online cycle collapse between rounds: the strongly connected components of the copy edges
that the constraints and the current sets make, merged into one representative each.

The offline collapse (:mod:`andersen_gpu.preprocess`) sees only the copy constraints; loads and
stores add copy edges as the sets grow, and a set that travels round such a cycle is a new set
at every node it reaches, round after round. A pass builds, on the device, the graph

* ``rep y -> rep x`` for every copy ``x = y``;
* for a load ``x = *y``: ``rep z -> L(s) -> rep x`` for z in s = P(rep y), one auxiliary node
  L(s) per distinct set s of a load pointer (so the edges number Σ|s| + loads, not Σ|P(y)|);
* for a store ``*x = y``: ``rep y -> S(s) -> rep z`` for z in s = P(rep x), one S(s) per distinct
  set of a store pointer;

with z ≠ i2p (the rules skip it) and the int-to-pointer node's representative left out. Every
edge is an inclusion P(head) ⊇ P(tail) that holds at the least solution (P only grows), so the
real nodes of a component have equal final sets. Nodes without an in- or out-edge are trimmed on
the device; the components are found on the host (SciPy's csgraph).

A merge makes the smallest id R of a component the representative of the others: P(R) = the
union of the members' sets, ΔP(R) = what some member's rules have not seen (the union of
P(R) minus Pold over the component), Pold(R) = the rest (:func:`_merge_state`); the members'
sets are cleared, the lists rebuilt (:meth:`.graph.DeviceGraph.relink`), and the next round's changed
list, counts and changed-pointee bitmaps made again. The solution is unchanged; only fewer nodes
carry it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cupy
import numpy as np

from .device import BLOCK, CTL_NCHG, CTL_NSETS, CTL_OVF, CTL_TOP, blocks_for, fill_bytes, module
from . import rounds
from .rounds import Counts, Round, _warp_groups
from .sort import sort_keys

#: The first pass runs after this round (the sets must have grown for loads and stores to
#: make edges).
FIRST_ROUND = 3
#: A pass runs once the rounds since the last one took MIN_ROUNDS_MS milliseconds and RATIO
#: times the last pass's milliseconds (so passes take at most about 1/(1+RATIO) of the solve);
#: the ratio doubles after a pass that merged fewer than MIN_GAIN of the representatives, and
#: is RATIO again after one that merged more. The solution does not depend on when passes run.
#: Solves of a second or so never pass (the paper inputs: there the passes made the rounds
#: slower, bench/results/h200-b70449a/FINDINGS.md); the corpus programs' do after 1.5 s.
MIN_ROUNDS_MS = 1500.0
RATIO = 2.0
MIN_GAIN = 0.001
#: Trimming stops when a sweep removes fewer than this fraction of the edges.
TRIM_MIN_DROP = 0.05


@dataclass
class CyclePolicy:
    """When to run a pass: by the wall milliseconds of the rounds since the last one.

    ``first_round`` and ``min_rounds_ms`` are :data:`FIRST_ROUND` and :data:`MIN_ROUNDS_MS`
    unless given (the warm-up, :func:`andersen_gpu.warmup.warm_gpu_kernels`, asks for passes from
    the first round on, as often as the ratio allows)."""

    first_round: int = field(default_factory=lambda: FIRST_ROUND)
    min_rounds_ms: float = field(default_factory=lambda: MIN_ROUNDS_MS)
    since_ms: float = 0.0    # rounds' milliseconds since the last pass
    last_ms: float = 0.0     # the last pass's milliseconds
    ratio: float = field(default_factory=lambda: RATIO)
    passes: int = 0
    skipped: int = 0         # passes due but put off: their graph would cost too much (:meth:`affordable`)
    ns_per_edge: float | None = None   # the last pass's graph, trim and SCC time per graph edge
    merged: int = 0          # nodes merged into another, all passes
    ms: float = 0.0          # wall milliseconds of all passes
    log: list = field(default_factory=list)   # one dict a pass (:func:`collapse`'s, round and ms)

    def due(self, iteration: int, round_ms: float) -> bool:
        """Count a round's milliseconds; True when a pass should follow round ``iteration``."""
        self.since_ms += round_ms
        return iteration >= self.first_round and self.since_ms >= max(self.min_rounds_ms, self.ratio * self.last_ms)

    def affordable(self, edges: int) -> bool:
        """Whether a due pass whose graph would have ``edges`` edges should run now: its graph,
        trim and SCC, predicted at the last pass's cost per edge, must also fit ``ratio`` times into
        the rounds since then. A pass's graph grows with the sets (git with walk geps: 44 M, then
        502 M and 938 M edges), so the last pass's time alone underestimates the next. True before
        the first pass."""
        if self.ns_per_edge is None:
            return True
        ok = self.since_ms >= self.ratio * self.ns_per_edge * edges * 1e-6
        self.skipped += not ok
        return ok

    def ran(self, entry: dict, representatives: int) -> None:
        """Record a pass (``entry``: its figures, with ``merged``, ``edges``, the stage ms and ``ms``)."""
        merged, ms = int(entry["merged"]), float(entry["ms"])
        graph_ms = sum(float(entry.get(k, 0.0)) for k in ("graph_ms", "trim_ms", "scc_ms"))
        if entry.get("edges"):
            self.ns_per_edge = graph_ms * 1e6 / int(entry["edges"])
        self.since_ms, self.last_ms = 0.0, ms
        self.ratio = RATIO if merged >= MIN_GAIN * max(representatives, 1) else 2 * self.ratio
        self.passes += 1
        self.merged += merged
        self.ms += ms
        self.log.append(entry)


def _set_members(store, sids: cupy.ndarray, i2p: int) -> tuple[cupy.ndarray, cupy.ndarray, cupy.ndarray]:
    """The distinct non-empty sets among ``sids``: (uniq uint32[k] ascending, row int64[t], z
    uint32[t]) with z ≠ i2p the members of set uniq[row]."""
    uniq = cupy.unique(sids)
    uniq = uniq[uniq != 0]
    if not uniq.size:
        empty = cupy.zeros(0, cupy.uint32)
        return empty, cupy.zeros(0, cupy.int64), empty
    _, indptr, z = store.export(uniq)
    rows = cupy.searchsorted(indptr[1:], cupy.arange(int(z.size), dtype=cupy.int64), side="right")
    keep = z.astype(cupy.uint32) != np.uint32(i2p)
    return uniq, rows[keep], z[keep].astype(cupy.uint32)


def _graph(g, P: cupy.ndarray, store) -> tuple[cupy.ndarray, cupy.ndarray, int]:
    """The edges (src, dst uint32[e]) over real nodes [0, n) and auxiliary nodes [n, ...)."""
    n, rep, i2p = g.n, g.rep, g.i2p
    srcs, dsts = [], []
    cs, cd = g.columns("copy")
    if cs.size:
        srcs.append(rep[cs])
        dsts.append(rep[cd])
    base = n
    for kind in ("load", "store"):
        ptr, other = g.columns(kind)
        if not ptr.size:
            continue
        sp = P[rep[ptr]]
        uniq, rows, z = _set_members(store, sp, i2p)
        if not uniq.size:
            continue
        has = sp != 0
        aux = (base + cupy.searchsorted(uniq, sp[has])).astype(cupy.uint32)
        val = rep[other[has]]
        zaux = (base + rows).astype(cupy.uint32)
        zr = rep[z]
        if kind == "load":     # z -> L(s) -> x
            srcs += [zr, aux]
            dsts += [zaux, val]
        else:                  # y -> S(s) -> z
            srcs += [val, zaux]
            dsts += [aux, zr]
        base += int(uniq.size)
    if not srcs:
        empty = cupy.zeros(0, cupy.uint32)
        return empty, empty, base
    src, dst = cupy.concatenate(srcs), cupy.concatenate(dsts)
    keep = src != dst
    if i2p != 0xFFFFFFFF:
        r = rep[i2p]
        keep &= (src != r) & (dst != r)
    return src[keep], dst[keep], base


def edges_estimate(g, P: cupy.ndarray, store) -> int:
    """The number of edges :func:`_graph` would make, from the sets' sizes (no member is read):
    the copies, and per load or store, one edge each and the members of its pointers' distinct
    sets (an upper bound: the int-to-pointer object and self-loops are not taken off)."""
    rep = g.rep
    edges = int(g.columns("copy")[0].size)
    for kind in ("load", "store"):
        ptr, _ = g.columns(kind)
        if ptr.size:
            uniq = cupy.unique(P[rep[ptr]])
            edges += int(store.nbits[uniq].astype(cupy.int64).sum()) + int(ptr.size)
    return edges


def _trim(src: cupy.ndarray, dst: cupy.ndarray, nv: int) -> tuple[cupy.ndarray, cupy.ndarray]:
    """Drop the edges of nodes with no in- or no out-edge (they are in no cycle), sweep by sweep."""
    while src.size:
        # flags of the distinct ends (a sort: one write each), not degrees: only "has an in-edge"
        # and "has an out-edge" are read, and a pointee in many distinct sets is the end of
        # millions of edges (this did not cure sqlite3's slow trim with walk geps, see
        # bench/results/h200-28893b8/FINDINGS.md)
        has_in = cupy.zeros(nv, cupy.bool_)
        has_out = cupy.zeros(nv, cupy.bool_)
        has_in[cupy.unique(dst)] = True
        has_out[cupy.unique(src)] = True
        live = has_in & has_out
        keep = live[src] & live[dst]
        kept = int(keep.sum())
        dropped = int(src.size) - kept
        src, dst = src[keep], dst[keep]
        if dropped <= TRIM_MIN_DROP * (kept + dropped):
            break
    return src, dst


def _components(src: cupy.ndarray, dst: cupy.ndarray, n: int) -> tuple[cupy.ndarray, cupy.ndarray]:
    """(members, targets uint32[m]): every real node of a component with two real nodes or more,
    but its smallest, and that smallest id."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    ids = cupy.unique(cupy.concatenate([src, dst]))
    s = cupy.searchsorted(ids, src).astype(cupy.uint64)
    d = cupy.searchsorted(ids, dst).astype(cupy.uint64)
    keys = (s << np.uint64(32)) | d
    sort_keys(keys)
    if keys.size > 1:   # repeated edges (members with one representative) cost the host SCC for nothing
        keys = keys[cupy.concatenate([cupy.ones(1, cupy.bool_), keys[1:] != keys[:-1]])]
    k = int(ids.size)
    rows = (keys >> np.uint64(32)).astype(cupy.int64)
    indptr = cupy.searchsorted(rows, cupy.arange(k + 1, dtype=cupy.int64)).astype(cupy.int64)
    cols = (keys & np.uint64(0xFFFFFFFF)).astype(cupy.int32)
    m = int(cols.size)
    graph = csr_matrix((np.ones(m, np.int8), cols.get(), indptr.get()), shape=(k, k))
    _, labels = connected_components(graph, directed=True, connection="strong")
    lab = cupy.asarray(labels.astype(np.uint32))
    real = ids < n
    rid, rl = ids[real], lab[real]
    if not rid.size:
        empty = cupy.zeros(0, cupy.uint32)
        return empty, empty
    key = (rl.astype(cupy.uint64) << np.uint64(32)) | rid.astype(cupy.uint64)
    sort_keys(key)
    ls = key >> np.uint64(32)
    node = (key & np.uint64(0xFFFFFFFF)).astype(cupy.uint32)
    first = cupy.ones(int(key.size), cupy.bool_)
    first[1:] = ls[1:] != ls[:-1]
    group = cupy.cumsum(first) - 1
    leader = node[first][group]
    size = cupy.bincount(group)[group]
    merge = (size >= 2) & (node != leader)
    return node[merge], leader[merge]


def _union_into(rnd: Round, targets: cupy.ndarray, sids: cupy.ndarray,
                base: cupy.ndarray) -> tuple[cupy.ndarray, cupy.ndarray, cupy.ndarray]:
    """For every target t of the pairs (targets[i], sids[i]) (uint32[k] each; sid 0 skipped):
    N(t) = ∪ of its sids, through union_update against ``base`` (uint32[n], a set id per node).
    Returns (t, base[t] ∪ N(t), N(t) \\ base[t]) for the targets where the difference is not
    empty (uint32 arrays, copies). The kernel runs again with more room when the pool or the
    set table ran out."""
    pool, store = rnd.pool, rnd.store
    has = sids != 0
    pairs = (targets[has].astype(cupy.uint64) << np.uint64(32)) | sids[has].astype(cupy.uint64)
    if not pairs.size:
        empty = cupy.zeros(0, cupy.uint32)
        return empty, empty, empty
    sort_keys(pairs)
    total = int(pairs.size)
    scratch = rnd.chg_next
    while True:
        pool.clear_round()
        module("runs.cu")("union_update")(_warp_groups(total, rounds.UNION_PER_WARP), (BLOCK,), (
            pairs, np.uint64(total), np.uint32(rounds.UNION_PER_WARP), np.uint32(0), base, store.desc, store.update.desc, rnd.Pn, rnd.Dn, scratch,
            *pool.args()))
        c = pool.ctl.get()
        if not c[CTL_OVF]:
            break
        store.make_room(c)
    grown = scratch[:int(c[CTL_NCHG])].copy()
    return grown, rnd.Pn[grown], rnd.Dn[grown]


def _merge_state(rnd: Round, members: cupy.ndarray, targets: cupy.ndarray, lead: cupy.ndarray) -> None:
    """The state of every leader R after the merge of its members (``lead``: uint32[n], each
    node's leader, itself for the others):

    * P(R) = ∪ P(v) over the component C (R and its members);
    * ΔP(R) = ∪ over v in C of P(R) \\ Pold(v): every rule of a member has seen Pold(v) and
      must see the rest (a load through a member, now through R, reads ΔP(R) too), no more;
    * Pold(R) = P(R) \\ ΔP(R), so that P = Pold ∪ ΔP stays a disjoint union.

    The members' own sets are left for the caller to clear."""
    n = rnd.g.n
    grown, p_new, _ = _union_into(rnd, targets, rnd.P[members], rnd.P)
    rnd.P[grown] = p_new
    leaders = cupy.unique(targets)
    comp = cupy.concatenate([members, leaders])
    seen, _, unseen = _union_into(rnd, comp, rnd.P[lead[comp]], rnd.Pold)
    grown, d_new, _ = _union_into(rnd, lead[seen], unseen, cupy.zeros(n, cupy.uint32))
    rnd.D[leaders] = 0
    rnd.D[grown] = d_new
    grown, _, old = _union_into(rnd, leaders, rnd.P[leaders], rnd.D)
    rnd.Pold[leaders] = 0
    rnd.Pold[grown] = old


def collapse(rnd: Round, counts: Counts) -> dict:
    """One pass between rounds (after :meth:`Round.advance`): find the cycles, merge them, and
    make ``rnd`` and ``counts`` the state of the merged graph. Returns the pass's figures:
    ``edges`` of its graph, those ``kept`` by trimming, nodes ``merged`` into another, and the
    wall milliseconds of its stages (``graph_ms``, ``trim_ms``, ``scc_ms``, ``merge_ms``; each
    ends with a synchronisation)."""
    g, store = rnd.g, rnd.store
    n = g.n
    out = dict(edges=0, kept=0, merged=0)
    clock = [time.perf_counter()]

    def lap(name):
        cupy.cuda.get_current_stream().synchronize()
        now = time.perf_counter()
        out[name] = round((now - clock[0]) * 1e3, 3)
        clock[0] = now

    src, dst, nv = _graph(g, rnd.P, store)
    out["edges"] = int(src.size)
    lap("graph_ms")
    src, dst = _trim(src, dst, nv)
    out["kept"] = int(src.size)
    lap("trim_ms")
    if not src.size:
        return out
    members, targets = _components(src, dst, n)
    lap("scc_ms")
    if not members.size:
        return out
    out["merged"] = int(members.size)
    lead = cupy.arange(n, dtype=cupy.uint32)
    lead[members] = targets
    _merge_state(rnd, members, targets, lead)
    for arr in (rnd.P, rnd.D, rnd.Pold):
        arr[members] = 0
    g.relink(lead[g.rep])
    # the next round: every representative with a delta pushes it
    nodes = g.nodes
    chg = nodes[rnd.D[nodes] != 0]
    rnd.chg[:int(chg.size)] = chg
    dc, dg, dl = g.degree(g.c_ptr), g.degree(g.g_ptr), g.degree(g.l_ptr)
    ds, dv = g.degree(g.s_ptr), g.degree(g.v_ptr)
    counts.nchg = int(chg.size)
    counts.next_c = int((dc[chg].astype(cupy.uint64) + g.gep_pairs * dg[chg].astype(cupy.uint64) + dl[chg]).sum())
    counts.next_g = int((ds[chg].astype(cupy.uint64) + dv[chg]).sum())
    counts.load_live = int(cupy.where(rnd.P[:n] != 0, dl, 0).astype(cupy.uint64).sum())
    c = rnd.pool.ctl.get()
    counts.top, counts.nsets = int(c[CTL_TOP]), int(c[CTL_NSETS])
    fill_bytes(rnd.cb, 0)
    module("commit.cu")("mark_changed")(blocks_for(rnd.n_ch_words * 32), (BLOCK,), (
        np.uint32(n), np.uint64(rnd.n_ch_words), g.rep, rnd.D, rnd.ch, rnd.cb))
    lap("merge_ms")
    return out


def run_pass(rnd: Round, counts: Counts, policy: CyclePolicy, iteration: int) -> dict | None:
    """:func:`collapse` after round ``iteration`` (a pass ``policy`` found due), timed into
    ``policy``; returns the pass's figures (:func:`collapse`'s, with ``round`` and ``ms``), or
    None when the policy put it off (:meth:`CyclePolicy.affordable` of :func:`edges_estimate`)."""
    if policy.ns_per_edge is not None and not policy.affordable(edges_estimate(rnd.g, rnd.P, rnd.store)):
        return None
    representatives = rnd.g.n_work
    t0 = time.perf_counter()
    entry = collapse(rnd, counts)
    entry.update(round=iteration, ms=round((time.perf_counter() - t0) * 1e3, 3))
    policy.ran(entry, representatives)
    return entry
