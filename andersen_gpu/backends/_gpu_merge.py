"""Online merging between rounds: the HCD table and cycle detection (kernels_cu/merge.cu).

Contract of :meth:`OnlineMerger.step`, called between rounds (after the update kernel, before
the next round's kernels; the N and NC lists are then empty):

* it finds pairs of representatives whose final points-to sets are equal -- HCD pairs from
  the ΔP of HCD pointers, and the strongly connected components of the copy edges
  y →c x whose ends have equal P (found every ``cycle_period`` rounds when new edges came);
* groups them into classes on the host (``scipy.sparse.csgraph``; the pairs are few), the
  smallest id of a class becoming its representative;
* unions P of the class into its representative r and sets ΔP(r) to what some rule of a
  member has not seen yet: ⋃ ΔP(m) ∪ ⋃ (P(r) \\ P(m)) over the members m, the second term only
  for members whose ΔP a rule reads (member_diff, merge_lists); folds c⁻¹, Δc⁻¹ and succ into
  r (merge_lists); empties ΔP, Δc⁻¹ of merged nodes; remaps ``g.rep`` (staying a fixpoint),
  rebuilds the graph lists under the new table and recounts the control block.

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

from . import _gpu_sets
from ._gpu_pool import (BLOCK, CTL_CHANGED, CTL_NACTIVE, CTL_NPAIRS, CTL_NSUCC, CTL_OVF_RULES,
                        CTL_TOP, NIL, DevicePool, module, persistent_grid)

CTL_MERGE_FILL = 14  # must match kernels_cu/merge.cu
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


def group(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Classes of the undirected pairs (a[i], b[i]): (olds, news) with news[j] the smallest id
    of the class of olds[j] and olds[j] != news[j]; both int64."""
    ids, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    k, m = ids.size, a.size
    graph = coo_matrix((np.ones(m, np.int8), (inv[:m], inv[m:])), shape=(k, k))
    _, label = connected_components(graph, directed=False)
    _, first = np.unique(label, return_index=True)   # ids ascending: first is the smallest
    new = ids[first][label]
    keep = new != ids
    return ids[keep], new[keep]


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
    """

    def __init__(self, g, heads, succ, pool: DevicePool, hcd: bool, cycles: bool,
                 cycle_period: int, timer, pcls):
        self.g, self.heads, self.succ, self.pool, self.timer = g, heads, succ, pool, timer
        self.hcd = bool(hcd) and g.n_hcd > 0
        self.cycles, self.period = bool(cycles), max(1, int(cycle_period))
        self.buf = cupy.empty(1 << 16, cupy.uint64)
        self.pcls = pcls
        self.pcls_fresh = False   # pcls holds the set classes of the current P (no merge since)
        self.new_edges = 0
        self.merged_nodes = self.merge_rounds = self.hcd_pairs = self.candidates = self.scans = 0

    # -- finding ---------------------------------------------------------------------------

    def launch_hcd(self) -> None:
        """Emit the HCD pairs of the current ΔP into ``buf`` (count in ctl[CTL_MERGE_FILL]);
        no synchronisation. Call after every update kernel."""
        if not self.hcd:
            return
        g = self.g
        self.pool.ctl[CTL_MERGE_FILL] = 0
        _module().get_function("hcd_pairs")((persistent_grid(),), (BLOCK,), (
            g.hcd_ptr, g.hcd_target, np.uint32(g.n_hcd), g.rep, self.heads[1], np.uint32(g.i2p),
            self.buf, np.uint64(self.buf.size), *self.pool.args()))

    def _emit(self, launch) -> np.ndarray:
        """Run an emitting kernel (launch(buf, cap)) until its pairs fit; the pairs, on the host."""
        ctl = self.pool.ctl
        while True:
            ctl[CTL_MERGE_FILL] = 0
            launch(self.buf, self.buf.size)
            count = int(ctl[CTL_MERGE_FILL].get())
            if count <= self.buf.size:
                return self.buf[:count].get()
            self.buf = cupy.empty(2 * count, cupy.uint64)

    def _hcd_pairs(self, count: int) -> np.ndarray:
        if count <= self.buf.size:
            return self.buf[:count].get()
        g, D = self.g, self.heads[1]
        f = _module().get_function("hcd_pairs")
        return self._emit(lambda buf, cap: f((persistent_grid(),), (BLOCK,), (
            g.hcd_ptr, g.hcd_target, np.uint32(g.n_hcd), g.rep, D, np.uint32(g.i2p), buf,
            np.uint64(cap), *self.pool.args())))

    def _cycle_edges(self) -> np.ndarray:
        g, P = self.g, self.heads[0]
        pc = _gpu_sets.classes(g.nodes, P, self.pool.words)
        leaders = _gpu_sets.class_leaders(g.nodes, pc, g.n_work)
        self.pcls[g.nodes[pc.order]] = leaders[pc.seg]
        f = _module().get_function("cycle_candidates")
        return self._emit(lambda buf, cap: f((persistent_grid(),), (BLOCK,), (
            g.nodes, np.uint32(g.n_work), g.rep, P, self.succ, self.pcls, buf, np.uint64(cap),
            *self.pool.args())))

    def _find(self, round_no: int, hcd_count: int) -> tuple[np.ndarray, np.ndarray] | None:
        a_parts, b_parts = [], []
        if self.hcd and hcd_count:
            hp = self._hcd_pairs(hcd_count)
            self.hcd_pairs += int(hp.size)
            a, b = _split(hp)
            a_parts.append(a)
            b_parts.append(b)
        if self.cycles and self.new_edges and round_no % self.period == 0:
            self.new_edges = 0
            self.scans += 1
            edges = self._cycle_edges()
            self.pcls_fresh = True
            self.candidates += int(edges.size)
            if edges.size:
                a, b = strong_pairs(edges)
                a_parts.append(a)
                b_parts.append(b)
        if not sum(x.size for x in a_parts):
            return None
        olds, news = group(np.concatenate(a_parts), np.concatenate(b_parts))
        return (olds, news) if olds.size else None

    def step(self, round_no: int, new_edges: int, ctl_host: np.ndarray) -> bool:
        """Look for merges before round ``round_no`` and apply them; True when any was made
        (the control block then holds the recounted CTL_CHANGED, NPAIRS, NSUCC, NACTIVE).
        ``ctl_host`` is the control block read after the last update (with the HCD count)."""
        self.new_edges += new_edges
        self.pcls_fresh = False
        hcd_count = int(ctl_host[CTL_MERGE_FILL]) if self.hcd else 0
        if not hcd_count and not (self.cycles and self.new_edges and round_no % self.period == 0):
            return False
        found = self.timer.run("merge_find", self._find, round_no, hcd_count)
        if found is None:
            return False
        olds, news = found
        self.timer.run("merge_apply", self._apply, olds, news)
        self.pcls_fresh = False
        self.merged_nodes += int(olds.size)
        self.merge_rounds += 1
        return True

    def notes(self) -> dict:
        return dict(merged_online=self.merged_nodes, merge_rounds=self.merge_rounds,
                    hcd_pairs=self.hcd_pairs, cycle_scans=self.scans,
                    cycle_candidates=self.candidates)

    # -- applying --------------------------------------------------------------------------

    def _apply(self, olds: np.ndarray, news: np.ndarray) -> None:
        g, pool, n = self.g, self.pool, self.g.n
        P, D, N, C, DC, NC = self.heads
        gained = np.unique(news)
        members = np.concatenate([olds, gained])                 # every member, r included
        reps = np.concatenate([news, gained])
        pairs_h = (reps.astype(np.uint64) << np.uint64(32)) | members.astype(np.uint64)
        own = cupy.sort(cupy.asarray(pairs_h[:olds.size]))        # (r, a), a merged into r
        every = cupy.sort(cupy.asarray(pairs_h))                  # (r, m), m in r's class
        members_d, reps_d = cupy.asarray(members.astype(np.uint32)), cupy.asarray(reps.astype(np.uint32))
        uses = g.consumers(self.succ)      # under the old table, before succ is merged
        lists = _module().get_function("merge_lists")
        diff = _module().get_function("member_diff")

        def blocks(k: int) -> tuple[int]:
            return ((((k + 31) // 32) * 32 + BLOCK - 1) // BLOCK,)

        while True:
            newP, newD, X = (cupy.full(n, NIL, cupy.uint32) for _ in range(3))
            lists(blocks(every.size), (BLOCK,), (every, np.uint64(every.size), P, newP, *pool.args()))
            diff((persistent_grid(),), (BLOCK,), (members_d, reps_d, np.uint32(members.size), P, newP,
                                                 uses, X, *pool.args()))
            for S in (D, X):
                lists(blocks(every.size), (BLOCK,), (every, np.uint64(every.size), S, newD,
                                                     *pool.args()))
            for H in (C, DC, self.succ):   # only OR: running them again after a growth is fine
                lists(blocks(own.size), (BLOCK,), (own, np.uint64(own.size), H, H, *pool.args()))
            c = pool.ctl.get()
            if not c[CTL_OVF_RULES]:
                break
            pool.grow(int(c[CTL_TOP]))
            pool.ctl[CTL_OVF_RULES] = 0
        olds_d, news_d, gained_d = cupy.asarray(olds), cupy.asarray(news), cupy.asarray(gained)
        P[gained_d] = newP[gained_d]
        D[gained_d] = newD[gained_d]
        D[olds_d] = NIL
        DC[olds_d] = NIL
        remap = cupy.arange(n, dtype=cupy.uint32)
        remap[olds_d] = news_d.astype(cupy.uint32)
        g.rekey(remap[g.rep])
        ctl = pool.ctl
        for slot in (CTL_CHANGED, CTL_NPAIRS, CTL_NSUCC, CTL_NACTIVE):
            ctl[slot] = 0
        _module().get_function("recount")((persistent_grid(),), (BLOCK,), (
            g.nodes, np.uint32(g.n_work), D, DC, self.succ, g.s_ptr, np.uint32(g.i2p),
            *pool.args()))
