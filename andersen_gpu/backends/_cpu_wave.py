"""The CPU solver's multi-core mode: wave propagation with owner-writes (numba ``prange``).

Same constraints, rules and result as :mod:`._cpu_core` (the serial solver);
what differs is who writes what, so that threads never write the same set,
and that every node owns its sets (the serial solver's shared, interned sets
would need a table that threads update at once).
The copy graph is kept *inverted*: ``pre[v]`` holds the copy predecessors of
``v`` (stale ids resolve through ``find``), so a node pulls into its own sets.

State per representative ``v`` (sparse bit-sets, see ``_cpu_bits``):

* ``pts[v]``, ``dlt[v]`` -- points-to set, and the part of it not yet propagated;
* ``D[v]`` -- this round's delta (what ``v`` propagates now), ``P[v]`` -- last round's;
* ``pre[v]`` -- copy predecessors; ``fre[v]`` -- predecessors whose edge is new
  (``v`` must take all of their set once);
* ``lin[x]`` -- pointees z whose load-made edge ``rep z --copy--> x`` exists;
* ``sto[y]`` -- pointees z whose store-made edge ``y --copy--> rep z`` exists.

A round (Pereira and Berlin, "Wave propagation and deep propagation for
pointer analysis", CGO 2009):

1. *(serial, when the copy graph grew by 1 %)* Tarjan's SCC over ``pre``,
   merging each cycle; then topological *levels*: ``level v = 1 + max level u``
   over predecessors u earlier in the order. An edge ``u -> v`` with
   ``level u < level v`` is *forward*, any other (edges added since) *deferred*.
2. *(parallel per level, in level order)* every ``v`` of the level sets
   ``D[v] = dlt[v] ∪ (D[u] − pts v)`` over forward predecessors u (final: they
   are on earlier levels), ``∪ (P[u] − pts v)`` over deferred ones (last
   round's delta, frozen), ``∪ (pts u − pts v)`` over new forward edges;
   ``pts v`` grows by it. A thread writes only the sets of its own ``v``.
3. *(parallel)* new deferred edges take all of ``pts u``: first every
   target gathers ``∪ pts u`` (reads only), then adds it to its own ``pts``/``dlt``.
4. *(serial)* the HCD table: ``(p, t)``, ``z ∈ D[p]``, ``z ≠ i2p`` ⟹ merge ``rep z`` and ``rep t``.
5. *(parallel, over targets and store owners)*, reading only ``D``:

   * ``y --load--> x``,  ``z ∈ D[y]``, ``z ≠ i2p``  ⟹  edge ``rep z -> x`` (written by x: ``lin``, ``pre``, ``fre``)
   * ``y --gep,o--> x``, ``z ∈ D[y]``, ``o < size z``  ⟹  ``z+o ∈ pts x`` (written by x)
   * ``x --store--> y``, ``z ∈ D[x]``, ``z ≠ i2p``  ⟹  edge ``y -> rep z`` (y records it in ``sto``
     and a list; then, grouped by ``rep z``, each target adds it to its ``pre``/``fre``).
6. ``P = D``; stop when no representative has a delta, a last-round delta or a new edge.

Why it is exact: every id in ``pts v`` outside ``dlt v`` has been, or in the
next round will be, propagated along every copy edge and through every
constraint of ``v``. Forward edges carry ``D`` within the round; deferred
edges carry it one round late through ``P``; a new edge carries the whole
source set once. Before an SCC pass changes the levels (and so which edges
are deferred), every node first takes ``P`` of its deferred predecessors
(:func:`_settle`), so nothing in flight is lost. A merge through the HCD table
folds both nodes' ``D`` into the survivor's ``dlt`` and marks it ``touched``:
next round it takes ``P`` of *all* its predecessors (which of the merged
edges were deferred is no longer known). A merge's delta is
``(pts a XOR pts b) ∪ Δa ∪ Δb`` (the serial solver's ``pts − prop a ∩ prop b``). The fixpoint reached
satisfies every rule and only ids the rules force were added, so it is the
least solution: the serial solver's.

Parallel regions are numba ``prange`` loops; a level or phase with fewer than
:data:`SERIAL_BELOW` items runs on the calling thread (a launch costs more).
``find`` inside parallel regions never compresses paths (it would write
``parent``); paths are compressed in the serial steps after merges.
"""

from __future__ import annotations

import time

import numpy as np
from numba import get_thread_id, njit, objmode, prange
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.typed import List

from . import _cpu_bits as bits
from ._cpu_core import (CALL, SCC_GROWTH, WALK, _append, _flag_mask, _gep_masks, _linked, _masked, _shifted,
                        empty_sets, find, scc_order)

ONE = np.uint64(1)
#: fewer items than this in a level or phase: run them on the calling thread
SERIAL_BELOW = 64

# work counters (solve_wave's last result), see COUNTER_NAMES
COUNTER_NAMES = ("scc passes", "levels", "parallel levels", "new edges", "store edge candidates",
                 "deferred full pulls", "hcd touched rounds")
(W_SCC, W_LEVELS, W_PAR_LEVELS, W_NEW_EDGES, W_STORE_CAND, W_BACK_FRESH, W_TOUCHED) = range(7)
N_CTR = 7
#: wall time per step (solve_wave's last result, milliseconds), see the module docstring
PHASE_NAMES = ("copy", "deferred new", "hcd", "complex", "store edges", "other", "settle", "scc", "canonical preds",
               "levels", "groups")
(T_COPY, T_DEFERRED, T_HCD, T_COMPLEX, T_STORE_EDGES, T_OTHER, T_SETTLE, T_SCC, T_CANON, T_LEVELS, T_GROUPS) = range(11)
N_PHASE = 11


@njit(cache=True)
def seed_addresses(addr_dst, addr_src, pts, plen, dlt, dlen):
    """x = &y  ⟹  y ∈ pts(x), and in the delta dlt(x) when it is new there (int64[m] columns)."""
    for c in range(len(addr_dst)):
        x = addr_dst[c]
        p, pl, fresh = bits.add(pts[x], plen[x], addr_src[c])
        pts[x] = p
        plen[x] = pl
        if fresh:
            d, dl, _ = bits.add(dlt[x], dlen[x], addr_src[c])
            dlt[x] = d
            dlen[x] = dl


@njit(cache=True)
def _merge(a, b, parent, pts, plen, dlt, dlen, fams, flen, lists, empty):
    """Merge representative ``a`` into representative ``b``.

    The merged delta is ``(pts a XOR pts b) ∪ Δa ∪ Δb``: an id outside it was
    already pushed through the constraints of both. Every per-node set family
    ``fams[f]`` (lengths in row ``flen[f]``: successors, pointees already
    wired, ...; ids in them resolve through ``find``) is united into ``b``,
    and every linked constraint list ``lists[k]`` of ``a`` moves to ``b``.
    """
    parent[a] = b
    sym, symlen = bits.xor(pts[a], plen[a], pts[b], plen[b])
    d, dl = bits.or_into(sym, symlen, dlt[a], dlen[a])
    d, dl = bits.or_into(d, dl, dlt[b], dlen[b])
    dlt[b] = d
    dlen[b] = dl
    p, pl = bits.or_into(pts[b], plen[b], pts[a], plen[a])
    pts[b] = p
    plen[b] = pl
    pts[a] = empty
    dlt[a] = empty
    plen[a] = 0
    dlen[a] = 0
    for f in range(len(fams)):
        sets = fams[f]
        s, sl = bits.or_into(sets[b], flen[f, b], sets[a], flen[f, a])
        sets[b] = s
        flen[f, b] = sl
        sets[a] = empty
        flen[f, a] = 0
    for k in range(len(lists)):
        head, tail, nxt = lists[k]
        _append(head, tail, nxt, a, b)


@njit(cache=True)
def _clock():
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def _tick(ms, phase, t0):
    """Add the time since ``t0`` to ``ms[phase]``; returns now."""
    t = _clock()
    ms[phase] += (t - t0) * 1e3
    return t


@njit(cache=True)
def find_ro(parent, v):
    """Representative of ``v`` without path compression (safe while other threads read ``parent``)."""
    while parent[v] != v:
        v = parent[v]
    return v


@njit(cache=True)
def _compress(parent):
    for v in range(len(parent)):
        find(parent, v)


@njit(cache=True)
def _take(v, src, srclen, pts, plen, d, dl, buf):
    """``pts v |= src``; returns ``d ∪ (what was new)``. ``buf``: ``2 * srclen`` words of scratch."""
    p, pl, k = bits.or_fresh(pts[v], plen[v], src, srclen, buf)
    if pl != plen[v]:
        pts[v] = p
        plen[v] = pl
    if k:
        d, dl = bits.or_into(d, dl, buf, k)
    return d, dl


@njit(cache=True)
def _pull(v, parent, level, touched, pts, plen, dlt, dlen, D, Dl, P, Pl, pre, prl, fre, frl, buf, empty):
    """Step 2 for ``v``: ``D[v]`` from ``dlt[v]`` and its predecessors; returns 1 if ``D[v]`` is non-empty.

    Writes only ``pts``, ``dlt``, ``D``, ``touched`` and (emptied when all its
    new edges are forward) ``fre`` of ``v``; reads ``D``/``pts`` of lower levels
    and ``P``. A ``touched`` node (merged through the HCD table last round)
    takes ``P`` of every predecessor: which of its edges were deferred then is
    no longer known.
    """
    d = dlt[v]
    dl = dlen[v]
    dlt[v] = empty
    dlen[v] = 0
    lv = level[v]
    tv = touched[v] != 0
    a = pre[v]
    for i in range(prl[v]):
        word = a[2 * i + 1]
        base = np.int64(a[2 * i]) * 64
        while word:
            u = find_ro(parent, base + np.int64(trailing_zeros(word)))
            word &= word - ONE
            if u == v:
                continue
            forward = level[u] < lv
            if forward and Dl[u] > 0:
                d, dl = _take(v, D[u], Dl[u], pts, plen, d, dl, buf)
            if (tv or not forward) and Pl[u] > 0:
                d, dl = _take(v, P[u], Pl[u], pts, plen, d, dl, buf)
    touched[v] = 0
    if frl[v] > 0:
        f = fre[v]
        deferred = False
        for i in range(frl[v]):
            word = f[2 * i + 1]
            base = np.int64(f[2 * i]) * 64
            while word:
                u = find_ro(parent, base + np.int64(trailing_zeros(word)))
                word &= word - ONE
                if u == v:
                    continue
                if level[u] < lv:
                    if plen[u] > 0:
                        d, dl = _take(v, pts[u], plen[u], pts, plen, d, dl, buf)
                else:
                    deferred = True
        if not deferred:
            fre[v] = empty
            frl[v] = 0
    D[v] = d
    Dl[v] = dl
    return 1 if dl > 0 else 0


@njit(parallel=True, cache=True)
def _pull_level(nodes, parent, level, touched, pts, plen, dlt, dlen, D, Dl, P, Pl, pre, prl, fre, frl, scratch,
                empty):
    """Step 2 for one level, in parallel (the nodes of a level have no forward edges between them)."""
    busy = 0
    for i in prange(len(nodes)):
        if parent[nodes[i]] != nodes[i]:     # merged through the HCD table since the levels were made
            continue
        busy += _pull(nodes[i], parent, level, touched, pts, plen, dlt, dlen, D, Dl, P, Pl, pre, prl, fre, frl,
                      scratch[get_thread_id()], empty)
    return busy


@njit(parallel=True, cache=True)
def _settle(nodes, parent, level, touched, pts, plen, dlt, dlen, P, Pl, pre, prl, scratch):
    """Before the levels change: every node takes ``P`` of its deferred predecessors (all, if touched).

    What is new goes to ``dlt`` (propagated this round). Reads only ``P``;
    each thread writes its own node. Afterwards no edge owes anything from last round.
    """
    for i in prange(len(nodes)):
        v = nodes[i]
        if parent[v] != v:
            continue
        buf = scratch[get_thread_id()]
        d = dlt[v]
        dl = dlen[v]
        lv = level[v]
        tv = touched[v] != 0
        a = pre[v]
        for e in range(prl[v]):
            word = a[2 * e + 1]
            base = np.int64(a[2 * e]) * 64
            while word:
                u = find_ro(parent, base + np.int64(trailing_zeros(word)))
                word &= word - ONE
                if u != v and (tv or level[u] >= lv) and Pl[u] > 0:
                    d, dl = _take(v, P[u], Pl[u], pts, plen, d, dl, buf)
        dlt[v] = d
        dlen[v] = dl
        touched[v] = 0


@njit(parallel=True, cache=True)
def _pull_deferred_new(vs, parent, pts, plen, dlt, dlen, fre, frl, scratch, empty):
    """Step 3: each ``v`` in ``vs`` takes all of ``pts u`` for ``u ∈ fre[v]``, into ``pts v`` and ``dlt v``.

    Two parallel passes, so that no set is read while it is written: gather
    (reads ``pts``), then add (each thread writes its own ``v``).
    """
    m = len(vs)
    gathered = List()
    for _ in range(m):
        gathered.append(empty)
    glen = np.zeros(m, np.int64)
    for i in prange(m):
        v = vs[i]
        acc = empty
        al = 0
        f = fre[v]
        for j in range(frl[v]):
            word = f[2 * j + 1]
            base = np.int64(f[2 * j]) * 64
            while word:
                u = find_ro(parent, base + np.int64(trailing_zeros(word)))
                word &= word - ONE
                if u != v and plen[u] > 0:
                    acc, al = bits.or_into(acc, al, pts[u], plen[u])
        gathered[i] = acc
        glen[i] = al
    for i in prange(m):
        v = vs[i]
        if glen[i] > 0:
            d, dl = _take(v, gathered[i], glen[i], pts, plen, dlt[v], dlen[v], scratch[get_thread_id()])
            dlt[v] = d
            dlen[v] = dl
        fre[v] = empty
        frl[v] = 0


@njit(cache=True)
def _add_pred(t, s, pre, prl, fre, frl):
    """Copy edge ``s -> t`` (representatives), written by t's owner. Returns 1 if it is new."""
    a, al, fresh = bits.add(pre[t], prl[t], s)
    if not fresh:
        return 0
    pre[t] = a
    prl[t] = al
    f, fl, _ = bits.add(fre[t], frl[t], s)
    fre[t] = f
    frl[t] = fl
    return 1


@njit(cache=True)
def _into_target(x, items, lo, hi, n_load, parent, i2p, obj_size, gmask, walk_size, wmask, call_bound, cmask,
                 fimask, load_src, gep_src, gep_off, gep_kind, pts, plen, dlt, dlen, D, Dl, lin, llen, pre, prl, fre, frl, buf, gbuf):
    """Step 5 for the loads and geps whose destination is ``x`` (items ``lo..hi``). Returns new edges."""
    new = 0
    for j in range(lo, hi):
        c = items[j]
        if c < n_load:
            # y --load--> x, z ∈ D[y], z ≠ i2p  ⟹  rep z --copy--> x
            y = find_ro(parent, load_src[c])
            if Dl[y] == 0:
                continue
            dm, dml = bits.without(D[y], Dl[y], i2p)
            k = bits.or_fresh_at(lin, llen, x, dm, dml, buf)
            for i in range(k):
                word = buf[2 * i + 1]
                base = np.int64(buf[2 * i]) * 64
                while word:
                    rz = find_ro(parent, base + np.int64(trailing_zeros(word)))
                    word &= word - ONE
                    if rz != x:
                        new += _add_pred(x, rz, pre, prl, fre, frl)
        else:
            # y --gep,o--> x, z ∈ D[y], o < size(z)  ⟹  z+o ∈ pts(x)
            c -= n_load
            y = find_ro(parent, gep_src[c])
            if Dl[y] == 0:
                continue
            if gep_kind[c] == WALK:     # x = y +w o: the same shift against the walk bound
                gl = _shifted(D[y], Dl[y], gep_off[c], walk_size, wmask, gbuf)
            elif gep_kind[c] == CALL:   # x = y +c o: against the call bound (functions only)
                gl = _shifted(D[y], Dl[y], gep_off[c], call_bound, cmask, gbuf)
            else:
                gl = _shifted(D[y], Dl[y], gep_off[c], obj_size, gmask, gbuf)
            if gl > 0:
                d, dl = _take(x, gbuf, gl, pts, plen, dlt[x], dlen[x], buf)
                dlt[x] = d
                dlen[x] = dl
            if gep_off[c] > 0 and len(fimask) > 0 and gep_kind[c] != CALL:   # field-insensitive objects stay
                gl = _masked(D[y], Dl[y], fimask, gbuf)
                if gl > 0:
                    d, dl = _take(x, gbuf, gl, pts, plen, dlt[x], dlen[x], buf)
                    dlt[x] = d
                    dlen[x] = dl
    return new


@njit(cache=True)
def _from_owner(y, items, lo, hi, parent, i2p, store_dst, D, Dl, sto, stl, out, buf):
    """Step 5 for the stores ``x --store--> y`` of value ``y``: the new edges ``y -> rep z``.

    Records the pointees in ``sto[y]``; returns the targets ``rep z`` as an array.
    """
    k_out = 0
    for j in range(lo, hi):
        x = find_ro(parent, store_dst[items[j]])
        if Dl[x] == 0:
            continue
        dm, dml = bits.without(D[x], Dl[x], i2p)
        k = bits.or_fresh_at(sto, stl, y, dm, dml, buf)
        for i in range(k):
            word = buf[2 * i + 1]
            base = np.int64(buf[2 * i]) * 64
            while word:
                rz = find_ro(parent, base + np.int64(trailing_zeros(word)))
                word &= word - ONE
                if rz == y:
                    continue
                if k_out == len(out):
                    grown = np.empty(2 * len(out) + 8, np.int64)
                    grown[:k_out] = out[:k_out]
                    out = grown
                out[k_out] = rz
                k_out += 1
    return out[:k_out]


@njit(parallel=True, cache=True)
def _apply_complex(tg_ptr, tg_node, tg_item, ow_ptr, ow_node, ow_item, n_load, parent, i2p, obj_size, gmask,
                   walk_size, wmask, call_bound, cmask, fimask, load_src, gep_src, gep_off, gep_kind, store_dst, pts, plen, dlt, dlen, D, Dl,
                   lin, llen, sto, stl,
                   pre, prl, fre, frl, outs, scratch, gscratch):
    """Step 5 in parallel: slots ``< len(tg_node)`` are load/gep targets, the rest store owners.

    ``outs[i]`` receives the store edges of owner slot i. Returns the number of new load edges.
    """
    n_tg = len(tg_node)
    new = 0
    for s in prange(n_tg + len(ow_node)):
        tid = get_thread_id()
        if s < n_tg:
            new += _into_target(tg_node[s], tg_item, tg_ptr[s], tg_ptr[s + 1], n_load, parent, i2p, obj_size,
                                gmask, walk_size, wmask, call_bound, cmask, fimask, load_src, gep_src, gep_off,
                                gep_kind, pts, plen, dlt, dlen,
                                D, Dl, lin, llen,
                                pre, prl, fre, frl, scratch[tid], gscratch[tid])
        else:
            i = s - n_tg
            outs[i] = _from_owner(ow_node[i], ow_item, ow_ptr[i], ow_ptr[i + 1], parent, i2p, store_dst, D, Dl,
                                  sto, stl, outs[i], scratch[tid])
    return new


@njit(parallel=True, cache=True)
def _add_store_edges(t_ptr, t_node, src, pre, prl, fre, frl):
    """Step 5, second half: each target ``t_node[i]`` adds the sources ``src[t_ptr[i]:t_ptr[i+1]]``."""
    new = 0
    for i in prange(len(t_node)):
        t = t_node[i]
        for j in range(t_ptr[i], t_ptr[i + 1]):
            new += _add_pred(t, src[j], pre, prl, fre, frl)
    return new


@njit(parallel=True, cache=True)
def _canonical_preds(parent, pre, prl):
    """Rewrite every representative's ``pre`` with representative ids (drops stale duplicates, self-edges)."""
    ids_of = np.arange(len(parent))     # signed node ids (prange's own index is unsigned)
    for i in prange(len(ids_of)):
        v = ids_of[i]
        if parent[v] != v or prl[v] == 0:
            continue
        a = pre[v]
        ids = np.empty(64 * prl[v], np.int64)
        m = 0
        for e in range(prl[v]):
            word = a[2 * e + 1]
            base = np.int64(a[2 * e]) * 64
            while word:
                u = find_ro(parent, base + np.int64(trailing_zeros(word)))
                word &= word - ONE
                if u != v:
                    ids[m] = u
                    m += 1
        out = np.empty(2 * m, np.uint64)
        k = bits.of_ids(ids[:m], out)
        pre[v] = out
        prl[v] = k


@njit(cache=True)
def _group(keys, parent):
    """Constraint indices grouped by the representative of ``keys[c]``: ``(ptr, nodes, items)``."""
    m = len(keys)
    r = np.empty(m, np.int64)
    for c in range(m):
        r[c] = find_ro(parent, keys[c])
    items = np.argsort(r, kind="mergesort")
    nodes = np.empty(m, np.int64)
    ptr = np.zeros(m + 1, np.int64)
    g = 0
    for j in range(m):
        if j == 0 or r[items[j]] != r[items[j - 1]]:
            nodes[g] = r[items[j]]
            ptr[g] = j
            g += 1
    ptr[g] = m
    return ptr[:g + 1].copy(), nodes[:g].copy(), items


@njit(cache=True)
def _groups(load_dst, gep_dst, store_src, parent):
    """Step 5's work lists after merges: loads and geps by destination, stores by value.

    Returns ``(tg_ptr, tg_node, tg_item, ow_ptr, ow_node, ow_item, outs)``: items
    ``< len(load_dst)`` are loads, the rest geps; ``outs`` one empty edge list per store owner.
    """
    tg_ptr, tg_node, tg_item = _group(np.concatenate((load_dst, gep_dst)), parent)
    ow_ptr, ow_node, ow_item = _group(store_src, parent)
    outs = List()
    for _ in range(len(ow_node)):
        outs.append(np.zeros(0, np.int64))
    return tg_ptr, tg_node, tg_item, ow_ptr, ow_node, ow_item, outs


@njit(cache=True)
def _levels(order, parent, pre, prl):
    """Levels of the representatives in ``order`` (a topological order of the forward edges).

    Returns ``(level int64[n], lev_ptr, lev_nodes)``: nodes grouped by level.
    """
    n = len(parent)
    pos = np.full(n, -1, np.int64)
    reps = np.empty(len(order), np.int64)
    nr = 0
    for v in order:
        if parent[v] == v:
            pos[v] = nr
            reps[nr] = v
            nr += 1
    level = np.zeros(n, np.int64)
    top = 0
    for i in range(nr):
        v = reps[i]
        lv = 0
        a = pre[v]
        for e in range(prl[v]):
            word = a[2 * e + 1]
            base = np.int64(a[2 * e]) * 64
            while word:
                u = find_ro(parent, base + np.int64(trailing_zeros(word)))
                word &= word - ONE
                if pos[u] < i and level[u] + 1 > lv:
                    lv = level[u] + 1
        level[v] = lv
        if lv > top:
            top = lv
    lev_ptr = np.zeros(top + 2, np.int64)
    for i in range(nr):
        lev_ptr[level[reps[i]] + 1] += 1
    for lv in range(top + 1):
        lev_ptr[lv + 1] += lev_ptr[lv]
    fill = lev_ptr[:-1].copy()
    lev_nodes = np.empty(nr, np.int64)
    for i in range(nr):
        lv = level[reps[i]]
        lev_nodes[fill[lv]] = reps[i]
        fill[lv] += 1
    return level, lev_ptr, lev_nodes


@njit(cache=True)
def _clear(sets, lens, empty):
    """Empty every set of a family."""
    for v in range(len(lens)):
        if lens[v] > 0:
            sets[v] = empty
            lens[v] = 0


@njit(cache=True)
def _hcd(hcd_ptr, hcd_target, i2p, parent, touched, pts, plen, dlt, dlen, D, Dl, fams, flen, lists, empty):
    """Step 4 (serial): ``(p, t)``, ``z ∈ D[p]``, ``z ≠ i2p`` ⟹ merge ``rep z`` into ``rep t``.

    A merged node's ``D`` is folded into its ``dlt`` first (its constraints and
    successors see it next round), and the survivor is marked ``touched``
    (see :func:`_pull`). Returns the number of merges.
    """
    merged = 0
    for c in range(len(hcd_ptr)):
        p = find(parent, hcd_ptr[c])
        if Dl[p] == 0:
            continue
        dp = D[p]
        for i in range(Dl[p]):
            word = dp[2 * i + 1]
            base = np.int64(dp[2 * i]) * 64
            while word:
                z = base + np.int64(trailing_zeros(word))
                word &= word - ONE
                if z == i2p:
                    continue
                a = find(parent, z)
                b = find(parent, hcd_target[c])
                if a == b:
                    continue
                for w in (a, b):
                    if Dl[w] > 0:
                        d, dl = bits.or_into(dlt[w], dlen[w], D[w], Dl[w])
                        dlt[w] = d
                        dlen[w] = dl
                        D[w] = empty
                        Dl[w] = 0
                _merge(a, b, parent, pts, plen, dlt, dlen, fams, flen, lists, empty)
                touched[b] = 1
                merged += 1
    return merged


@njit(cache=True)
def _gather_store_edges(ow_node, outs, n):
    """The store edges of step 5 grouped by target: ``(t_ptr, t_node, src)``; empties ``outs``."""
    total = 0
    for i in range(len(outs)):
        total += len(outs[i])
    tgt = np.empty(total, np.int64)
    srcs = np.empty(total, np.int64)
    k = 0
    for i in range(len(outs)):
        o = outs[i]
        for j in range(len(o)):
            tgt[k] = o[j]
            srcs[k] = ow_node[i]
            k += 1
    ptr, nodes, items = _group(tgt, np.arange(n))
    return ptr, nodes, srcs[items]


@njit(cache=True, nogil=True)  # nogil: run off the main thread, interruptibly (andersen_gpu.interrupt)
def solve_wave(n, rep, obj_size, walk_size, call_bound, fi, i2p, addr_dst, addr_src, copy_dst, copy_src,
               load_dst, load_src, store_dst, store_src, gep_dst, gep_src, gep_off, gep_kind,
               hcd_ptr, hcd_target, n_threads):
    """Least solution on representatives, in parallel rounds (see the module docstring).

    Parameters are ``_cpu_core.solve_core``'s, plus ``n_threads`` (numba's
    thread count, for per-thread scratch). Returns ``(parent, pts, plen,
    visits, rounds, merged_scc, merged_hcd, ctr, ms)`` (``visits``: node-rounds
    with a non-empty delta); the set of node v is ``pts[find(parent, v)]``
    (length ``plen``, see :func:`extract`); ``ctr`` as :data:`COUNTER_NAMES`,
    ``ms`` the wall time of each step as :data:`PHASE_NAMES`.
    """
    parent = rep.copy()
    ctr = np.zeros(N_CTR, np.int64)
    words = 2 * (n // 64 + 2)                      # room for any set of node ids
    scratch = np.empty((n_threads, words), np.uint64)
    gscratch = np.empty((n_threads, words), np.uint64)
    gmask = _gep_masks(n, obj_size)
    wmask = _gep_masks(n, walk_size) if (gep_kind == WALK).any() else np.zeros((1, 1), np.uint64)   # walks only
    cmask = _gep_masks(n, call_bound) if (gep_kind == CALL).any() else np.zeros((1, 1), np.uint64)  # calls only
    fimask = _flag_mask(n, fi) if fi.any() else np.zeros(0, np.uint64)   # empty: no field-insensitive object
    empty = np.empty(0, np.uint64)
    pts = empty_sets(n, empty)
    dlt = empty_sets(n, empty)
    D = empty_sets(n, empty)
    P = empty_sets(n, empty)
    pre = empty_sets(n, empty)
    fams = List()
    fams.append(pre)
    fams.append(empty_sets(n, empty))    # lin
    fams.append(empty_sets(n, empty))    # sto
    fams.append(empty_sets(n, empty))    # fre
    lin = fams[1]
    sto = fams[2]
    fre = fams[3]
    flen = np.zeros((4, n), np.int64)
    prl = flen[0]
    llen = flen[1]
    stl = flen[2]
    frl = flen[3]
    plen = np.zeros(n, np.int64)
    dlen = np.zeros(n, np.int64)
    Dl = np.zeros(n, np.int64)
    Pl = np.zeros(n, np.int64)
    no_lists = List()                    # constraints are regrouped after merges (_groups), not moved
    no_lists.append(_linked(n, np.zeros(0, np.int64)))

    seed_addresses(addr_dst, addr_src, pts, plen, dlt, dlen)
    # y --copy--> x: y ∈ pre[x] (pts(y) is all delta still, so no full pull is owed)
    for c in range(len(copy_dst)):
        if copy_src[c] != copy_dst[c]:
            a, al, _ = bits.add(pre[copy_dst[c]], prl[copy_dst[c]], copy_src[c])
            pre[copy_dst[c]] = a
            prl[copy_dst[c]] = al

    n_load = len(load_dst)
    rounds = 0
    visits = 0
    merged_scc = 0
    merged_hcd = 0
    scc_edges = 0
    order = np.zeros(0, np.int64)
    touched = np.zeros(n, np.uint8)
    tg_ptr, tg_node, tg_item, ow_ptr, ow_node, ow_item, outs = _groups(load_dst, gep_dst, store_src, parent)
    level = np.zeros(n, np.int64)
    lev_ptr = lev_nodes = np.zeros(0, np.int64)
    ms = np.zeros(N_PHASE)
    t = _clock()
    while True:
        busy = False
        for v in range(n):
            if parent[v] == v and (dlen[v] > 0 or Pl[v] > 0 or frl[v] > 0):
                busy = True
                break
        if not busy:
            break
        rounds += 1
        t = _tick(ms, T_OTHER, t)
        n_edges = len(copy_dst) + ctr[W_NEW_EDGES]
        scc = rounds == 1 or (n_edges - scc_edges) * SCC_GROWTH > n_edges
        if scc:
            # the forward/deferred split is about to change: deliver what deferred edges owe first
            if rounds > 1:
                _settle(lev_nodes, parent, level, touched, pts, plen, dlt, dlen, P, Pl, pre, prl, scratch)
            _clear(P, Pl, empty)
            t = _tick(ms, T_SETTLE, t)
            emitted, m_from, m_into = scc_order(n, parent, pre, prl)
            for i in range(len(m_from)):
                _merge(m_from[i], m_into[i], parent, pts, plen, dlt, dlen, fams, flen, no_lists, empty)
            order = emitted[::-1].copy()   # Tarjan over pre[]: sources of the copy graph first
            merged_scc += len(m_from)
            scc_edges = n_edges
            ctr[W_SCC] += 1
            _compress(parent)
            t = _tick(ms, T_SCC, t)
            _canonical_preds(parent, pre, prl)
            t = _tick(ms, T_CANON, t)
            level, lev_ptr, lev_nodes = _levels(order, parent, pre, prl)
            t = _tick(ms, T_LEVELS, t)
            tg_ptr, tg_node, tg_item, ow_ptr, ow_node, ow_item, outs = _groups(load_dst, gep_dst, store_src, parent)

        t = _tick(ms, T_GROUPS, t)
        # 2. copy edges, level by level
        n_lev = len(lev_ptr) - 1
        ctr[W_LEVELS] += n_lev
        for lv in range(n_lev):
            lo, hi = lev_ptr[lv], lev_ptr[lv + 1]
            if hi - lo < SERIAL_BELOW:
                for i in range(lo, hi):
                    if parent[lev_nodes[i]] == lev_nodes[i]:
                        visits += _pull(lev_nodes[i], parent, level, touched, pts, plen, dlt, dlen, D, Dl, P, Pl,
                                        pre, prl, fre, frl, scratch[0], empty)
            else:
                ctr[W_PAR_LEVELS] += 1
                visits += _pull_level(lev_nodes[lo:hi], parent, level, touched, pts, plen, dlt, dlen, D, Dl, P,
                                      Pl, pre, prl, fre, frl, scratch, empty)
        t = _tick(ms, T_COPY, t)
        # 3. new deferred edges carry their whole source set
        nf = 0
        for v in lev_nodes:
            if frl[v] > 0:
                nf += 1
        if nf > 0:
            vs = np.empty(nf, np.int64)
            nf = 0
            for v in lev_nodes:
                if frl[v] > 0:
                    vs[nf] = v
                    nf += 1
            ctr[W_BACK_FRESH] += nf
            _pull_deferred_new(vs, parent, pts, plen, dlt, dlen, fre, frl, scratch, empty)
        t = _tick(ms, T_DEFERRED, t)
        # 4. HCD merges
        if len(hcd_ptr) > 0:
            m = _hcd(hcd_ptr, hcd_target, i2p, parent, touched, pts, plen, dlt, dlen, D, Dl, fams, flen, no_lists,
                     empty)
            if m > 0:
                merged_hcd += m
                ctr[W_TOUCHED] += 1
                _compress(parent)
                tg_ptr, tg_node, tg_item, ow_ptr, ow_node, ow_item, outs = _groups(load_dst, gep_dst, store_src,
                                                                                   parent)
        t = _tick(ms, T_HCD, t)
        # 5. loads, geps and stores on this round's deltas
        ctr[W_NEW_EDGES] += _apply_complex(tg_ptr, tg_node, tg_item, ow_ptr, ow_node, ow_item, n_load, parent, i2p,
                                           obj_size, gmask, walk_size, wmask, call_bound, cmask, fimask, load_src,
                                           gep_src, gep_off, gep_kind,
                                           store_dst, pts, plen, dlt,
                                           dlen, D, Dl, lin, llen, sto, stl, pre, prl, fre, frl, outs, scratch,
                                           gscratch)
        t = _tick(ms, T_COMPLEX, t)
        t_ptr, t_node, srcs = _gather_store_edges(ow_node, outs, n)
        ctr[W_STORE_CAND] += len(srcs)
        if len(srcs) > 0:
            ctr[W_NEW_EDGES] += _add_store_edges(t_ptr, t_node, srcs, pre, prl, fre, frl)
        for i in range(len(outs)):
            outs[i] = outs[i][:0]
        t = _tick(ms, T_STORE_EDGES, t)
        # 6. this round's deltas become last round's
        D, P = P, D
        Dl, Pl = Pl, Dl
    _tick(ms, T_OTHER, t)
    return parent, pts, plen, visits, rounds, merged_scc, merged_hcd, ctr, ms


@njit(cache=True)
def extract(n, parent, pts, plen):
    """Distinct sets of the representatives, expanded.

    Returns ``(node_set int32[n], set_indptr int64[k+1], set_indices int32[...])``;
    set 0 is the empty set (present even if unused).
    """
    reps = np.empty(n, np.int64)
    nr = 0
    for v in range(n):
        if parent[v] == v and plen[v] > 0:
            reps[nr] = v
            nr += 1
    reps = reps[:nr]
    h = np.empty(nr, np.uint64)
    for i in range(nr):
        h[i] = bits.set_hash(pts[reps[i]], plen[reps[i]])
    order = np.argsort(h, kind="mergesort")
    rep_set = np.zeros(n, np.int64)
    firsts = np.empty(nr + 1, np.int64)   # representative node of each distinct set
    nsets = 1
    i = 0
    while i < nr:
        j = i
        while j < nr and h[order[j]] == h[order[i]]:
            j += 1
        group_start = nsets
        for k in range(i, j):
            r = reps[order[k]]
            found = -1
            for s in range(group_start, nsets):
                q = firsts[s]
                if bits.equal(pts[r], plen[r], pts[q], plen[q]):
                    found = s
                    break
            if found < 0:
                firsts[nsets] = r
                found = nsets
                nsets += 1
            rep_set[r] = found
        i = j
    indptr = np.zeros(nsets + 1, np.int64)
    for s in range(1, nsets):
        q = firsts[s]
        indptr[s + 1] = indptr[s] + bits.count(pts[q], plen[q])
    indices = np.empty(indptr[nsets], np.int32)
    for s in range(1, nsets):
        q = firsts[s]
        bits.ids_into(pts[q], plen[q], indices, indptr[s])
    node_set = np.empty(n, np.int32)
    for v in range(n):
        node_set[v] = rep_set[find(parent, v)]
    return node_set, indptr, indices
