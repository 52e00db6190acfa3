"""Rewrite a constraint set through a new representative table.

Shared by the offline passes: after a pass decides which nodes share a
points-to set, :func:`apply_rep` maps every pointer-side id through the new
table, drops duplicate constraints and trivial self-copies, and returns a
constraint set with the same node ids whose ``offline_rep`` is the new table.
"""

from __future__ import annotations

import numpy as np

from constraints.model import ConstraintSet


def compose(rep: np.ndarray, new_rep: np.ndarray) -> np.ndarray:
    """``new_rep[rep[v]]`` as a fixpoint table (``out[out] == out``).

    Parameters
    ----------
    rep : int[n]
        Current representative table, a fixpoint.
    new_rep : int[n]
        Merges decided on representatives (only ``new_rep[r]`` for
        ``rep[r] == r`` is read); chains are followed to their end.
    """
    out = np.asarray(new_rep, np.int64)[np.asarray(rep, np.int64)]
    while True:
        nxt = out[out]
        if np.array_equal(nxt, out):
            return out
        out = nxt


def _unique_rows(*cols: np.ndarray) -> np.ndarray:
    """Indices of the first occurrence of each distinct row, in input order.

    Rows of non-negative ids are packed into one int64 key when that cannot
    overflow (one stable sort instead of a lexsort).
    """
    m = len(cols[0])
    if m == 0:
        return np.zeros(0, np.int64)
    cols = tuple(np.asarray(c, np.int64) for c in cols)
    spans = [int(c.max()) + 1 for c in cols]
    if min(int(c.min()) for c in cols) >= 0 and float(np.prod(np.array(spans, float))) < 2.0 ** 62:
        key = cols[0].copy()
        for c, span in zip(cols[1:], spans[1:]):
            key *= span
            key += c
        order = np.argsort(key, kind="stable")
        sk = key[order]
        first = np.r_[True, sk[1:] != sk[:-1]]
    else:
        order = np.lexsort(tuple(reversed(cols)))  # stable: equal rows stay in input order
        first = np.ones(m, bool)
        same = np.ones(m - 1, bool)
        for c in cols:
            sc = c[order]
            same &= sc[1:] == sc[:-1]
        first[1:] = ~same
    return np.sort(order[first])


def apply_rep(cs: ConstraintSet, rep: np.ndarray, drop_empty: np.ndarray | None = None) -> ConstraintSet:
    """Constraint set ``cs`` with pointer-side ids mapped through ``rep``.

    Parameters
    ----------
    cs : ConstraintSet
    rep : int[n_nodes]
        A fixpoint representative table that refines ``cs.rep`` (every node
        merged in ``cs`` stays merged).
    drop_empty : bool[n_nodes] or None
        Representatives whose least points-to set is known to be empty;
        constraints that can have no effect because of them are dropped
        (copies, loads and geps from them, stores through them or of them).

    Returns
    -------
    ConstraintSet
        Same nodes, same least solution; ``offline_rep`` is ``rep``; each
        kind's constraints deduplicated (first occurrence kept), self-copies
        removed; the HCD table mapped through ``rep`` and deduplicated.
    """
    r = np.asarray(rep, np.int64)
    empty = drop_empty if drop_empty is not None else np.zeros(cs.n_nodes, bool)

    ad, as_ = r[cs.addr_dst], cs.addr_src.astype(np.int64)
    keep = _unique_rows(ad, as_)
    ad, as_ = ad[keep], as_[keep]

    cd, csrc = r[cs.copy_dst], r[cs.copy_src]
    ok = (cd != csrc) & ~empty[csrc]
    cd, csrc = cd[ok], csrc[ok]
    keep = _unique_rows(cd, csrc)
    cd, csrc = cd[keep], csrc[keep]

    ld, ls = r[cs.load_dst], r[cs.load_src]
    ok = ~empty[ls]
    ld, ls = ld[ok], ls[ok]
    keep = _unique_rows(ld, ls)
    ld, ls = ld[keep], ls[keep]

    sd, ss = r[cs.store_dst], r[cs.store_src]
    ok = ~empty[sd] & ~empty[ss]
    sd, ss = sd[ok], ss[ok]
    keep = _unique_rows(sd, ss)
    sd, ss = sd[keep], ss[keep]

    gd, gs, go = r[cs.gep_dst], r[cs.gep_src], cs.gep_offset.astype(np.int64)
    ok = ~empty[gs]
    gd, gs, go = gd[ok], gs[ok], go[ok]
    keep = _unique_rows(gd, gs, go)
    gd, gs, go = gd[keep], gs[keep], go[keep]

    hp, ht = r[cs.hcd_ptr], r[cs.hcd_target]
    keep = _unique_rows(hp, ht)
    hp, ht = hp[keep], ht[keep]

    identity = np.array_equal(r, np.arange(cs.n_nodes))
    return cs.replace(addr_dst=ad, addr_src=as_, copy_dst=cd, copy_src=csrc, load_dst=ld, load_src=ls,
                      store_dst=sd, store_src=ss, gep_dst=gd, gep_src=gs, gep_offset=go,
                      hcd_ptr=hp, hcd_target=ht, offline_rep=None if identity else r)
