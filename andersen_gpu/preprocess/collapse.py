"""``collapse``: the offline passes (SCC collapse, HVN) run to a fixpoint."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from constraints.model import EDGE_KINDS, ConstraintSet

from .hvn import hvn_labels
from .rewrite import apply_rep, compose
from .scc import copy_scc_rep


@dataclass
class PreprocessStats:
    """What :func:`collapse` did.

    ``nodes_*`` count representatives (nodes that hold a points-to set);
    ``constraints_*`` map each kind (and ``"total"``) to a count.
    """

    nodes_before: int = 0
    nodes_after: int = 0
    constraints_before: dict[str, int] = field(default_factory=dict)
    constraints_after: dict[str, int] = field(default_factory=dict)
    scc_merged: int = 0
    hvn_merged: int = 0
    passes: int = 0
    ms: float = 0.0

    def notes(self) -> dict[str, object]:
        """Flat entries for :attr:`SolveStats.notes`."""
        return {"preprocess nodes": f"{self.nodes_before:,} -> {self.nodes_after:,}",
                "preprocess constraints": f"{self.constraints_before['total']:,} -> "
                                          f"{self.constraints_after['total']:,}",
                "preprocess merged (scc, hvn)": f"{self.scc_merged:,}, {self.hvn_merged:,}",
                "preprocess ms": round(self.ms, 1)}


def _counts(cs: ConstraintSet) -> dict[str, int]:
    out = {k: cs.count(k) for k in EDGE_KINDS}
    out["total"] = cs.n_constraints
    return out


def _n_reps(cs: ConstraintSet) -> int:
    return int(np.count_nonzero(cs.rep == np.arange(cs.n_nodes)))


def collapse(cs: ConstraintSet, scc: bool = True, hvn: bool = True,
             max_passes: int = 8) -> tuple[ConstraintSet, PreprocessStats]:
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
        Upper bound on SCC+HVN rounds (each round can enable more merges).

    Returns
    -------
    (ConstraintSet, PreprocessStats)
        Same ``n_nodes`` and node ids; ``offline_rep`` extends ``cs.rep``
        (a fixpoint); pointer-side ids are representatives; duplicate
        constraints, self-copies and constraints that read or write a
        provably empty set are removed. Solving it gives exactly the
        solution of ``cs``. Even with both passes off, duplicates and
        self-copies are removed.
    """
    t0 = time.perf_counter()
    stats = PreprocessStats(nodes_before=_n_reps(cs), constraints_before=_counts(cs))
    rep = cs.rep.astype(np.int64)
    cur = apply_rep(cs, rep)
    for _ in range(max_passes if (scc or hvn) else 0):
        stats.passes += 1
        before = _n_reps(cur)
        rep = compose(rep, copy_scc_rep(cur))
        cur = apply_rep(cur, rep)
        after_scc = _n_reps(cur)
        stats.scc_merged += before - after_scc
        if hvn:
            labels = hvn_labels(cur)
            is_rep = labels >= 0
            ids = np.flatnonzero(is_rep)
            lab = labels[ids]
            # smallest id per label becomes the class representative
            order = np.lexsort((ids, lab))
            lab_sorted, ids_sorted = lab[order], ids[order]
            starts = np.r_[True, lab_sorted[1:] != lab_sorted[:-1]]
            class_rep = ids_sorted[starts][np.cumsum(starts) - 1]
            new_rep = np.arange(cs.n_nodes, dtype=np.int64)
            new_rep[ids_sorted] = class_rep
            rep = compose(rep, new_rep)
            empty = np.zeros(cs.n_nodes, bool)
            empty[new_rep[ids[lab == 0]]] = True
            cur = apply_rep(cur, rep, drop_empty=empty)
            stats.hvn_merged += after_scc - _n_reps(cur)
        if _n_reps(cur) == before:
            break
    stats.nodes_after = _n_reps(cur)
    stats.constraints_after = _counts(cur)
    stats.ms = (time.perf_counter() - t0) * 1e3
    return cur, stats
