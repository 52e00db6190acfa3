"""``collapse``: the offline passes (SCC collapse, HVN) run in rounds.

A round is one compiled HVN call (:func:`.hvn.label_round`) on the int32
columns of the constraint set read through the current representative
table. The SCC collapse runs before it on a set without an HCD table
(the LLVM front end's, which have copy cycles), and otherwise only when
that call reports a copy cycle (the paper inputs have none left after
their HCD merges). The constraint
set is rewritten (deduplicated, empty-set constraints dropped, validated)
once, at the end (:func:`.rewrite.apply_rep`).

Where the time goes (bench/results/preprocess-speed.md, gs): the HVN
passes about a third, contraction, ordering and the renumbered graph
about a third, the rewrite and final table a sixth; the rest is the
kernel faulting in fresh pages, which is why the compiled passes reuse
their per-node arrays (and write the final table over the contracted
one) instead of allocating new ones. The rewritten set is not validated
again (its ids are the checked table's), which halved the rewrite.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from constraints.model import EDGE_KINDS, ConstraintSet

from .hvn import label_round, pointee_capable
from .rewrite import _derived, _table_reps, apply_rep, compose
from .scc import scc_rep


@dataclass
class PreprocessStats:
    """What :func:`collapse` did.

    ``nodes_*`` count representatives (nodes that hold a points-to set);
    ``constraints_*`` map each kind (and ``"total"``) to a count;
    ``rounds`` lists, per SCC+HVN round, the representatives merged by it.
    """

    nodes_before: int = 0
    nodes_after: int = 0
    constraints_before: dict[str, int] = field(default_factory=dict)
    constraints_after: dict[str, int] = field(default_factory=dict)
    scc_merged: int = 0
    hvn_merged: int = 0
    passes: int = 0
    hvn_passes: int = 0
    rounds: list[int] = field(default_factory=list)
    walk_cycles: int = 0
    walks: int = 0
    ms: float = 0.0

    def notes(self) -> dict[str, object]:
        """Flat entries for :attr:`SolveStats.notes`."""
        return {"preprocess nodes": f"{self.nodes_before:,} -> {self.nodes_after:,}",
                "preprocess constraints": f"{self.constraints_before['total']:,} -> "
                                          f"{self.constraints_after['total']:,}",
                "preprocess merged (scc, hvn)": f"{self.scc_merged:,}, {self.hvn_merged:,}",
                "preprocess walk geps (cycles, added)": f"{self.walk_cycles:,}, {self.walks:,}",
                "preprocess ms": round(self.ms, 1)}


def _counts(cs: ConstraintSet) -> dict[str, int]:
    out = {k: cs.count(k) for k in EDGE_KINDS}
    out["total"] = cs.n_constraints
    return out


def _n_reps(rep: np.ndarray) -> int:
    return int(_table_reps(rep))


def _scc_round(cs: ConstraintSet, rep: np.ndarray, reps: int,
               stats: PreprocessStats) -> tuple[np.ndarray, int]:
    """``rep`` (of ``reps`` representatives) with every cycle of the copy graph (read through
    ``rep``) collapsed, and the representatives left; the merges are counted in ``stats.scc_merged``."""
    copy_src, copy_dst = rep[cs.copy_src], rep[cs.copy_dst]
    keep = copy_src != copy_dst
    rep = compose(rep, scc_rep(cs.n_nodes, copy_src[keep], copy_dst[keep])).astype(np.int32)
    after = _n_reps(rep)
    stats.scc_merged += reps - after
    return rep, after


def walk_geps(cs: ConstraintSet) -> tuple[ConstraintSet, int, int]:
    """``cs`` with walk geps (see :mod:`constraints.model`) on the pointers of ``+1`` gep cycles.

    A cycle is a gep ``x = p + 1`` whose result flows back into ``p``: ``x`` is ``p``
    (``p = p + 1`` once the copy cycle is collapsed) or ``p = x`` is a copy constraint.
    Either way ``p ⊇ p + 1`` holds, hence ``p ⊇ p +w d`` for every ``d``; ``p`` gets
    walks of ``d = 1, 2, 4, ...`` up to the longest walk of any object (``walk_size() - 1``),
    so that a solver in rounds reaches slot ``z + k`` in about log2 k rounds, not k. The
    least solution is unchanged (every walk added is implied). Pointer ids are read as
    they are (call on a rewritten set: representatives on the pointer side).

    Returns
    -------
    (ConstraintSet, cycles, walks)
        ``cs`` itself when there is nothing to add (no cycle, or no object with a walk of
        two steps or more); the number of cycle pointers and of walks added.
    """
    one = np.flatnonzero(cs.gep_offset == 1)
    if not one.size:
        return cs, 0, 0
    # a walk of two steps or more needs z and z + 1 both of gep bound 2 or more (walk_size): none at
    # object level, where every object is one slot
    bound = cs.gep_bound()
    step = bound >= 2
    if not np.any(step[:-1] & step[1:]):
        return cs, 0, 0
    p, x = cs.gep_src[one], cs.gep_dst[one]
    cyc = p == x
    back = ~cyc
    if back.any():
        # a copy p = x for a gep x = p + 1: only copies out of some such x can be one
        n = cs.n_nodes
        is_x = np.zeros(n, bool)
        is_x[x[back]] = True
        cand = is_x[cs.copy_src]
        copies = np.unique(cs.copy_src[cand].astype(np.int64) * n + cs.copy_dst[cand])
        keys = x.astype(np.int64) * n + p
        cyc |= np.isin(keys, copies)
    ptrs = np.unique(p[cyc])
    if not ptrs.size:
        return cs, 0, 0
    longest = int(cs.walk_size(bound).max()) - 1
    if longest < 2:
        return cs, 0, 0
    steps = 1 << np.arange(int(longest).bit_length(), dtype=np.int32)
    steps = steps[steps <= longest]
    wd = np.repeat(ptrs, steps.size)
    wo = np.tile(steps, ptrs.size)
    dst, src, off = (np.concatenate((cs.walk_dst, wd)), np.concatenate((cs.walk_src, wd)),
                     np.concatenate((cs.walk_offset, wo)))
    if len(cs.walk_dst):     # walks already there (a collapsed set collapsed again): each once
        _, first = np.unique(np.stack((dst, src, off)), axis=1, return_index=True)
        first.sort()
        dst, src, off = dst[first], src[first], off[first]
    # ids and offsets from the validated set: no second validation (_derived)
    out = _derived(cs, walk_dst=dst.astype(np.int32), walk_src=src.astype(np.int32),
                   walk_offset=off.astype(np.int32))
    return out, int(ptrs.size), int(wd.size)


def collapse(cs: ConstraintSet, scc: bool = True, hvn: bool = True, max_passes: int = 1,
             min_gain: float = 0.002, hvn_passes: int = 2, hu: bool = False,
             walks: bool = True) -> tuple[ConstraintSet, PreprocessStats]:
    """Merge nodes that share a least points-to set; keep the least solution.

    Parameters
    ----------
    cs : ConstraintSet
    scc : bool
        Collapse strongly connected components of the copy graph.
    hvn : bool
        Offline variable substitution by hash-based value numbering
        (Hardekopf and Lin, SAS 2007), iterated. Needs an acyclic copy
        graph, so SCC collapse runs before it even when ``scc`` is False.
    max_passes : int
        Upper bound on SCC+HVN rounds (a round rewrites the columns through
        the merges so far; each can enable more merges). One is the default:
        a second buys at most 0.1 % more merges on the paper inputs.
    min_gain : float
        Stop after a round that merged fewer than this fraction of the
        representatives it started with (0: run to a fixpoint or
        ``max_passes``).
    hvn_passes : int
        Upper bound on HVN passes inside a round (each refines the keys of
        loads and geps that close a cycle, see :mod:`.hvn`; passes after
        the first revisit only dirty nodes and cost 8-40 % of the first).
        Two is the default (bench/results/preprocess-speed.md). Zero keeps
        only HVN's first step, the single-copy-input merges (see Notes):
        a third to a half of HVN's time, and on the corpus's object-level
        sets the GPU solves in about as many rounds as after full HVN
        (bench/results/objlevel-presolve.md).
    hu : bool
        Hash-based unification (HU, Hardekopf and Lin, SAS 2007) instead of
        HVN: a label is a set of primitive labels, so nodes whose inputs'
        sets have equal unions are merged too. On the paper inputs it
        leaves 0.3-2.4 % fewer nodes and 0.7-5 % fewer constraints at
        1.0-1.3x the preprocessing time (gimp 1.6x); the cpu backend's
        solver does 1-7 % less work on them, but its solve time moved within
        the measurement noise (bench/results/preprocess-speed.md): off by
        default.

    Returns
    -------
    (ConstraintSet, PreprocessStats)
        Same ``n_nodes`` and node ids; ``offline_rep`` extends ``cs.rep``
        (a fixpoint); pointer-side ids are representatives; duplicate
        constraints, self-copies and constraints that read or write a
        provably empty set are removed. Solving it gives exactly the
        solution of ``cs``. Even with both passes off, duplicates and
        self-copies are removed.

    Raises
    ------
    ValueError
        ``cs.collapse_cycles`` is set: its objects must be collapsed first
        (:func:`andersen_gpu.preprocess.objects.collapse_reached`, which
        ``andersen_gpu.solve`` applies), since the merges found here hold
        for the model they were found in.

    Notes
    -----
    HVN first merges every node whose only input is one copy (and that no
    store can write) into its source, then keys loads and geps by the
    *label* of their pointer and visits nodes in the topological order of
    the dependency graph's SCCs (see :mod:`.hvn`): on the paper inputs the
    default leaves no more nodes than eight rounds of the paper's HR
    iteration (rewriting the constraint set between HVN runs) did, at a
    small fraction of the time (bench/results/preprocess-speed.md).
    """
    if cs.collapse_cycles:
        raise ValueError("collapse the objects positive-weight cycles reach first "
                         "(andersen_gpu.preprocess.objects.collapse_reached)")
    t0 = time.perf_counter()
    n = cs.n_nodes
    rep = np.ascontiguousarray(cs.rep, np.int32)
    stats = PreprocessStats(nodes_before=n if cs.offline_rep is None else _n_reps(rep),
                            constraints_before=_counts(cs))
    # A set with an offline HCD table (the paper's inputs) had its copy cycles merged with it, and
    # HVN's ordering confirms that at no extra cost. Every set without one that was measured (the
    # LLVM front end's, and their object-level sets: all 20 corpus programs) has copy cycles, so its
    # first round collapses them before HVN instead of after HVN's first ordering found one
    # (bench/results/preprocess-scc-first.md). Either way the merges are the same.
    scc_first = not len(cs.hcd_ptr)
    leaders = []                            # proven empty in some round
    reps = stats.nodes_before
    if scc or hvn:
        cap = pointee_capable(cs) if hvn else None
        for _ in range(max_passes):
            stats.passes += 1
            before = reps
            if hvn:
                # HVN's ordering finds copy cycles itself, but only after compacting and ordering
                # the whole graph, which is then done again: where a cycle is expected, the SCC
                # collapse runs first (see scc_first)
                after_scc = before
                if (scc_first or hvn_passes <= 0) and stats.passes == 1:    # no ordering to find one
                    rep, after_scc = _scc_round(cs, rep, after_scc, stats)
                table, leader, acyclic, passes, after = label_round(cs, rep, cap, hvn_passes, hu)
                if not acyclic:
                    rep, after_scc = _scc_round(cs, rep, after_scc, stats)
                    table, leader, acyclic, passes, after = label_round(cs, rep, cap, hvn_passes, hu)
                    if not acyclic:
                        raise RuntimeError("copy graph still cyclic after SCC collapse")
                stats.hvn_passes += passes
                if leader >= 0:
                    leaders.append(leader)
                rep = table
                stats.hvn_merged += after_scc - after
            else:
                rep, after = _scc_round(cs, rep, before, stats)
            reps = after
            gained = before - after
            stats.rounds.append(gained)
            if gained == 0 or gained < min_gain * before or not hvn:
                break
    empty = np.zeros(n, bool)
    for leader in leaders:
        empty[rep[leader]] = True           # proven empty in any round: so is its rep
    cur = apply_rep(cs, rep, drop_empty=empty)
    if walks:
        cur, stats.walk_cycles, stats.walks = walk_geps(cur)
    stats.nodes_after = reps
    stats.constraints_after = _counts(cur)
    stats.ms = (time.perf_counter() - t0) * 1e3
    return cur, stats
