"""Online merging between rounds: the HCD table and cycle detection (kernels_cu/merge.cu).

Contract of :meth:`OnlineMerger.step`, called between rounds (after the update kernel, before
the next round's kernels; the N and NC lists are then empty):

* it finds pairs of representatives whose final points-to sets are equal -- HCD pairs from
  the ΔP of HCD pointers, and the strongly connected components of the copy edges
  y →c x whose ends have equal P (found every ``cycle_period`` rounds when new edges came);
* groups them into classes on the device (a lock-free union-find, ``uf_union``), the
  smallest id of a class becoming its representative, and lists each class as pairs
  (r << 32 | m), counted on the device (``class_pairs``); HCD pairs may wait some rounds
  (``merge_period``) and are then applied in one batch;
* unions P of the class into its representative r and sets ΔP(r) to what some rule of a
  member has not seen yet: ⋃ ΔP(m) ∪ ⋃ (P(r) \\ P(m)) over the members m, the second term only
  for members whose ΔP a rule reads (member_diff); folds c⁻¹, Δc⁻¹ and succ into r; every
  union in two levels (merge_parts, merge_parts_into; the independent unions in one launch);
  empties ΔP, Δc⁻¹ of merged nodes; remaps ``g.rep`` (staying a fixpoint), rebuilds the graph
  lists under the new table and recounts the control block.

A batch synchronises once, after its unions (overflow and counts in one read of the control
block): its cost is mostly host time, the launches and allocations of its steps (H200,
598041f: about 3 ms a batch on linux, gimp, php and gdb, of which under 1 ms ran on the
device), so the steps are few kernels over buffers the merger keeps.

The HCD kernel runs right after every update (:meth:`OnlineMerger.launch_hcd`), so that its
pair count comes back with the round's control block and a round without HCD pairs costs no
extra synchronisation.

Exactness: merging nodes whose least-solution sets are equal leaves the least solution of the
rest unchanged, and every rule instance of a member sees, in the next round, every fact of
the merged set it had not seen (semi-naive rounds stay complete).
"""

from __future__ import annotations

import cupy
import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from . import _gpu_sets, _gpu_sort
from ._gpu_pool import BLOCK, CTL_OVF_RULES, CTL_TOP, DevicePool, fill_bytes, module, persistent_grid

CTL_MERGE_FILL = 14  # must match kernels_cu/merge.cu
CTL_MERGE_OLDS = 15
INITIAL_PAIR_BUFFER = 1 << 16  # merge pairs the buffer holds at first (it grows)
# What a small merge costs in launches and synchronisations (H200: ex, perl, gcc merged every
# round at 2-2.3 ms a merge at 869dac4, 1.5-1.8 ms once the graph rebuild went into graph.cu;
# the threshold was kept at what was measured with it, 2026-11-30); ``cost_factor`` multiplies it.
AUTO_MERGE_MS = 2.0
# Paced merging ("auto") switches on when the median of the last AUTO_ROUNDS rounds reaches
# the threshold (one slow round is noise: svn's 3-4 ms rounds crossed 6 ms once, and merging
# from there on took it from 164 to 368 ms at 869dac4's merge costs, H200), and then merges
# only once at least AUTO_MIN_PAIRS HCD pairs wait (vim found 665 in all; its 15 merges cost
# 50 ms).
AUTO_ROUNDS = 3
AUTO_MIN_PAIRS = 1024
_LOW = np.uint64(0xFFFFFFFF)


def _module():
    return module("merge.cu")


def _split(pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (pairs >> np.uint64(32)).astype(np.int64), (pairs & _LOW).astype(np.int64)


def strong_pairs(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge pairs (member, leader) for the non-trivial SCCs of the directed edges
    ``edges`` (uint64 ``src << 32 | dst``)."""
    a, b = _split(edges)
    ids, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    k, m = ids.size, a.size
    graph = coo_matrix((np.ones(m, np.int8), (inv[:m], inv[m:])), shape=(k, k)).tocsr()
    n_comp, label = connected_components(graph, directed=True, connection="strong")
    big = np.bincount(label, minlength=n_comp)[label] > 1
    _, first = np.unique(label, return_index=True)
    leader = ids[first][label]
    keep = big & (leader != ids)
    return ids[keep], leader[keep]


class OnlineMerger:
    """Finds and applies online merges; see the module docstring.

    Parameters
    ----------
    g : DeviceGraph          its rep, nodes and lists are replaced on a merge
    heads : tuple            P, D, N, C, DC, NC (uint32[n] cupy)
    succ : cupy uint32[n]    successor lists
    pool : DevicePool
    hcd, cycles : bool       which merges to look for
    cycle_period : int       look for cycles every this many rounds (when new edges came)
    timer                    gpu._Timer
    pcls : cupy uint32[n]    the set-class array shared with the solver loop: a cycle scan
                             fills it for the current P (``pcls_fresh`` until the next step)
    merge_period : int       apply the HCD pairs found so far at most every this many rounds;
                             in between they wait on the device (``pending``)
    cost_factor : float, optional
                             pace the HCD merges by cost: the pairs wait until the median wall
                             time of the last ``AUTO_ROUNDS`` rounds reaches ``cost_factor *
                             AUTO_MERGE_MS``; from then on merges are made every
                             ``merge_period`` rounds once ``AUTO_MIN_PAIRS`` pairs wait (None:
                             from the start, whenever pairs wait)
    """

    def __init__(self, g, heads, succ, pool: DevicePool, hcd: bool, cycles: bool,
                 cycle_period: int, timer, pcls, merge_period: int = 1,
                 cost_factor: float | None = None):
        self.g, self.heads, self.succ, self.pool, self.timer = g, heads, succ, pool, timer
        self.hcd = bool(hcd) and g.n_hcd > 0
        self.cycles, self.period = bool(cycles), max(1, int(cycle_period))
        self.merge_period = max(1, int(merge_period))
        self.cost_factor = cost_factor
        self.merging = cost_factor is None    # paced: rounds have grown long enough to merge
        self.min_pairs = 1 if cost_factor is None else AUTO_MIN_PAIRS
        self.recent_ms: list[float] = []      # wall times of the last AUTO_ROUNDS rounds
        self.buf = cupy.empty(INITIAL_PAIR_BUFFER, cupy.uint64)
        self.pending = 0          # HCD pairs in buf[:pending], found but not applied yet
        self.last_apply = 0       # round of the last merge
        n = max(g.n, 1)
        self.parent = cupy.arange(n, dtype=cupy.uint32)   # the identity between batches
        # kept for every batch, so that a batch allocates nothing but its new rep table:
        # scratch heads newP, newΔP and X (NIL-filled per batch), the consumer marks, the
        # class stamps, the class pairs and the union scratch heads (grown when short)
        self.newP, self.newD, self.X = (cupy.empty(n, cupy.uint32) for _ in range(3))
        self.uses = cupy.empty(n, cupy.uint8)
        self.stamp_of = cupy.zeros(n, cupy.uint32)
        self.stamp = 0
        self.every = cupy.empty(1, cupy.uint64)
        self.new_rep = g.rep      # the table after the batch _group made last (see _group)
        self.union_heads = cupy.empty(1, cupy.uint32)
        P, D, _, C, DC, _ = heads
        # the unions of a batch (merge_parts jobs: S, H, skip_self): every list of the class
        # into r's (newP, newΔP: scratch heads; c⁻¹, Δc⁻¹, succ in place), then X into newΔP
        self.unions = self._job_table([(P, self.newP, 0), (D, self.newD, 0), (C, C, 1), (DC, DC, 1),
                                       (succ, succ, 1)])
        self.unions_x = self._job_table([(self.X, self.newD, 0)])
        self.pcls = pcls
        self.pcls_fresh = False   # pcls holds the set classes of the current P (no merge since)
        self.new_edges = 0
        self.merged_nodes = self.merge_rounds = self.hcd_pairs = self.candidates = self.scans = 0

    @staticmethod
    def _job_table(jobs) -> cupy.ndarray:
        """u64[len(jobs), 3] device table of union jobs (S, H, skip_self): the arrays are
        the merger's and the solver's own, never reallocated, so it is built once."""
        return cupy.asarray(np.array([(S.data.ptr, H.data.ptr, skip) for S, H, skip in jobs], np.uint64))

    # -- finding ---------------------------------------------------------------------------

    def _launch_hcd_pairs(self, lists: cupy.ndarray) -> None:
        """hcd_pairs over ``lists``, appending after the ``pending`` pairs."""
        g = self.g
        self.pool.ctl[CTL_MERGE_FILL] = self.pending
        _module().get_function("hcd_pairs")((persistent_grid(),), (BLOCK,), (
            g.hcd_ptr, g.hcd_target, np.uint32(g.n_hcd), g.rep, lists, np.uint32(g.i2p),
            self.buf, np.uint64(self.buf.size), *self.pool.args()))

    def launch_hcd(self) -> None:
        """Append the HCD pairs of the current ΔP to ``buf[pending:]`` (the total lands in
        ctl[CTL_MERGE_FILL]); no synchronisation. Call after every update kernel (again after
        a resumed update: it starts over from ``pending``).

        While paced merging has not started, nothing is launched (the slot stays at the 0
        the round's counts were cleared to): the pairs of those rounds are collected at
        once, from P, when it starts (:meth:`_catch_up`). ex, gcc, perl, nh, gs and vim
        never start, and a launch and a control-block write a round cost ex about 9 % of
        its solve (H200, f5009a0: 19.7 ms merging by "auto", 17.9 with hcd=0)."""
        if not self.hcd or not self.merging:
            return
        self._launch_hcd_pairs(self.heads[1])

    def _take_hcd(self, total: int, lists: cupy.ndarray) -> None:
        """Account for the HCD pairs that the last hcd_pairs launch over ``lists`` left
        (``total`` pending in all, from the control block): when they overran ``buf``, grow
        it and emit them again."""
        if total > self.buf.size:
            self._grow_buf(total)
            self._launch_hcd_pairs(lists)
            total = int(self.pool.ctl[CTL_MERGE_FILL].get())
        self.hcd_pairs += total - self.pending
        self.pending = total

    def _catch_up(self) -> None:
        """The HCD pairs of every pointee that entered an HCD pointer's set before paced
        merging started: one hcd_pairs launch over P (which holds every ΔP so far), so the
        pairs are those the skipped launches would have found."""
        P = self.heads[0]
        self._launch_hcd_pairs(P)
        self._take_hcd(int(self.pool.ctl[CTL_MERGE_FILL].get()), P)

    def _grow_buf(self, need: int) -> None:
        """Replace ``buf`` by one of twice ``need`` pairs that keeps the pending ones."""
        grown = cupy.empty(2 * need, cupy.uint64)
        grown[:self.pending] = self.buf[:self.pending]
        self.buf = grown

    def _emit(self, launch) -> cupy.ndarray:
        """Run an emitting kernel (launch(buf, cap)) into ``buf`` after the pending HCD pairs
        until its pairs fit; all the pairs (pending ones first), on the device."""
        ctl = self.pool.ctl
        while True:
            ctl[CTL_MERGE_FILL] = self.pending
            launch(self.buf, self.buf.size)
            count = int(ctl[CTL_MERGE_FILL].get())
            if count <= self.buf.size:
                return self.buf[:count]
            self._grow_buf(count)

    def _cycle_edges(self) -> cupy.ndarray:
        g, P = self.g, self.heads[0]
        pc = _gpu_sets.classes(g.nodes, P, self.pool.words)
        leaders = _gpu_sets.class_leaders(g.nodes, pc, g.n_work)
        self.pcls[g.nodes[pc.order]] = leaders[pc.seg]
        f = _module().get_function("cycle_candidates")
        found = self._emit(lambda buf, cap: f((persistent_grid(),), (BLOCK,), (
            g.nodes, np.uint32(g.n_work), g.rep, P, self.succ, self.pcls, buf, np.uint64(cap),
            *self.pool.args())))
        return found[self.pending:].get()

    def _group(self, pairs: cupy.ndarray) -> int:
        """Group the pairs (ends read through ``g.rep``) into classes on the device, without a
        synchronisation. Leaves ``new_rep`` (the table after the batch: every member of a
        class maps to its smallest representative) and, in ``every[:cap]`` sorted, the class
        pairs (r << 32 | m), one per merged node m and one (r, r) per class, then padding
        (all ones); their count in ctl[CTL_MERGE_FILL], the merged nodes' in
        ctl[CTL_MERGE_OLDS]. Returns ``cap``. The merged nodes are distinct representatives
        (uf_union links roots read through ``g.rep`` only), and no r is one of them."""
        g, n, parent = self.g, self.g.n, self.parent
        f = _module().get_function
        grid = lambda k: (min(max(1, (k + BLOCK - 1) // BLOCK), persistent_grid()),)  # noqa: E731
        f("uf_union")(grid(pairs.size), (BLOCK,), (pairs, np.uint64(pairs.size), g.rep, parent))
        f("uf_flatten")(grid(n), (BLOCK,), (np.uint32(n), parent))
        self.new_rep = cupy.empty(max(n, 1), cupy.uint32)
        f("remap_rep")(grid(n), (BLOCK,), (np.uint32(n), g.rep, parent, self.new_rep))
        cap = 2 * int(pairs.size)   # a link merges one node; each class adds (r, r)
        if self.every.size < cap:
            self.every = cupy.empty(2 * cap, cupy.uint64)
        every = self.every[:cap]
        fill_bytes(every, 0xFF)
        fill_bytes(self.pool.ctl[CTL_MERGE_FILL:CTL_MERGE_OLDS + 1], 0)
        self.stamp += 1
        f("class_pairs")(grid(n), (BLOCK,), (np.uint32(n), parent, self.stamp_of, np.uint32(self.stamp),
                                             every, self.pool.ctl))
        _gpu_sort.sort_keys(every)
        return cap

    def _find(self, round_no: int, scan: bool) -> int:
        pairs = self.buf[:self.pending]
        if scan:
            self.new_edges = 0
            self.scans += 1
            edges = self._cycle_edges()
            self.pcls_fresh = True
            self.candidates += int(edges.size)
            if edges.size:
                a, b = strong_pairs(edges)
                if a.size:
                    strong = (a.astype(np.uint64) << np.uint64(32)) | b.astype(np.uint64)
                    pairs = cupy.concatenate([pairs, cupy.asarray(strong)])
        self.pending = 0
        return self._group(pairs) if pairs.size else 0

    def step(self, round_no: int, new_edges: int, ctl_host: np.ndarray, round_ms: float = 0.0) -> bool:
        """Look for merges before round ``round_no`` and apply them; True when any was made
        (the control block then holds the recounted CTL_CHANGED, NPAIRS, NSUCC, NACTIVE).
        ``ctl_host`` is the control block read after the last update (with the HCD count);
        ``round_ms`` the wall time of the last round (for ``cost_factor``).

        HCD pairs are applied when ``merge_period`` rounds have passed since the last merge
        (or with a cycle scan); until then they wait in ``buf``. A merge that waits is still
        exact: the two nodes' final sets are equal whenever they are merged."""
        self.new_edges += new_edges
        self.pcls_fresh = False
        if self.hcd and self.merging:
            self._take_hcd(int(ctl_host[CTL_MERGE_FILL]), self.heads[1])
        scan = bool(self.cycles and self.new_edges and round_no % self.period == 0)
        if not self.merging:
            # once on, it stays on: merges that wait while sets grow are fewer and dearer
            # (pacing every merge on the last one's cost, ed22844: linux merged 3 times in
            # 1.81 s; staying on, 869dac4: 37 times in 1.08 s; H200)
            self.recent_ms = (self.recent_ms + [round_ms])[-AUTO_ROUNDS:]
            self.merging = (len(self.recent_ms) == AUTO_ROUNDS and
                            sorted(self.recent_ms)[AUTO_ROUNDS // 2] >= self.cost_factor * AUTO_MERGE_MS)
            if self.merging and self.hcd:
                self._catch_up()
        due = (self.merging and self.pending >= self.min_pairs
               and round_no - self.last_apply >= self.merge_period)
        if not (due or scan):
            return False
        cap = self.timer.run("merge_find", self._find, round_no, scan)
        if not cap:
            return False
        merged = self.timer.run("merge_apply", self._apply, cap)
        if not merged:
            return False
        self.pcls_fresh = False
        self.merged_nodes += merged
        self.merge_rounds += 1
        self.last_apply = round_no
        return True

    def notes(self) -> dict:
        return dict(merged_online=self.merged_nodes, merge_rounds=self.merge_rounds,
                    hcd_pairs=self.hcd_pairs, cycle_scans=self.scans,
                    cycle_candidates=self.candidates)

    # -- applying --------------------------------------------------------------------------

    def _apply(self, cap: int) -> int:
        """Apply the batch that :meth:`_group` left (``cap`` class-pair slots); the number of
        nodes merged (0: nothing changed, and the control block's counts are those of the
        last update)."""
        g, pool = self.g, self.pool
        P, D = self.heads[:2]
        DC = self.heads[4]
        f = _module().get_function
        every, count = self.every[:cap], self.pool.ctl[CTL_MERGE_FILL:]
        g.consumers(self.succ, self.uses)   # under the old table, before succ is merged
        blocks = (cap + BLOCK - 1) // BLOCK   # a warp per 32 pairs
        while True:
            for heads in (self.newP, self.newD, self.X):
                fill_bytes(heads, 0xFF)
            scratch = self._union_heads(6 * cap)
            fill_bytes(scratch, 0xFF)
            # five independent unions at once; ΔP's second half needs newP (member_diff)
            for name in ("merge_parts", "merge_parts_into"):
                f(name)((blocks, 5), (BLOCK,), (self.unions, every, count, scratch, np.uint64(cap), *pool.args()))
            f("member_diff")((persistent_grid(),), (BLOCK,), (every, count, P, self.newP, self.uses, self.X,
                                                             *pool.args()))
            x_heads = scratch[5 * cap:]
            for name in ("merge_parts", "merge_parts_into"):
                f(name)((blocks, 1), (BLOCK,), (self.unions_x, every, count, x_heads, np.uint64(cap), *pool.args()))
            c = pool.ctl.get()
            if not c[CTL_OVF_RULES]:   # only ORs so far: after a growth all of it runs again
                break
            pool.grow(int(c[CTL_TOP]))
            pool.ctl[CTL_OVF_RULES] = 0
        merged = int(c[CTL_MERGE_OLDS])
        if not merged:
            return 0
        f("merge_commit")(((cap + BLOCK - 1) // BLOCK,), (BLOCK,), (every, count, P, D, DC, self.newP, self.newD))
        # the merged nodes are distinct representatives that stop being ones (see _group)
        g.rekey(self.new_rep, g.n_work - merged)
        pool.clear_counts()
        f("recount")((persistent_grid(),), (BLOCK,), (
            g.nodes, np.uint32(g.n_work), D, DC, self.succ, g.s_ptr, np.uint32(g.i2p),
            *pool.args()))
        return merged

    def _union_heads(self, size: int) -> cupy.ndarray:
        """uint32[size] scratch heads for the unions, kept and grown."""
        if self.union_heads.size < size:
            self.union_heads = cupy.empty(2 * size, cupy.uint32)
        return self.union_heads[:size]
