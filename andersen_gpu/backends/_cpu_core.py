"""The CPU solver's compiled core: wave-ordered worklist with difference propagation.

State per node ``v`` (meaningful while ``v`` is a representative):

* ``pts[v]``  -- its points-to set (sparse bit-set, see ``_cpu_bits``);
* ``dlt[v]``  -- the part of ``pts[v]`` not yet pushed through v's constraints (diff_pts);
* ``suc[v]``  -- copy successors, as a bit-set of node ids (stale ids resolve via ``find``);
* ``lin[x]``  -- the pointees z whose load-made edge ``rep z --copy--> x`` exists already;
* linked lists of the load / store / gep / HCD constraints whose pointer is v.

Each round (1) finds strongly connected components of the copy graph
(Tarjan) and merges them -- only once the graph has grown by 1 % since the
last pass; in between the last order is reused --, and (2) visits
representatives in that topological order,
pushing ``dlt[v]`` through v's constraints:

* ``y --load--> x``,  ``z ∈ Δpts(y)``, ``z ≠ i2p``  ⟹  ``rep z --copy--> x``
* ``x --store--> y``, ``z ∈ Δpts(x)``, ``z ≠ i2p``  ⟹  ``y --copy--> rep z``
* ``y --gep,o--> x``, ``z ∈ Δpts(y)``, ``o < size z``  ⟹  ``z+o ∈ pts(x)``
* ``y --copy--> x``  ⟹  ``Δpts(y) ⊆ pts(x)``; a new copy edge carries all of pts(y) at once.
* HCD pair (p, t), ``z ∈ Δpts(p)``, ``z ≠ i2p``  ⟹  merge ``rep z`` with ``rep t``.

Loads and stores are applied a whole delta at a time, with word-wide set
operations: ``Δpts(y) − lin[x]`` are the new load edges into x, and
``Δpts(x) − suc[y]`` the new store edges out of y (``suc[y]`` records the
pointee z itself). Only new edges cost per-id work; testing every (z, edge)
pair one id at a time dominated the big inputs (gdb: 37 M tests, 90 % of the
time, for 0.4 M new edges). Geps build ``{z+o}`` for the delta and push it once.

Rounds repeat until no node has a delta (wave propagation, Pereira and
Berlin, CGO 2009, with the HCD table of Hardekopf and Lin, CGO 2007).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.typed import List

from . import _cpu_bits as bits

ONE = np.uint64(1)

# work counters (solve_core's last result), see COUNTER_NAMES
COUNTER_NAMES = ("pushes", "pushes that changed", "push source words", "push target words",
                 "edge candidates", "new edges", "new-edge source words", "copy pushes", "delta words",
                 "duplicate copy targets", "scc passes")
(C_PUSH, C_PUSH_CHANGED, C_PUSH_SRC_W, C_PUSH_DST_W, C_EDGE_TRY, C_EDGE_NEW, C_EDGE_W, C_COPY_PUSH, C_DELTA_W,
 C_COPY_DUP, C_SCC) = range(11)
N_CTR = 11
# an SCC pass runs when the copy graph grew by more than 1/SCC_GROWTH of its edges
SCC_GROWTH = 100


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
def _push(x, src, srclen, pts, plen, dlt, dlen, scratch, ctr):
    """``pts(x) |= src``, recording what is new in ``dlt(x)``. True if anything was new.

    ``scratch`` holds at least ``2 * srclen`` words (one element per 64 node ids).
    """
    ctr[C_PUSH] += 1
    ctr[C_PUSH_SRC_W] += srclen
    ctr[C_PUSH_DST_W] += plen[x]
    p, pl, nl = bits.or_fresh(pts[x], plen[x], src, srclen, scratch)
    if nl == 0:
        return False
    ctr[C_PUSH_CHANGED] += 1
    if pl != plen[x]:
        pts[x] = p
        plen[x] = pl
    d, dl = bits.or_into(dlt[x], dlen[x], scratch, nl)
    if dl != dlen[x]:
        dlt[x] = d
        dlen[x] = dl
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
def _emit(out, k, base, word):
    """Append ``(base, word)`` to the ascending set ``out[:2k]``; returns the new k."""
    if k > 0 and out[2 * k - 2] == base:
        out[2 * k - 1] |= word
        return k
    out[2 * k] = base
    out[2 * k + 1] = word
    return k + 1


@njit(cache=True)
def _shifted(D, dl, o, obj_size, masks, out):
    """``{z + o : z ∈ D, o < size(z)}`` into ``out`` as a set; returns its length in elements.

    Offsets below 64 go a word at a time: mask the ids whose object is big
    enough, shift the word by o (spilling into the next word).
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
        word = D[2 * i + 1]
        base = np.int64(D[2 * i]) * 64
        while word:
            z = base + np.int64(trailing_zeros(word))
            word &= word - ONE
            if o < obj_size[z]:
                b, bit = bits.element_of(z + o)
                k = _emit(out, k, b, bit)
    return k


@njit(cache=True)
def _edge_push(a, x, pts, plen, dlt, dlen, scratch, ctr):
    """A new copy edge ``a -> x`` carries all of pts(a) at once."""
    ctr[C_EDGE_NEW] += 1
    ctr[C_EDGE_W] += plen[a]
    if plen[a] > 0:
        _push(x, pts[a], plen[a], pts, plen, dlt, dlen, scratch, ctr)


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
def _add_edge(a, x, pts, plen, dlt, dlen, suc, slen, scratch, ctr):
    """Copy edge ``a -> x`` (representatives); a new edge carries all of pts(a)."""
    if a == x:
        return
    ctr[C_EDGE_TRY] += 1
    s, sl, fresh = bits.add(suc[a], slen[a], x)
    if not fresh:
        return
    if sl != slen[a]:
        suc[a] = s
        slen[a] = sl
    _edge_push(a, x, pts, plen, dlt, dlen, scratch, ctr)


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
def _topo_collapse(n, parent, pts, plen, dlt, dlen, fams, flen, lists, empty):
    """Tarjan's SCC over the graph ``v -> fams[0][v]`` of representatives; merge each SCC.

    Returns the representatives in topological order of that graph (sources
    first) and the number of nodes merged (see :func:`_merge` for the other
    arguments).
    """
    suc = fams[0]
    slen = flen[0]
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
    counter = 0
    merged = 0
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
                # pop the SCC rooted at v; merge its members into v
                while True:
                    sp -= 1
                    w = stack[sp]
                    onstack[w] = False
                    if w != v:
                        _merge(w, v, parent, pts, plen, dlt, dlen, fams, flen, lists, empty)
                        merged += 1
                    else:
                        break
                emitted[ne] = v
                ne += 1
            if fp > 0:
                u = fr_v[fp - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
    order = emitted[:ne][::-1].copy()
    return order, merged


@njit(cache=True, nogil=True)  # nogil: run off the main thread, interruptibly (andersen_gpu.interrupt)
def solve_core(n, rep, obj_size, i2p, addr_dst, addr_src, copy_dst, copy_src,
               load_dst, load_src, store_dst, store_src, gep_dst, gep_src, gep_off,
               hcd_ptr, hcd_target):
    """Least solution on representatives.

    Parameters are the constraint columns (int64) with pointer-side ids already
    mapped through ``rep``. Returns ``(parent, pts, plen, visits, rounds,
    merged_scc, merged_hcd)``; the set of node v is ``pts[find(parent, v)]``.
    """
    parent = rep.copy()
    ctr = np.zeros(N_CTR, np.int64)
    scratch = np.empty(2 * (n // 64 + 2), np.uint64)   # room for any set of node ids
    gbuf = np.empty(2 * (n // 64 + 2), np.uint64)
    gmask = _gep_masks(n, obj_size)
    fbuf = np.empty(2 * (n // 64 + 2), np.uint64)
    seen = np.full(n, -1, np.int64)    # visit number of the last copy push into each node
    mark = np.full(n, -1, np.int64)    # load constraint (token) that last made an edge from each node
    tok = 0
    scc_edges = 0
    order = np.zeros(0, np.int64)
    empty = np.empty(0, np.uint64)
    pts = empty_sets(n, empty)
    dlt = empty_sets(n, empty)
    suc = empty_sets(n, empty)
    lin = empty_sets(n, empty)
    fams = List()
    fams.append(suc)
    fams.append(lin)
    flen = np.zeros((2, n), np.int64)
    slen = flen[0]
    llen = flen[1]
    plen = np.zeros(n, np.int64)
    dlen = np.zeros(n, np.int64)
    lists = List()
    lists.append(_linked(n, load_src))
    lists.append(_linked(n, store_dst))
    lists.append(_linked(n, gep_src))
    lists.append(_linked(n, hcd_ptr))
    l_head, _, l_next = lists[0]
    s_head, _, s_next = lists[1]
    g_head, _, g_next = lists[2]
    h_head, _, h_next = lists[3]

    seed_addresses(addr_dst, addr_src, pts, plen, dlt, dlen)
    for c in range(len(copy_dst)):
        _add_edge(copy_src[c], copy_dst[c], pts, plen, dlt, dlen, suc, slen, scratch, ctr)

    visits = 0
    rounds = 0
    merged_scc = 0
    merged_hcd = 0
    while True:
        busy = False
        for v in range(n):
            if parent[v] == v and dlen[v] > 0:
                busy = True
                break
        if not busy:
            break
        rounds += 1
        # A new cycle needs a new edge: look again only once the copy graph has grown by
        # SCC_GROWTH since the last pass. Meanwhile the old order still lists every
        # representative (merges only remove some), so the rounds stay exact.
        n_edges = len(copy_dst) + ctr[C_EDGE_NEW]
        if rounds == 1 or (n_edges - scc_edges) * SCC_GROWTH > n_edges:
            order, m = _topo_collapse(n, parent, pts, plen, dlt, dlen, fams, flen, lists, empty)
            merged_scc += m
            scc_edges = n_edges
            ctr[C_SCC] += 1
        for v in order:
            if parent[v] != v or dlen[v] == 0:
                continue
            visits += 1
            ctr[C_DELTA_W] += dlen[v]
            D = dlt[v]
            dl = dlen[v]
            dlt[v] = empty
            dlen[v] = 0
            # HCD: every object entering pts(p) shares the set of t.
            c = h_head[v]
            while c >= 0:
                t = hcd_target[c]
                for i in range(dl):
                    word = D[2 * i + 1]
                    while word:
                        z = np.int64(D[2 * i]) * 64 + np.int64(trailing_zeros(word))
                        word &= word - ONE
                        if z == i2p:
                            continue
                        a = find(parent, z)
                        b = find(parent, t)
                        if a != b:
                            _merge(a, b, parent, pts, plen, dlt, dlen, fams, flen, lists, empty)
                            merged_hcd += 1
                c = h_next[c]
            if parent[v] != v:
                # v itself was merged: its representative takes over the delta
                r = find(parent, v)
                d2, l2 = bits.or_into(dlt[r], dlen[r], D, dl)
                dlt[r] = d2
                dlen[r] = l2
                continue
            if l_head[v] >= 0 or s_head[v] >= 0:
                # loads and stores ignore the int-to-pointer object
                Dm, dml = bits.without(D, dl, i2p)
            # y --load--> x, z ∈ Δpts(y), z ≠ i2p  ⟹  rep z --copy--> x
            # (lin[x]: the pointees z whose edge z --copy--> x exists already)
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
                        if mark[rz] != tok:      # many z may share one representative
                            mark[rz] = tok
                            _add_edge(rz, x, pts, plen, dlt, dlen, suc, slen, scratch, ctr)
                c = l_next[c]
            # x --store--> y, z ∈ Δpts(x), z ≠ i2p  ⟹  y --copy--> rep z
            # (suc[y] holds z itself, which resolves to rep z through find)
            c = s_head[v]
            while c >= 0:
                y = find(parent, store_src[c])
                k = bits.or_fresh_at(suc, slen, y, Dm, dml, fbuf)
                ctr[C_EDGE_TRY] += k
                if plen[y] > 0:
                    for i in range(k):
                        word = fbuf[2 * i + 1]
                        while word:
                            z = np.int64(fbuf[2 * i]) * 64 + np.int64(trailing_zeros(word))
                            word &= word - ONE
                            rz = find(parent, z)
                            if rz == y or rz == z:
                                if rz != y:
                                    _edge_push(y, rz, pts, plen, dlt, dlen, scratch, ctr)
                                continue
                            # z stands for rz: when rz is in suc[y] too, pts(y) reached it already
                            s2, sl2, fresh = bits.add(suc[y], slen[y], rz)
                            if fresh:
                                suc[y] = s2
                                slen[y] = sl2
                                _edge_push(y, rz, pts, plen, dlt, dlen, scratch, ctr)
                c = s_next[c]
            # y --gep,o--> x, z ∈ pts(y), o < size(z)  ⟹  z+o ∈ pts(x)
            c = g_head[v]
            while c >= 0:
                gl = _shifted(D, dl, gep_off[c], obj_size, gmask, gbuf)
                if gl > 0:
                    _push(find(parent, gep_dst[c]), gbuf, gl, pts, plen, dlt, dlen, scratch, ctr)
                c = g_next[c]
            # y --copy--> x  ⟹  Δpts(y) ⊆ pts(x)
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
                    _push(w, D, dl, pts, plen, dlt, dlen, scratch, ctr)
    return parent, pts, plen, visits, rounds, merged_scc, merged_hcd, ctr


@njit(cache=True, nogil=True)
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
        a = pts[q]
        k = indptr[s]
        for e in range(plen[q]):
            word = a[2 * e + 1]
            base = np.int64(a[2 * e]) * 64
            while word:
                indices[k] = base + np.int64(trailing_zeros(word))
                word &= word - ONE
                k += 1
    node_set = np.empty(n, np.int32)
    for v in range(n):
        node_set[v] = rep_set[find(parent, v)]
    return node_set, indptr, indices
