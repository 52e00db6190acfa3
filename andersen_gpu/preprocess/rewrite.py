"""Rewrite a constraint set through a new representative table.

Shared by the offline passes: after a pass decides which nodes share a
points-to set, :func:`apply_rep` maps every pointer-side id through the new
table, drops duplicate constraints and trivial self-copies, and returns a
constraint set with the same node ids whose ``offline_rep`` is the new table.
Each kind is one compiled pass over its int32 columns: map, filter, and
deduplicate with a hash set of packed ``(dst, src[, offset])`` keys (first
occurrence kept, input order preserved: no sort). The result is not
validated again column by column (that was half of the rewrite's time):
every id it holds is ``rep`` of a valid id, so one compiled check of
``rep`` (in range, a fixpoint) covers it. The kinds are independent
(compiled, nogil): on sets of ``PARALLEL_MIN_CONSTRAINTS`` or more they run
in worker threads (H200 host: linux 8.0 -> 3.1 ms, gimp 8.5 -> 6.9).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields

import numpy as np
from numba import njit

from constraints.model import ConstraintSet

from ._hash import fmix64 as _fmix


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


@njit(cache=True, nogil=True)
def _table_reps(rep):
    """Representatives of the table ``rep`` (``rep[v] == v``); -1 unless it is a fixpoint table
    of ids in range."""
    n = len(rep)
    reps = 0
    for v in range(n):
        r = rep[v]
        if r < 0 or r >= n or rep[r] != r:
            return -1
        if r == v:
            reps += 1
    return reps


def _derived(cs: ConstraintSet, **changes) -> ConstraintSet:
    """``cs.replace(**changes)`` without validating again: for columns that :func:`apply_rep`
    mapped through a checked table (read-only int32 arrays, like the validated ones)."""
    out = object.__new__(ConstraintSet)
    for f in fields(ConstraintSet):
        v = changes[f.name] if f.name in changes else getattr(cs, f.name)
        if isinstance(v, np.ndarray) and v.flags.writeable:
            v.setflags(write=False)
        object.__setattr__(out, f.name, v)
    return out


@njit(cache=True, nogil=True)
def _slots(m):
    cap = 16
    while cap < 2 * m:
        cap *= 2
    return cap


@njit(cache=True, nogil=True)
def _rewrite(n, rep, empty, dst, src, off, map_src, drop_self, empty_dst, empty_src):
    """One kind's columns mapped through ``rep``, filtered and deduplicated.

    ``dst``/``src`` (and ``off``, length 0 for kinds without an offset) are
    the input columns; ``src`` is mapped only when ``map_src``. Drops rows
    with ``dst == src`` (``drop_self``), an empty ``dst`` (``empty_dst``) or
    an empty ``src`` (``empty_src``), then repeats of a kept row. Returns
    int32 columns ``(dst, src, off)`` in input order.
    """
    m = len(dst)
    has_off = len(off) > 0
    od = np.empty(m, np.int32)
    os_ = np.empty(m, np.int32)
    oo = np.empty(m if has_off else 0, np.int32)
    j = 0
    for i in range(m):
        d = rep[dst[i]]
        s = rep[src[i]] if map_src else src[i]
        if (drop_self and d == s) or (empty_dst and empty[d]) or (empty_src and empty[s]):
            continue
        od[j] = d
        os_[j] = s
        if has_off:
            oo[j] = off[i]
        j += 1
    # the hash set is sized by the rows left, not the rows read: merges drop many; a slot holds
    # the index of a kept row (int32: half the memory of a packed key, which is read back from the rows)
    cap = _slots(j)
    mask = np.uint64(cap - 1)
    tab = np.full(cap, -1, np.int32)
    u = 0
    for i in range(j):
        d = od[i]
        s = os_[i]
        o = oo[i] if has_off else np.int32(0)
        key = np.int64(d) * n + s
        slot = _fmix(np.uint64(key) ^ (np.uint64(o) << np.uint64(40))) & mask
        while True:
            t = tab[slot]
            if t < 0:
                tab[slot] = u
                od[u] = d
                os_[u] = s
                if has_off:
                    oo[u] = o
                u += 1
                break
            if od[t] == d and os_[t] == s and (not has_off or oo[t] == o):
                break
            slot = (slot + np.uint64(1)) & mask
    return od[:u], os_[:u], oo[:u] if has_off else oo


_NO_OFFSET = np.zeros(0, np.int32)

#: apply_rep rewrites the kinds in worker threads from this many constraints on (below, the
#: hand-off costs more than it saves).
PARALLEL_MIN_CONSTRAINTS = 100_000
_POOL: list[ThreadPoolExecutor] = []


def _pool() -> ThreadPoolExecutor | None:
    """The preprocessing's worker threads (made on first use; the rewrite's kinds, the object-level
    set beside the cycle search); None on a single-core machine."""
    if not _POOL:
        workers = min(5, (os.cpu_count() or 1) - 1)
        if workers < 1:
            return None
        _POOL.append(ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rewrite"))
    return _POOL[0]


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
        removed; the HCD table mapped through ``rep`` and deduplicated; walk geps
        and call geps like geps (a walk from a node to itself is kept: it is what walks are for).
    """
    n = cs.n_nodes
    r = np.ascontiguousarray(rep, np.int32)
    if len(r) != n:
        raise ValueError(f"representative table has {len(r)} entries, expected {n}")
    reps = _table_reps(r)
    if reps < 0:
        raise ValueError("representative table is not a fixpoint table of node ids (rep[rep[v]] != rep[v] "
                         "or an id out of range)")
    empty = np.zeros(n, np.bool_) if drop_empty is None else np.ascontiguousarray(drop_empty, np.bool_)

    jobs = [  # (dst, src, map_src, drop_self, empty_dst, empty_src, off), one per kind
        (cs.addr_dst, cs.addr_src, False, False, False, False, _NO_OFFSET),
        (cs.copy_dst, cs.copy_src, True, True, False, True, _NO_OFFSET),
        (cs.load_dst, cs.load_src, True, False, False, True, _NO_OFFSET),
        (cs.store_dst, cs.store_src, True, False, True, True, _NO_OFFSET),
        (cs.gep_dst, cs.gep_src, True, False, False, True, cs.gep_offset),
        (cs.hcd_ptr, cs.hcd_target, True, False, False, False, _NO_OFFSET),
        (cs.walk_dst, cs.walk_src, True, False, False, True, cs.walk_offset),
        (cs.call_dst, cs.call_src, True, False, False, True, cs.call_offset)]

    def kind(job):
        dst, src, map_src, drop_self, empty_dst, empty_src, off = job
        return _rewrite(n, r, empty, dst, src, off, map_src, drop_self, empty_dst, empty_src)

    pool = _pool() if cs.n_constraints >= PARALLEL_MIN_CONSTRAINTS else None
    if pool is None:
        out = [kind(job) for job in jobs]
    else:
        # the largest kinds first, so that the main thread's share (the last) is small
        order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][0]))
        futures = {i: pool.submit(kind, jobs[i]) for i in order[:-1]}
        out = [None] * len(jobs)
        out[order[-1]] = kind(jobs[order[-1]])
        for i, future in futures.items():
            out[i] = future.result()
    (ad, as_, _), (cd, csrc, _), (ld, ls, _), (sd, ss, _), (gd, gs, go), (hp, ht, _), (wd, ws, wo), (kd, ks, ko) = out
    return _derived(cs, addr_dst=ad, addr_src=as_, copy_dst=cd, copy_src=csrc, load_dst=ld, load_src=ls,
                      store_dst=sd, store_src=ss, gep_dst=gd, gep_src=gs, gep_offset=go,
                      hcd_ptr=hp, hcd_target=ht, walk_dst=wd, walk_src=ws, walk_offset=wo,
                      call_dst=kd, call_src=ks, call_offset=ko,
                      offline_rep=None if reps == n else r)
