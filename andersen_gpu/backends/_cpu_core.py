"""The CPU solver's compiled core: wave-ordered worklist with difference propagation on shared sets.

Points-to sets are interned in a set table (:mod:`._cpu_sets`): a node holds the
id of its set, nodes with equal sets share one copy, and unions of two sets are
memoized. State per node ``v`` (meaningful while ``v`` is a representative):

* ``pts[v]``  -- id of its points-to set;
* ``prop[v]`` -- id of the part of ``pts[v]`` already pushed through v's
  constraints and copy edges (``prop[v] ⊆ pts[v]``; ``Δpts(v) = pts[v] − prop[v]``,
  as SVF's persistent difference propagation keeps it);
* ``suc[v]``  -- copy successors, as a bit-set of node ids (stale ids resolve via ``find``);
* ``lin[x]``  -- the pointees z whose load-made edge ``rep z --copy--> x`` exists already;
* ``sto[y]``  -- the pointees z whose store-made edge ``y --copy--> rep z`` exists already;
* a pending list of load-made edges ``v -> x`` not yet in ``suc[v]`` (each already
  carried pts(v)); it is merged into ``suc[v]`` before v's visit or merge, at
  the start of each round, and whenever the lists hold n + 16 edges;
* linked lists of the load / store / gep / HCD constraints whose pointer is v.

Invariant: for every copy edge ``v -> w``, ``prop[v] ⊆ pts[w]``. So pushing
``Δpts(v)`` along an edge gives ``pts[w] ∪ pts[v]``, and that union is what the
table memoizes (nodes with equal sets pushing into nodes with equal sets cost
one union); a node whose set equals its successor's costs nothing.

Each round (1) finds strongly connected components of the copy graph
(Tarjan) and merges them -- only once the graph has grown by 1 % since the
last pass; in between the last order is reused -- and rewrites successor sets
with representatives, and (2) visits the representatives with a delta in that
topological order (a min-heap by position: a node that gets a delta from one
earlier in the order is visited in the same round, one that gets it from a
later node waits for the next round), pushing it through v's constraints:

* ``y --load--> x``,  ``z ∈ Δpts(y)``, ``z ≠ i2p``  ⟹  ``rep z --copy--> x``
* ``x --store--> y``, ``z ∈ Δpts(x)``, ``z ≠ i2p``  ⟹  ``y --copy--> rep z``
* ``y --gep,o--> x``, ``z ∈ Δpts(y)``, ``o < size z``  ⟹  ``z+o ∈ pts(x)``
* ``y --copy--> x``  ⟹  ``Δpts(y) ⊆ pts(x)``; a new copy edge carries all of pts(y) at once.
* HCD pair (p, t), ``z ∈ Δpts(p)``, ``z ≠ i2p``  ⟹  merge ``rep z`` with ``rep t``.

Merging a into b gives ``pts = pts a ∪ pts b`` and ``prop = prop a ∩ prop b``
(an id is done only if it was pushed through the constraints of both).

Loads and stores are applied a whole delta at a time, with word-wide set
operations: ``Δpts(y) − lin[x]`` are the new load edges into x, and
``Δpts(x) − sto[y]`` the new store edges out of y. Only new edges cost per-id
work. Geps build ``{z+o}`` for the delta and push it once.

Rounds repeat until no representative has a delta (wave propagation, Pereira and
Berlin, CGO 2009, with the HCD table of Hardekopf and Lin, CGO 2007).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.typed import List

from . import _cpu_bits as bits
from . import _cpu_sets as sets
from ._cpu_sets import EMPTY

ONE = np.uint64(1)

# work counters (solve_core's last result), see COUNTER_NAMES
COUNTER_NAMES = ("pushes", "pushes that changed", "edge candidates", "new edges", "copy pushes", "delta words",
                 "duplicate copy targets", "scc passes", "pending edges merged when full")
(C_PUSH, C_PUSH_CHANGED, C_EDGE_TRY, C_EDGE_NEW, C_COPY_PUSH, C_DELTA_W, C_COPY_DUP, C_SCC, C_PEND_FULL) = range(9)
N_CTR = 9
# an SCC pass runs when the copy graph grew by more than 1/SCC_GROWTH of its edges
SCC_GROWTH = 100


#: ``gep_kind`` of a gep column entry: a gep, a walk gep, a call gep (``ConstraintSet``)
GEP, WALK, CALL = 0, 1, 2

@njit(cache=True)
def find(parent, v):
    r = v
    while parent[r] != r:
        r = parent[r]
    while parent[v] != r:
        nxt = parent[v]
        parent[v] = r
        v = nxt
    return r


@njit(cache=True)
def empty_sets(n, empty):
    """A typed list of ``n`` references to the shared zero-capacity set ``empty``."""
    sets = List()
    for _ in range(n):
        sets.append(empty)
    return sets


@njit(cache=True)
def _linked(n, owners):
    """Per-owner singly linked lists over constraint indices: (head, tail, nxt)."""
    head = np.full(n, -1, np.int64)
    tail = np.full(n, -1, np.int64)
    nxt = np.full(len(owners), -1, np.int64)
    for c in range(len(owners)):
        o = owners[c]
        if head[o] < 0:
            head[o] = c
        else:
            nxt[tail[o]] = c
        tail[o] = c
    return head, tail, nxt


@njit(cache=True)
def _append(head, tail, nxt, a, b):
    """Move a's list to the end of b's."""
    if head[a] < 0:
        return
    if head[b] < 0:
        head[b] = head[a]
    else:
        nxt[tail[b]] = head[a]
    tail[b] = tail[a]
    head[a] = -1
    tail[a] = -1


@njit(cache=True)
def _merge(t, a, b, parent, pts, prop, fams, flen, lists, empty, wq):
    """Merge representative ``a`` into representative ``b``.

    ``pts b = pts a ∪ pts b``, ``prop b = prop a ∩ prop b``; a's sets are
    released. Every per-node bit-set family ``fams[f]`` (lengths in row
    ``flen[f]``: successors, pointees already wired, ...; ids in them resolve
    through ``find``) is united into ``b``, and every linked constraint list
    ``lists[k]`` of ``a`` moves to ``b``. ``b`` joins the work queue ``wq`` when it has a delta.
    """
    parent[a] = b
    sets.assign(t, pts, b, sets.union(t, pts[a], pts[b]))
    sets.assign(t, prop, b, sets.intersect(t, prop[a], prop[b]))
    sets.assign(t, pts, a, EMPTY)
    sets.assign(t, prop, a, EMPTY)
    if pts[b] != prop[b]:
        _enqueue(wq, b)
    for f in range(len(fams)):
        fam = fams[f]
        if flen[f, a] == 0:
            continue
        old = fam[b]
        s, sl = bits.or_into(old, flen[f, b], fam[a], flen[f, a])
        if len(s) != len(old):
            fam[b] = s
        flen[f, b] = sl
        fam[a] = empty
        flen[f, a] = 0
    for k in range(len(lists)):
        head, tail, nxt = lists[k]
        _append(head, tail, nxt, a, b)


@njit(cache=True, inline="always")
def _enqueue(wq, v):
    """Note that ``v`` has a delta: ``wq[0]`` counts the nodes in ``wq[1:]``; ``wq[n + 1 + v]`` is 1
    while ``v`` waits (in this list or in the round's queue)."""
    n = (len(wq) - 1) // 2
    if wq[n + 1 + v] == 0:
        wq[n + 1 + v] = 1
        wq[0] += 1
        wq[wq[0]] = v


@njit(cache=True, inline="always")
def _take(t, x, c, pts, ctr, wq):
    """``pts(x) = c`` where ``c ⊇ pts(x)`` is the result of a push into x. True if it changed."""
    ctr[C_PUSH] += 1
    if c == pts[x]:
        return False
    ctr[C_PUSH_CHANGED] += 1
    sets.assign(t, pts, x, c)
    _enqueue(wq, x)
    return True


@njit(cache=True)
def _gep_masks(n, obj_size):
    """``m[o, w]``: bit t set iff ``o < obj_size[64 w + t]``, for offsets ``o < 64``."""
    m = np.zeros((64, n // 64 + 1), np.uint64)
    for z in range(n):
        s = min(obj_size[z], 64)
        w = z >> 6
        bit = ONE << np.uint64(z & 63)
        for o in range(s):
            m[o, w] |= bit
    return m


@njit(cache=True)
def _flag_mask(n, flag):
    """``m[w]``: bit t set iff ``flag[64 w + t]`` is non-zero."""
    m = np.zeros(n // 64 + 1, np.uint64)
    for z in range(n):
        if flag[z]:
            m[z >> 6] |= ONE << np.uint64(z & 63)
    return m


@njit(cache=True)
def _emit(out, k, base, word):
    """Append ``(base, word)`` to the ascending set ``out[:2k]``; returns the new k."""
    if k > 0 and out[2 * k - 2] == base:
        out[2 * k - 1] |= word
        return k
    out[2 * k] = base
    out[2 * k + 1] = word
    return k + 1


@njit(cache=True)
def _masked(D, dl, mask, out):
    """``D`` restricted to the bits of ``mask`` (a dense word per base) into ``out``; returns its length."""
    k = 0
    for i in range(dl):
        m = D[2 * i + 1] & mask[D[2 * i]]
        if m:
            out[2 * k] = D[2 * i]
            out[2 * k + 1] = m
            k += 1
    return k


@njit(cache=True)
def _shifted(D, dl, o, obj_size, masks, out):
    """``{z + o : z ∈ D, o < size(z)}`` into ``out`` as a set; returns its length in elements.

    Offsets below 64 go a word at a time: mask the ids whose object is big
    enough, shift the word by o (spilling into the next word); larger offsets go
    id by id over the objects of 64 fields or more (``masks[63]``).
    """
    k = 0
    if o < 64:
        uo = np.uint64(o)
        for i in range(dl):
            base = D[2 * i]
            m = D[2 * i + 1] & masks[o, base]
            if m == 0:
                continue
            if o == 0:
                k = _emit(out, k, base, m)
                continue
            lo = m << uo
            hi = m >> (np.uint64(64) - uo)
            if lo:
                k = _emit(out, k, base, lo)
            if hi:
                k = _emit(out, k, base + ONE, hi)
        return k
    for i in range(dl):
        word = D[2 * i + 1] & masks[63, D[2 * i]]     # only objects of 64 fields or more
        base = np.int64(D[2 * i]) * 64
        while word:
            z = base + np.int64(trailing_zeros(word))
            word &= word - ONE
            if o < obj_size[z]:
                b, bit = bits.element_of(z + o)
                k = _emit(out, k, b, bit)
    return k


@njit(cache=True, inline="always")
def _edge_push(t, a, x, pts, ctr, wq):
    """A new copy edge ``a -> x`` carries all of pts(a) at once."""
    ctr[C_EDGE_NEW] += 1
    if pts[a] != EMPTY:
        _take(t, x, sets.union(t, pts[x], pts[a]), pts, ctr, wq)


@njit(cache=True)
def seed_addresses(t, addr_dst, addr_src, pts, buf):
    """x = &y  ⟹  y ∈ pts(x) (int64[m] columns; ``pts`` all EMPTY before). ``buf``: room for any set."""
    if len(addr_dst) == 0:
        return
    n = np.int64(len(pts))
    order = np.argsort(addr_dst * n + addr_src)
    k = 0
    for j in range(len(order)):
        c = order[j]
        x = addr_dst[c]
        base, bit = bits.element_of(addr_src[c])
        if k > 0 and buf[2 * k - 2] == base:
            buf[2 * k - 1] |= bit
        else:
            buf[2 * k] = base
            buf[2 * k + 1] = bit
            k += 1
        if j + 1 == len(order) or addr_dst[order[j + 1]] != x:
            sets.assign(t, pts, x, sets.intern(t, buf, k))
            k = 0


@njit(cache=True)
def _tarjan_enter(v, counter, sp, fp, index, low, onstack, stack, fr_v, fr_e, fr_b):
    """Tarjan's visit of ``v``: number it, push it on the SCC stack and push its frame.

    A frame is (node, element index, remaining bits of that element) of the
    node's successor bit-set, starting before the first element. Returns the
    updated ``(counter, sp, fp)``.
    """
    index[v] = low[v] = counter
    stack[sp] = v
    onstack[v] = True
    fr_v[fp] = v
    fr_e[fp] = -1
    fr_b[fp] = 0
    return counter + 1, sp + 1, fp + 1


@njit(cache=True)
def scc_order(n, parent, suc, slen):
    """Tarjan's SCC over the graph ``v -> suc[v]`` of representatives (ids in ``suc`` resolve via ``find``).

    Returns ``(order, merge_from, merge_into)``: the representatives in
    topological order of that graph (sources first; each SCC named by its
    root), and the merges that collapse every SCC into its root (``merge_from[i]``
    into ``merge_into[i]``, in that order). Nothing is merged here.
    """
    index = np.full(n, -1, np.int64)
    low = np.zeros(n, np.int64)
    onstack = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    sp = 0
    fr_v = np.empty(n, np.int64)
    fr_e = np.empty(n, np.int64)
    fr_b = np.empty(n, np.uint64)
    fp = 0
    emitted = np.empty(n, np.int64)
    ne = 0
    m_from = np.empty(n, np.int64)
    m_into = np.empty(n, np.int64)
    nm = 0
    counter = 0
    for s in range(n):
        if parent[s] != s or index[s] >= 0:
            continue
        counter, sp, fp = _tarjan_enter(s, counter, sp, fp, index, low, onstack, stack, fr_v, fr_e, fr_b)
        while fp > 0:
            v = fr_v[fp - 1]
            e = fr_e[fp - 1]
            b = fr_b[fp - 1]
            sv = suc[v]
            descended = False
            while True:
                while b == 0:
                    e += 1
                    if e >= slen[v]:
                        break
                    b = sv[2 * e + 1]
                if b == 0:
                    break
                w = find(parent, np.int64(sv[2 * e]) * 64 + np.int64(trailing_zeros(b)))
                b &= b - ONE
                if w == v:
                    continue
                if index[w] < 0:
                    fr_e[fp - 1] = e
                    fr_b[fp - 1] = b
                    counter, sp, fp = _tarjan_enter(w, counter, sp, fp, index, low, onstack, stack,
                                                    fr_v, fr_e, fr_b)
                    descended = True
                    break
                if onstack[w] and index[w] < low[v]:
                    low[v] = index[w]
            if descended:
                continue
            fp -= 1
            if low[v] == index[v]:
                # pop the SCC rooted at v
                while True:
                    sp -= 1
                    w = stack[sp]
                    onstack[w] = False
                    if w == v:
                        break
                    m_from[nm] = w
                    m_into[nm] = v
                    nm += 1
                emitted[ne] = v
                ne += 1
            if fp > 0:
                u = fr_v[fp - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
    order = emitted[:ne][::-1].copy()
    return order, m_from[:nm].copy(), m_into[:nm].copy()


@njit(cache=True)
def _canonical(parent, suc, slen, ids):
    """Rewrite every representative's successor set with representatives (no stale ids, no self-edge).

    Only sets that hold a stale id are rebuilt. ``ids``: int64 scratch of n entries.
    """
    for v in range(len(parent)):
        if parent[v] != v or slen[v] == 0:
            continue
        a = suc[v]
        stale = False
        m = 0
        for e in range(slen[v]):
            word = a[2 * e + 1]
            base = np.int64(a[2 * e]) * 64
            while word:
                u = base + np.int64(trailing_zeros(word))
                word &= word - ONE
                r = find(parent, u)
                if r != u or r == v:
                    stale = True
                if r != v:
                    ids[m] = r
                    m += 1
        if not stale:
            continue
        out = np.empty(2 * m, np.uint64)
        k = bits.of_ids(ids[:m], out)
        suc[v] = out
        slen[v] = k


@njit(cache=True)
def _collapse(t, n, parent, pts, prop, fams, flen, lists, empty, ids, wq):
    """One SCC pass over the copy graph (``fams[0]``): merge every cycle, then drop the
    successor ids the merges made stale. Returns ``(order, merged)``."""
    order, m_from, m_into = scc_order(n, parent, fams[0], flen[0])
    for i in range(len(m_from)):
        _merge(t, m_from[i], m_into[i], parent, pts, prop, fams, flen, lists, empty, wq)
    _canonical(parent, fams[0], flen[0], ids)
    return order, len(m_from)


@njit(cache=True)
def _flush(v, p_head, pend_x, pend_nx, suc, slen, ids, buf, out, ctr):
    """Move the pending load-made edges ``v -> x`` (a list from ``p_head[v]`` through
    ``pend_x``/``pend_nx``) into ``suc[v]`` in one merge; counts the new ones."""
    c = p_head[v]
    if c < 0:
        return
    m = 0
    while c >= 0:
        if m == len(ids):
            grown = np.empty(2 * m, np.int64)
            grown[:m] = ids[:m]
            ids = grown
        ids[m] = pend_x[c]
        m += 1
        c = pend_nx[c]
    p_head[v] = -1
    k = bits.or_fresh_at(suc, slen, v, buf, bits.of_ids(ids[:m], buf), out)
    for i in range(k):
        word = out[2 * i + 1]
        while word:
            word &= word - ONE
            ctr[C_EDGE_NEW] += 1


@njit(cache=True)
def _flush_all(p_nodes, n_pn, p_head, pend_x, pend_nx, suc, slen, ids, buf, out, ctr):
    """:func:`_flush` every node listed in ``p_nodes[:n_pn]``."""
    for i in range(n_pn):
        _flush(p_nodes[i], p_head, pend_x, pend_nx, suc, slen, ids, buf, out, ctr)


@njit(cache=True)
def _heap_push(heap, hn, key, v):
    """Push ``v`` onto the binary min-heap ``heap[:hn]`` ordered by ``key[v]``; returns the new size."""
    i = hn
    heap[i] = v
    while i > 0:
        p = (i - 1) >> 1
        if key[heap[p]] <= key[v]:
            break
        heap[i] = heap[p]
        i = p
    heap[i] = v
    return hn + 1


@njit(cache=True)
def _heap_pop(heap, hn, key):
    """Remove the smallest element of ``heap[:hn]``; returns ``(v, new size)``."""
    top = heap[0]
    hn -= 1
    last = heap[hn]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= hn:
            break
        if c + 1 < hn and key[heap[c + 1]] < key[heap[c]]:
            c += 1
        if key[last] <= key[heap[c]]:
            break
        heap[i] = heap[c]
        i = c
    if hn > 0:
        heap[i] = last
    return top, hn


@njit(cache=True)
def _schedule(wq, heap, hn, pos, at, later, nl):
    """Empty ``wq``: nodes after position ``at`` go into the round's heap, the others to ``later``
    (the next round). Returns the sizes ``(hn, nl)``."""
    for i in range(1, wq[0] + 1):
        w = wq[i]
        if pos[w] > at:
            hn = _heap_push(heap, hn, pos, w)
        else:
            later[nl] = w
            nl += 1
    wq[0] = 0
    return hn, nl


@njit(cache=True, nogil=True)  # nogil: run off the main thread, interruptibly (andersen_gpu.interrupt)
def solve_core(n, rep, obj_size, walk_size, call_bound, fi, i2p, addr_dst, addr_src, copy_dst, copy_src,
               load_dst, load_src, store_dst, store_src, gep_dst, gep_src, gep_off, gep_kind,
               hcd_ptr, hcd_target):
    """Least solution on representatives.

    Parameters are the constraint columns (int64) with pointer-side ids already
    mapped through ``rep``; the gep columns hold the walk geps and the call geps too,
    ``gep_kind`` (int8) :data:`GEP` 0, :data:`WALK` 1 or :data:`CALL` 2, whose bound is
    ``walk_size`` (``ConstraintSet.walk_size``) for a walk and ``call_bound``
    (``ConstraintSet.call_bound``) for a call where a gep's is ``obj_size`` (the gep bound); ``fi`` (int64[n]) is non-zero at the
    field-insensitive objects, which every gep and walk keeps as they are. Returns ``(parent, pts, table, visits, rounds,
    merged_scc, merged_hcd, ctr)``: the set of node v is set ``pts[find(parent,
    v)]`` of ``table`` (a :class:`._cpu_sets.SetTable`); ``ctr`` as :data:`COUNTER_NAMES`.
    """
    parent = rep.copy()
    ctr = np.zeros(N_CTR, np.int64)
    t = sets.new_table(n)
    gbuf = np.empty(2 * (n // 64 + 2), np.uint64)     # room for any set of node ids
    gmask = _gep_masks(n, obj_size)
    wmask = _gep_masks(n, walk_size) if (gep_kind == WALK).any() else np.zeros((1, 1), np.uint64)   # walks only
    cmask = _gep_masks(n, call_bound) if (gep_kind == CALL).any() else np.zeros((1, 1), np.uint64)  # calls only
    fimask = _flag_mask(n, fi) if fi.any() else np.zeros(0, np.uint64)   # empty: no field-insensitive object
    has_fi = len(fimask) > 0
    fbuf = np.empty(2 * (n // 64 + 2), np.uint64)
    d1buf = np.empty(2 * (n // 64 + 2), np.uint64)
    d64buf = np.empty(2 * (n // 64 + 2), np.uint64)
    dfibuf = np.empty(2 * (n // 64 + 2), np.uint64)
    seen = np.full(n, -1, np.int64)    # visit number of the last copy push into each node
    mark = np.full(n, -1, np.int64)    # load/store constraint (token) that last made an edge at each node
    tok = 0
    scratch_ids = np.empty(n, np.int64)
    scc_edges = 0
    order = np.zeros(0, np.int64)
    empty = np.empty(0, np.uint64)
    pts = np.zeros(n, np.int64)        # set ids, all EMPTY
    prop = np.zeros(n, np.int64)
    suc = empty_sets(n, empty)
    lin = empty_sets(n, empty)
    sto = empty_sets(n, empty)
    fams = List()
    fams.append(suc)
    fams.append(lin)
    fams.append(sto)
    flen = np.zeros((3, n), np.int64)
    slen = flen[0]
    llen = flen[1]
    stl = flen[2]
    lists = List()
    lists.append(_linked(n, load_src))
    lists.append(_linked(n, store_dst))
    lists.append(_linked(n, gep_src))
    lists.append(_linked(n, hcd_ptr))
    l_head, _, l_next = lists[0]
    s_head, _, s_next = lists[1]
    g_head, _, g_next = lists[2]
    h_head, _, h_next = lists[3]

    seed_addresses(t, addr_dst, addr_src, pts, gbuf)
    # every prop is EMPTY: the initial edges owe nothing yet (the first visits push whole sets)
    for c in range(len(copy_dst)):
        a, x = copy_src[c], copy_dst[c]
        if a != x:
            bits.add_at(suc, slen, a, x)

    visits = 0
    rounds = 0
    merged_scc = 0
    merged_hcd = 0
    # Work queue: wq (see _enqueue) collects the nodes that got a delta; a round visits them
    # in topological order (a min-heap by position in ``order``), and a node that gets a
    # delta during the round is visited in it too if it comes later in the order (else it
    # waits in ``later`` for the next round).
    wq = np.zeros(2 * n + 1, np.int64)
    inq = wq[n + 1:]
    for v in range(n):
        if pts[v] != prop[v]:
            _enqueue(wq, v)
    # pending load-made edges (see the load rule), listed per source node
    pend_x = np.empty(n + 16, np.int64)      # when full, every list is merged at once
    pend_nx = np.empty(n + 16, np.int64)
    dbuf = np.empty(2 * (n // 64 + 2), np.uint64)   # the delta being pushed
    pbuf = np.empty(2 * (n // 64 + 2), np.uint64)   # the merge's own buffers: it may run inside the load rule
    pout = np.empty(2 * (n // 64 + 2), np.uint64)
    n_pend = 0
    p_head = np.full(n, -1, np.int64)
    p_listed = np.zeros(n, np.bool_)
    p_nodes = np.empty(n, np.int64)
    n_pn = 0
    heap = np.empty(n, np.int64)
    later = np.empty(n, np.int64)
    nl = 0
    pos = np.zeros(n, np.int64)
    while wq[0] + nl > 0:
        rounds += 1
        _flush_all(p_nodes, n_pn, p_head, pend_x, pend_nx, suc, slen, scratch_ids, pbuf, pout, ctr)
        p_listed[p_nodes[:n_pn]] = False
        n_pn = 0
        n_pend = 0
        # A new cycle needs a new edge: look again only once the copy graph has grown by
        # SCC_GROWTH since the last pass. Meanwhile the old order still lists every
        # representative (merges only remove some), so the rounds stay exact.
        n_edges = len(copy_dst) + ctr[C_EDGE_NEW]
        if rounds == 1 or (n_edges - scc_edges) * SCC_GROWTH > n_edges:
            order, m = _collapse(t, n, parent, pts, prop, fams, flen, lists, empty, scratch_ids, wq)
            merged_scc += m
            scc_edges = n_edges
            ctr[C_SCC] += 1
            for i in range(len(order)):
                pos[order[i]] = i
        hn = 0
        for i in range(nl):
            hn = _heap_push(heap, hn, pos, later[i])
        nl = 0
        hn, nl = _schedule(wq, heap, hn, pos, -1, later, nl)
        while hn > 0:
            v, hn = _heap_pop(heap, hn, pos)
            inq[v] = 0
            if parent[v] != v or pts[v] == prop[v]:
                continue
            visits += 1
            if p_head[v] >= 0:
                _flush(v, p_head, pend_x, pend_nx, suc, slen, scratch_ids, pbuf, pout, ctr)
            P = pts[v]
            Q = prop[v]
            D = sets.diff(t, P, Q)
            sets.incref(t, P)                  # both stay live for the visit
            sets.incref(t, D)
            dl = sets.length(t, D)
            Dw = dbuf[:2 * dl]                 # a copy: the table moves sets when it repacks
            Dw[:] = sets.words(t, D)
            ctr[C_DELTA_W] += dl
            # HCD: every object entering pts(p) shares the set of t.
            c = h_head[v]
            while c >= 0:
                tg = hcd_target[c]
                for i in range(dl):
                    word = Dw[2 * i + 1]
                    while word:
                        z = np.int64(Dw[2 * i]) * 64 + np.int64(trailing_zeros(word))
                        word &= word - ONE
                        if z == i2p:
                            continue
                        a = find(parent, z)
                        b = find(parent, tg)
                        if a != b:
                            if p_head[a] >= 0:
                                _flush(a, p_head, pend_x, pend_nx, suc, slen, scratch_ids, pbuf, pout, ctr)
                            if p_head[b] >= 0:
                                _flush(b, p_head, pend_x, pend_nx, suc, slen, scratch_ids, pbuf, pout, ctr)
                            _merge(t, a, b, parent, pts, prop, fams, flen, lists, empty, wq)
                            merged_hcd += 1
                c = h_next[c]
            if parent[v] != v:
                # v itself was merged: D is still outside its representative's prop (an intersection)
                sets.decref(t, D)
                sets.decref(t, P)
                hn, nl = _schedule(wq, heap, hn, pos, pos[v], later, nl)
                continue
            # prop[v] ∪ D is now pushed everywhere. Only when no merge lowered prop[v] does
            # every copy edge of v satisfy Q ⊆ pts(w), which join() relies on.
            exact = prop[v] == Q
            if exact:
                sets.assign(t, prop, v, P)
            else:
                sets.assign(t, prop, v, sets.union(t, prop[v], D))
            if l_head[v] >= 0 or s_head[v] >= 0:
                # loads and stores ignore the int-to-pointer object
                Dm, dml = bits.without(Dw, dl, i2p)
            # y --load--> x, z ∈ Δpts(y), z ≠ i2p  ⟹  rep z --copy--> x
            # (lin[x]: the pointees z whose edge z --copy--> x exists already; a new edge
            # carries pts(rep z) at once and waits in rep z's pending list, merged into
            # suc[rep z] before rep z is visited: one merge, not one insertion each)
            c = l_head[v]
            while c >= 0:
                x = find(parent, load_dst[c])
                tok += 1
                k = bits.or_fresh_at(lin, llen, x, Dm, dml, fbuf)
                for i in range(k):
                    word = fbuf[2 * i + 1]
                    while word:
                        z = np.int64(fbuf[2 * i]) * 64 + np.int64(trailing_zeros(word))
                        word &= word - ONE
                        rz = find(parent, z)
                        if mark[rz] == tok or rz == x:      # many z may share one representative
                            continue
                        mark[rz] = tok
                        ctr[C_EDGE_TRY] += 1
                        if bits.contains(suc[rz], slen[rz], x):
                            continue
                        if n_pend == len(pend_x):       # full: everything pending moves now
                            ctr[C_PEND_FULL] += 1
                            _flush_all(p_nodes, n_pn, p_head, pend_x, pend_nx, suc, slen, scratch_ids, pbuf,
                                       pout, ctr)
                            p_listed[p_nodes[:n_pn]] = False
                            n_pn = 0
                            n_pend = 0
                        pend_x[n_pend] = x
                        pend_nx[n_pend] = p_head[rz]
                        p_head[rz] = n_pend
                        n_pend += 1
                        if not p_listed[rz]:
                            p_listed[rz] = True
                            p_nodes[n_pn] = rz
                            n_pn += 1
                        if pts[rz] != EMPTY:
                            _take(t, x, sets.union(t, pts[x], pts[rz]), pts, ctr, wq)
                c = l_next[c]
            # x --store--> y, z ∈ Δpts(x), z ≠ i2p  ⟹  y --copy--> rep z
            # (sto[y]: the pointees z whose edge y --copy--> rep z exists already; the new
            # targets go into suc[y] in one merge, not one insertion each)
            c = s_head[v]
            while c >= 0:
                y = find(parent, store_src[c])
                tok += 1
                k = bits.or_fresh_at(sto, stl, y, Dm, dml, fbuf)
                m = 0
                for i in range(k):
                    word = fbuf[2 * i + 1]
                    while word:
                        z = np.int64(fbuf[2 * i]) * 64 + np.int64(trailing_zeros(word))
                        word &= word - ONE
                        rz = find(parent, z)
                        if mark[rz] != tok and rz != y:
                            mark[rz] = tok
                            scratch_ids[m] = rz
                            m += 1
                if m > 0:
                    ctr[C_EDGE_TRY] += m
                    k = bits.or_fresh_at(suc, slen, y, gbuf, bits.of_ids(scratch_ids[:m], gbuf), fbuf)
                    for i in range(k):
                        word = fbuf[2 * i + 1]
                        while word:
                            w = np.int64(fbuf[2 * i]) * 64 + np.int64(trailing_zeros(word))
                            word &= word - ONE
                            _edge_push(t, y, w, pts, ctr, wq)
                c = s_next[c]
            # y --gep,o--> x, z ∈ pts(y), o < size(z)  ⟹  z+o ∈ pts(x)
            # (offsets >= 1 only reach objects of two fields or more, >= 64 those of 64 or more:
            # the delta is narrowed to them once per visit)
            # (field-insensitive objects: every offset >= 1 and every walk keeps them, dfi)
            c = g_head[v]
            dfi = 0
            if c >= 0:
                d1 = _masked(Dw, dl, gmask[1], d1buf)
                d64 = _masked(d1buf, d1, gmask[63], d64buf)
                if has_fi:
                    dfi = _masked(Dw, dl, fimask, dfibuf)
            while c >= 0:
                o = gep_off[c]
                if gep_kind[c] == WALK:     # x = y +w o: the same shift against the walk bound
                    gl = _shifted(d1buf, d1, o, walk_size, wmask, gbuf)
                elif gep_kind[c] == CALL:   # x = y +c o: against the call bound (functions only)
                    gl = _shifted(Dw, dl, o, call_bound, cmask, gbuf)
                elif o == 0:
                    gl = _shifted(Dw, dl, o, obj_size, gmask, gbuf)
                elif o < 64:
                    gl = _shifted(d1buf, d1, o, obj_size, gmask, gbuf)
                else:
                    gl = _shifted(d64buf, d64, o, obj_size, gmask, gbuf)
                fl = dfi if o > 0 and gep_kind[c] != CALL else 0    # offset 0: by the size bound already
                if gl > 0 or fl > 0:
                    x = find(parent, gep_dst[c])
                    if gl > 0:
                        _take(t, x, sets.union_words(t, pts[x], gbuf, gl), pts, ctr, wq)
                    if fl > 0:
                        _take(t, x, sets.union_words(t, pts[x], dfibuf, fl), pts, ctr, wq)
                c = g_next[c]
            # y --copy--> x  ⟹  Δpts(y) ⊆ pts(x), i.e. pts(x) ∪ pts(y) = pts(x) ∪ Δpts(y)
            # (several stale ids in suc[v] may resolve to one representative: push once)
            sv = suc[v]
            seen[v] = visits
            for i in range(slen[v]):
                word = sv[2 * i + 1]
                while word:
                    w = find(parent, np.int64(sv[2 * i]) * 64 + np.int64(trailing_zeros(word)))
                    word &= word - ONE
                    if seen[w] == visits:
                        ctr[C_COPY_DUP] += 1
                        continue
                    seen[w] = visits
                    ctr[C_COPY_PUSH] += 1
                    if exact:
                        _take(t, w, sets.join(t, pts[w], P, D), pts, ctr, wq)
                    else:
                        _take(t, w, sets.union(t, pts[w], D), pts, ctr, wq)
            sets.decref(t, D)
            sets.decref(t, P)
            hn, nl = _schedule(wq, heap, hn, pos, pos[v], later, nl)
    return parent, pts, t, visits, rounds, merged_scc, merged_hcd, ctr


@njit(cache=True, nogil=True)
def extract(n, parent, pts, t):
    """The distinct sets of the representatives, expanded once each.

    Returns ``(node_set int32[n], set_indptr int64[k+1], set_indices int32[...])``;
    set 0 is the empty set (present even if unused). Equal sets are one id in
    ``t``, so no set is compared here.
    """
    sid = np.full(sets.n_ids(t), -1, np.int64)     # table id -> solution set
    sid[EMPTY] = 0
    firsts = np.empty(n + 1, np.int64)
    nsets = 1
    for v in range(n):
        if parent[v] == v and sid[pts[v]] < 0:
            sid[pts[v]] = nsets
            firsts[nsets] = pts[v]
            nsets += 1
    indptr = np.zeros(nsets + 1, np.int64)
    for s in range(1, nsets):
        q = firsts[s]
        indptr[s + 1] = indptr[s] + bits.count(sets.words(t, q), sets.length(t, q))
    indices = np.empty(indptr[nsets], np.int32)
    for s in range(1, nsets):
        q = firsts[s]
        bits.ids_into(sets.words(t, q), sets.length(t, q), indices, indptr[s])
    node_set = np.empty(n, np.int32)
    for v in range(n):
        node_set[v] = sid[pts[find(parent, v)]]
    return node_set, indptr, indices
