"""Offline variable substitution: hash-based value numbering (HVN).

Hardekopf and Lin, "Exploiting pointer and location equivalence to optimize
pointer analysis", SAS 2007. Every representative gets a *pointer-equivalence
label*; two nodes with the same label have the same least points-to set, so
they can share one set. Label 0 means "always empty".

A node's label is derived from what can flow into it:

* ``x = &y``           contributes the primitive label ``A(y)``;
* ``x = y``            contributes label(y);
* ``x = *y``           contributes ``L(label(y))``: equal labels are equal sets,
  so every load through a node of that label reads the same set (nothing at
  all when label(y) is 0);
* ``x = y + o``        contributes ``G(label(y), o)``, for the same reason (a walk
  gep ``x = y +w d`` its own key ``W(label(y), d)``, a call gep ``x = y +c k`` ``C(label(y), k)``);
* x may be written by a store (it is, or is the representative of, a node
  that can appear in a points-to set): a label ``I(x)`` of its own.

The label of a node is its single input label when it has one, else the
label of its *set* of input labels (hash-consed exactly: equal sets, equal
labels; different sets, different labels). Exact under the project's
semantics, by induction along the order in which labels are given.

Order: strongly connected components of the dependency graph (copy, load
and gep edges ``y -> x``) in topological order, and copy edges in
topological order inside each (the copy graph is acyclic once its SCCs are
collapsed). A load or gep can still close a cycle (``p = *q; q = p + 1``):
a read through a ``y`` placed later is keyed by ``y``'s id in the first
pass (the original HVN's ``L(y)``: exact, only coarser) and by ``y``'s
label from the previous pass in later ones; when ``y`` gets its label, that
label inherits the key, so every read through ``y`` agrees.

Every key (a set of input labels, ``L``/``G`` of a label or of an id) keeps
its label for the whole run, so a label denotes one set in every pass, and
nodes that share a label in any pass are merged (union-find). Because the
tables persist, a node whose inputs did not change gets the same label
again: passes after the first revisit only the *dirty* nodes (readers
through a later node, and what a changed label flows into), usually a
small part of the graph. Extra passes replace the paper's HR iteration (rewriting the
constraint set and running HVN again); on the paper inputs two passes leave
no more nodes than eight such rounds did
(bench/results/preprocess-speed.md).

With ``hu`` (Hardekopf and Lin's HU), a label stands for a *set of
primitive labels* (``A``, ``I``, and the fresh labels of ``L``/``G`` keys),
and a node's label is that of the union of its inputs' sets: ``c = a; c =
b; d = a; d = c`` gives c and d the same label, which HVN's sets of labels
({A(x), A(y)} against {A(x), label(c)}) do not. Exact for the same
reason (every label still denotes one fixed set). Unions of more than
``HU_MAX_EXPANSION`` members fall back to HVN's set of labels.

Before any of this, a representative whose only input is one copy from
``y`` and that no store can write is merged with ``y`` (union-find, one
pass over the copies): it would get y's label anyway, and removing it first
shrinks the graph that is ordered and labelled by about 40 % on the paper
inputs; reads through it then share y's id key in pass 1 (more merges).

The whole round (contraction, compaction to the touched representatives,
ordering, labelling, merging, the final table) is a few compiled calls on
the int32 columns of the constraint set, with no per-column NumPy
temporaries; per-node arrays are int32 and the hash tables start small and
grow, since random access into large tables is what this costs (on the
paper inputs fewer than 5 % of the nodes have two or more inputs).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from constraints.model import ConstraintSet

from ._hash import fmix64 as _fmix
from .rewrite import _table_reps


#: HU (``label_round(..., hu=True)``) flattens a node's input labels into one set of primitive
#: labels only while that set has at most this many members; a larger one is hash-consed as
#: HVN's set of labels (exact either way, only coarser), which bounds the time HU adds.
HU_MAX_EXPANSION = 256


def pointee_capable(cs: ConstraintSet) -> np.ndarray:
    """bool[n]: nodes that can appear in some points-to set.

    Address-taken nodes, and every field of a possible pointee (a gep from an
    object ``z`` yields ``z + o`` with ``o < obj_size[z]``), closed over
    nested objects.
    """
    return _pointee_capable(cs.n_nodes, cs.addr_src, cs.obj_size)


def hvn_labels(cs: ConstraintSet, max_passes: int = 1) -> np.ndarray:
    """Pointer-equivalence label of every representative of ``cs``.

    Parameters
    ----------
    cs : ConstraintSet
        The copy graph of its representatives must be acyclic (run SCC
        collapse first).
    max_passes : int
        HVN passes (see the module docstring).

    Returns
    -------
    int64[n_nodes]
        Per representative: 0 when its least points-to set is provably
        empty, else ``1 +`` the smallest id of its class (equal labels,
        equal sets); -1 for nodes merged before (``cs.rep[v] != v``).

    Raises
    ------
    ValueError
        If the copy graph has a cycle.
    """
    rep = cs.rep
    table, empty, ok, _, _ = label_round(cs, rep, pointee_capable(cs), max_passes)
    if not ok:
        raise ValueError("hvn_labels needs an acyclic copy graph (collapse SCCs first)")
    labels = table.astype(np.int64) + 1
    if empty >= 0:
        labels[table == empty] = 0
    labels[rep != np.arange(cs.n_nodes)] = -1
    return labels


def label_round(cs: ConstraintSet, rep: np.ndarray, cap: np.ndarray, max_passes: int = 2, hu: bool = False):
    """HVN passes on ``cs`` read through the representative table ``rep``.

    Parameters
    ----------
    cs : ConstraintSet
        Only its columns are read (pointer-side ids are mapped through
        ``rep``; ``addr_src`` is not).
    rep : int[n_nodes]
        A fixpoint table that refines ``cs.rep``.
    cap : bool[n_nodes]
        :func:`pointee_capable` of ``cs``.
    max_passes : int
        Upper bound on passes; stops earlier when a pass merges nothing
        new or leaves nothing dirty. 0: only the single-copy-input merges
        that precede the passes (module docstring; no ordering, so the copy
        graph may have cycles, and no class of empty representatives).
    hu : bool
        Hash-based unification (HU, see the module docstring) instead of
        plain HVN sets of labels.

    Returns
    -------
    (table, empty, acyclic, passes, reps)
        ``table``: int32[n_nodes], a fixpoint table refining ``rep`` with
        every merge found (each class led by its smallest representative
        id; all provably empty representatives form one class). ``empty``: the leader of
        that class, or -1. ``acyclic``: False when the copy graph through
        ``rep`` has a cycle; then nothing is merged (``table`` is ``rep``):
        collapse SCCs and call again. ``passes``: the passes run.
        ``reps``: the representatives of ``table`` (-1 when not acyclic).
    """
    n = cs.n_nodes
    rep = np.ascontiguousarray(rep, np.int32)
    gep_dst, gep_src, gep_key = _reads_by_offset(cs)
    crep, ind, cid, ids, k, n_copy, e_src, e_dst = _compact(
        n, rep, np.ascontiguousarray(cap, np.bool_), cs.copy_src, cs.copy_dst, cs.addr_dst,
        cs.load_dst, cs.load_src, gep_dst, gep_src)
    if max_passes <= 0:
        return crep, -1, True, 0, int(_table_reps(crep))
    order = _dep_order(k, n_copy, e_src, e_dst)
    if len(order) < k:
        return rep.copy(), -1, False, 0, -1
    node_of, *graph = _graph(n, k, crep, ind, cid, ids, order, n_copy, e_src, e_dst, cs.addr_dst, cs.addr_src,
                             gep_key)
    n_load = len(cs.load_dst)
    # cid is not read after _graph (_graph marked the touched nodes in ind): _passes reuses it
    uf, empty_node, passes = _passes(n, k, n_copy, n_load, e_dst, gep_key, *graph, cid,
                                     max(int(max_passes), 1), bool(hu), HU_MAX_EXPANSION)
    table, empty, reps = _table(n, k, crep, ind, node_of, uf, empty_node)
    return table, empty, True, passes, reps


def _reads_by_offset(cs: ConstraintSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The geps and walk geps of ``cs`` as one list of reads ``(dst, src, key)``.

    A gep of offset ``o`` is keyed ``G(label, o)`` (``key = o >= 0``), a walk of ``d``
    ``key = -(d + 1) <= -2`` (a load is ``-1``), a call gep of ``k`` ``key = n + k >= n``:
    reads with equal keys through pointers of equal labels give equal sets, and no two kinds
    share a key. Without walks and call geps, the gep columns themselves (no copy).
    """
    if not len(cs.walk_dst) and not len(cs.call_dst):
        return cs.gep_dst, cs.gep_src, cs.gep_offset
    if len(cs.call_dst) and cs.n_nodes >= 1 << 30:
        raise ValueError("call geps are keyed n + k in int32: at most 2^30 nodes")
    out = (np.concatenate((cs.gep_dst, cs.walk_dst, cs.call_dst)),
           np.concatenate((cs.gep_src, cs.walk_src, cs.call_src)),
           np.concatenate((cs.gep_offset, -(cs.walk_offset.astype(np.int32) + 1),
                           cs.call_offset.astype(np.int32) + np.int32(cs.n_nodes))))
    for col in out:
        col.setflags(write=False)     # the types the compiled passes see for the gep columns
    return out


# ----------------------------------------------------------------- compiled core

@njit(cache=True, nogil=True)
def _pointee_capable(n, addr_src, obj_size):
    # a field z + o (o < size z) of a capable z is capable: fields follow their object,
    # so one ascending scan with the furthest end of a capable object closes nesting too
    cap = np.zeros(n, np.bool_)
    for y in addr_src:
        cap[y] = True
    end = 0
    for z in range(n):
        if z < end:
            cap[z] = True
        if cap[z] and z + obj_size[z] > end:
            end = z + obj_size[z]
    return cap


@njit(cache=True, nogil=True)
def _row_ptr(n, rows):
    """CSR row pointers (int32[n + 1]) of the int ``rows`` column (fewer than 2**31 rows)."""
    ptr = np.zeros(n + 1, np.int32)
    for r in rows:
        ptr[r + 1] += 1
    for i in range(n):
        ptr[i + 1] += ptr[i]
    return ptr


@njit(cache=True, nogil=True)
def _scatter(ptr, rows, vals):
    """``vals`` grouped by ``rows`` (stable) along the row pointers ``ptr``."""
    fill = ptr[:-1].copy()
    out = np.empty(len(rows), vals.dtype)
    for i in range(len(rows)):
        r = rows[i]
        out[fill[r]] = vals[i]
        fill[r] += 1
    return out


@njit(cache=True, nogil=True)
def _scatter_ids(ptr, rows):
    """The indices ``i`` of ``rows`` grouped by ``rows[i]`` (stable), int32."""
    fill = ptr[:-1].copy()
    out = np.empty(len(rows), np.int32)
    for i in range(len(rows)):
        r = rows[i]
        out[fill[r]] = i
        fill[r] += 1
    return out


@njit(cache=True, nogil=True)
def _mix(h, x):
    h ^= np.uint64(x) + np.uint64(0x9E3779B97F4A7C15) + (h << np.uint64(6)) + (h >> np.uint64(2))
    return h


@njit(cache=True, nogil=True)
def _capacity(entries):
    cap = 16
    while cap < 2 * entries + 16:
        cap *= 2
    return cap


@njit(cache=True, nogil=True)
def _key_slot(tab, a, b):
    """Slot of key (a, b) in the open-addressing table ``tab`` (rows a, b, label; label -1: free)."""
    a = np.int64(a)
    b = np.int64(b)
    mask = np.uint64(len(tab) - 1)
    i = _fmix(_mix(_mix(np.uint64(0x51ED27), a), b)) & mask
    while True:
        if tab[i, 2] < 0 or (tab[i, 0] == a and tab[i, 1] == b):
            return i
        i = (i + np.uint64(1)) & mask


@njit(cache=True, nogil=True)
def _key_get_or_put(tab, a, b, label):
    """Label of key (a, b) in ``tab``; a key not there yet is put in with ``label``.

    Returns (label, True when the key was put in). The caller keeps room (``_key_grow``).
    """
    slot = _key_slot(tab, a, b)
    if tab[slot, 2] < 0:
        tab[slot, 0] = a
        tab[slot, 1] = b
        tab[slot, 2] = label
        return tab[slot, 2], True
    return tab[slot, 2], False


@njit(cache=True, nogil=True)
def _key_grow(tab):
    """``tab`` rehashed into twice the slots."""
    out = np.full((2 * len(tab), 3), -1, tab.dtype)
    for i in range(len(tab)):
        if tab[i, 2] >= 0:
            j = _key_slot(out, tab[i, 0], tab[i, 1])
            out[j, 0] = tab[i, 0]
            out[j, 1] = tab[i, 1]
            out[j, 2] = tab[i, 2]
    return out


@njit(cache=True, nogil=True)
def _grow(a):
    """``a`` followed by as many -1 entries."""
    out = np.full(2 * len(a), -1, a.dtype)
    out[:len(a)] = a
    return out


@njit(cache=True, nogil=True)
def _sort_unique(buf, m):
    """Sort buf[:m] in place and drop repeats; returns the distinct count."""
    if m > 32:
        buf[:m] = np.sort(buf[:m])
    else:
        for i in range(1, m):
            x = buf[i]
            j = i - 1
            while j >= 0 and buf[j] > x:
                buf[j + 1] = buf[j]
                j -= 1
            buf[j + 1] = x
    u = 1
    for i in range(1, m):
        if buf[i] != buf[u - 1]:
            buf[u] = buf[i]
            u += 1
    return u


@njit(cache=True, nogil=True)
def _find(uf, v):
    while uf[v] != v:
        uf[v] = uf[uf[v]]
        v = uf[v]
    return v


@njit(cache=True, nogil=True)
def _union(uf, a, b):
    """Join the classes of a and b (the smaller id leads); True when they were apart."""
    ra = _find(uf, a)
    rb = _find(uf, b)
    if ra == rb:
        return False
    if ra < rb:
        uf[rb] = ra
    else:
        uf[ra] = rb
    return True


@njit(cache=True, nogil=True)
def _order(k, n_copy, adj_ptr, adj, adj_edge):
    """An order of the k nodes in which every input comes first where it can.

    ``adj_ptr``/``adj``: successors over the dependency graph (copy, load and
    gep edges ``y -> x``); ``adj_edge``: the edge id of each entry (ids below
    ``n_copy`` are copies). Strongly connected components (Tarjan, which
    completes sinks first, so they are written from the end of the order)
    in topological order; inside a component, copy edges in topological
    order (Kahn; loads and geps close the cycle). Returns the order; shorter
    than k when the copy graph has a cycle.
    """
    index = np.full(k, -1, np.int32)
    low = np.zeros(k, np.int32)
    on_stack = np.zeros(k, np.bool_)
    stack = np.empty(k, np.int32)
    sp = 0
    call_v = np.empty(k, np.int32)
    call_i = np.empty(k, np.int32)
    order = np.empty(k, np.int32)
    fill = k                                  # order[fill:] is written
    copy_in = np.zeros(k, np.int32)           # copy inputs from the same component, while it is placed
    counter = 0
    for s in range(k):
        if index[s] >= 0:
            continue
        depth = 0
        call_v[0] = s
        call_i[0] = adj_ptr[s]
        index[s] = counter
        low[s] = counter
        counter += 1
        stack[sp] = s
        sp += 1
        on_stack[s] = True
        while depth >= 0:
            v = call_v[depth]
            i = call_i[depth]
            if i < adj_ptr[v + 1]:
                call_i[depth] = i + 1
                w = adj[i]
                if index[w] < 0:
                    index[w] = counter
                    low[w] = counter
                    counter += 1
                    stack[sp] = w
                    sp += 1
                    on_stack[w] = True
                    depth += 1
                    call_v[depth] = w
                    call_i[depth] = adj_ptr[w]
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            depth -= 1
            if depth >= 0:
                u = call_v[depth]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] != index[v]:
                continue
            if stack[sp - 1] == v:            # a component of one node
                sp -= 1
                on_stack[v] = False
                fill -= 1
                order[fill] = v
                continue
            # a larger component: stack[top:sp]; its copy edges in topological order
            top = sp - 1
            while stack[top] != v:
                top -= 1
            size = sp - top
            for j in range(top, sp):
                on_stack[stack[j]] = False
            for j in range(top, sp):
                x = stack[j]
                low[x] = -1 - v               # marks the members (index no longer needed)
            for j in range(top, sp):
                x = stack[j]
                for e in range(adj_ptr[x], adj_ptr[x + 1]):
                    if adj_edge[e] < n_copy and low[adj[e]] == -1 - v:
                        copy_in[adj[e]] += 1
            start = fill - size
            head = start
            count = start
            for j in range(top, sp):
                if copy_in[stack[j]] == 0:
                    order[count] = stack[j]
                    count += 1
            while head < count:
                x = order[head]
                head += 1
                for e in range(adj_ptr[x], adj_ptr[x + 1]):
                    w = adj[e]
                    if adj_edge[e] < n_copy and low[w] == -1 - v:
                        copy_in[w] -= 1
                        if copy_in[w] == 0:
                            order[count] = w
                            count += 1
            if count < fill:
                return order[:0]              # a copy cycle
            fill = start
            sp = top
    return order


@njit(cache=True, nogil=True)
def _compact(n, rep, cap, copy_src, copy_dst, addr_dst, load_dst, load_src, gep_dst, gep_src):
    """Contract single-copy inputs, then number the touched representatives densely in id order.

    A representative x that no store can write (no member is
    pointee-capable) and whose only input is a copy from y has pts(x) ==
    pts(y): it is merged with y here, before any ordering (about 40 % of the
    nodes on the paper inputs; it is the merge HVN would find, at the cost
    of one union per copy).

    Returns ``(crep, ind, cid, ids, k, n_copy, e_src, e_dst)``: ``crep``
    (int32[n]) the fixpoint table refining ``rep`` with those merges;
    ``ind[r]`` (bool[n]) when a store may write crep-representative r
    (read at representatives only);
    ``cid`` (int32[n]): the compact id of each touched representative (in
    first-touch order), -1 elsewhere; ``ids`` (int32[k]) its inverse; k
    touched nodes; the dependency edges
    ``y -> x`` in compact ids (int32): the n_copy copies that are not
    self-copies, then loads, then geps.
    """
    ind = np.zeros(n, np.bool_)           # "a store may write it": a member can be pointed to
    src1 = np.empty(n, np.int32)          # the one copy source of a representative; -2: other inputs
    for v in range(n):
        src1[v] = -1
        if cap[v]:
            ind[rep[v]] = True
    for i in range(len(copy_src)):
        s = rep[copy_src[i]]
        d = rep[copy_dst[i]]
        if s != d:
            if src1[d] == -1:
                src1[d] = s
            elif src1[d] != s:
                src1[d] = -2
    for col in (addr_dst, load_dst, gep_dst):
        for x in col:
            src1[rep[x]] = -2
    crep = rep.copy()                     # a union-find forest over the representatives
    for x in range(n):
        if src1[x] >= 0 and not ind[x]:
            _union(crep, x, src1[x])
    # one pass: compress the forest; a class's root inherits "a store may write it" from the
    # sources of its contracted nodes (which have none of their own; setting it from a node that
    # was not contracted is harmless: that node has it); src1 is read for the last time, and its
    # memory holds cid from here on (ind is read at representatives only)
    cid = src1
    for v in range(n):
        r = _find(crep, v)
        crep[v] = r
        s = src1[v]
        if s >= 0 and ind[s]:
            ind[r] = True
        cid[v] = -1
    rep = crep
    # dependency edges y -> x in compact ids (numbered on first touch): copies, then loads, then geps
    n_load = len(load_dst)
    n_gep = len(gep_dst)
    e_src = np.empty(len(copy_src) + n_load + n_gep, np.int32)
    e_dst = np.empty(len(e_src), np.int32)
    ids = np.empty(min(n, 2 * len(e_src) + len(addr_dst)), np.int32)
    k = 0
    j = 0
    for r in range(3):
        src_col = copy_src if r == 0 else (load_src if r == 1 else gep_src)
        dst_col = copy_dst if r == 0 else (load_dst if r == 1 else gep_dst)
        for i in range(len(src_col)):
            y = rep[src_col[i]]
            x = rep[dst_col[i]]
            if r == 0 and y == x:
                continue
            if cid[y] < 0:
                cid[y] = k
                ids[k] = y
                k += 1
            if cid[x] < 0:
                cid[x] = k
                ids[k] = x
                k += 1
            e_src[j] = cid[y]
            e_dst[j] = cid[x]
            j += 1
        if r == 0:
            n_copy = j
    for x in addr_dst:
        if cid[rep[x]] < 0:
            cid[rep[x]] = k
            ids[k] = rep[x]
            k += 1
    return crep, ind, cid, ids[:k], k, n_copy, e_src[:j], e_dst[:j]


@njit(cache=True, nogil=True)
def _dep_order(k, n_copy, e_src, e_dst):
    """:func:`_order` of the compact dependency edges (successor lists built here)."""
    n_dep = len(e_src)
    adj_ptr = _row_ptr(k, e_src)
    adj_edge = _scatter_ids(adj_ptr, e_src)
    adj = np.empty(n_dep, np.int32)
    for i in range(n_dep):
        adj[i] = e_dst[adj_edge[i]]
    return _order(k, n_copy, adj_ptr, adj, adj_edge)


@njit(cache=True, nogil=True)
def _graph(n, k, rep, ind, cid, ids, order, n_copy, e_src, e_dst, addr_dst, addr_src, gep_off):
    """Renumber the compact nodes in processing order ("placed before" is "smaller id").

    Rewrites ``e_src``/``e_dst`` in place to the new numbering, sets
    ``ind`` of every touched representative (``_table`` then tells the
    untouched ones without ``cid``, which ``_passes`` reuses) and returns
    ``(node_of, is_ind, back, c_ptr, c_in, a_ptr, a_in, l_ptr, l_in, g_ptr, g_in, g_off, s_ptr, s_edge)``:
    the original id and store flag of each position, the inputs of each node
    by kind (copy sources, address-of pointees, load and gep pointers, gep
    offsets) and its successors as edge ids (copies first, then readers).
    """
    n_dep = len(e_src)
    n_load = n_dep - n_copy - len(gep_off)
    pos = np.empty(k, np.int32)
    for i in range(k):
        pos[order[i]] = i
    node_of = np.empty(k, np.int32)          # original id of each processing position
    for c in range(k):
        node_of[pos[c]] = ids[c]
    for i in range(n_dep):
        e_src[i] = pos[e_src[i]]
        e_dst[i] = pos[e_dst[i]]
    a_dst = np.empty(len(addr_dst), np.int32)
    for i in range(len(addr_dst)):
        a_dst[i] = pos[cid[rep[addr_dst[i]]]]
    # inputs by target (copies, addresses, loads, geps) and readers by pointer
    c_ptr = _row_ptr(k, e_dst[:n_copy])
    c_in = _scatter(c_ptr, e_dst[:n_copy], e_src[:n_copy])
    a_ptr = _row_ptr(k, a_dst)
    a_in = _scatter(a_ptr, a_dst, addr_src)
    l_ptr = _row_ptr(k, e_dst[n_copy:n_copy + n_load])
    l_in = _scatter(l_ptr, e_dst[n_copy:n_copy + n_load], e_src[n_copy:n_copy + n_load])
    g_ptr = _row_ptr(k, e_dst[n_copy + n_load:])
    g_in = _scatter(g_ptr, e_dst[n_copy + n_load:], e_src[n_copy + n_load:])
    g_off = _scatter(g_ptr, e_dst[n_copy + n_load:], gep_off)
    s_ptr = _row_ptr(k, e_src)                # successors: copies first, then readers
    s_edge = _scatter_ids(s_ptr, e_src)
    is_ind = np.empty(k, np.bool_)
    for v in range(k):
        is_ind[v] = ind[node_of[v]]
        ind[node_of[v]] = True                # from here on ind marks "touched or a store may write it"
    back = np.zeros(k, np.bool_)              # read through by a node placed at or before it
    for e in range(n_copy, n_dep):
        if e_dst[e] <= e_src[e]:
            back[e_src[e]] = True
    return node_of, is_ind, back, c_ptr, c_in, a_ptr, a_in, l_ptr, l_in, g_ptr, g_in, g_off, s_ptr, s_edge


@njit(cache=True, nogil=True)
def _passes(n, k, n_copy, n_load, e_dst, gep_off, is_ind, back, c_ptr, c_in, a_ptr, a_in, l_ptr, l_in, g_ptr, g_in,
            g_off, s_ptr, s_edge, held_a, max_passes, hu=False, hu_max=256):
    """The HVN passes over the renumbered graph (see the module docstring).

    Returns ``(uf, empty_node, passes)``: the union-find forest of the
    classes (int32[k], fully compressible with :func:`_find`), a node
    labelled 0 (-1 when none) and the passes run.

    Labels are int32: fixed ones 0, ``A(y) = 1 + y`` (y < n) and
    ``I(x) = 1 + n + x`` (x < k); fresh ones from ``1 + n + k`` on. Keys of
    reads (``L``: offset -1, ``G``: offset o) live in an open-addressing table
    of (base, offset, label) rows; sets of two or more input labels in one of
    (hash, set id) rows over a dense member store. Both start small (few
    nodes have two inputs) and double when half full.
    """
    n_gep = len(gep_off)
    label = np.full(k, -1, np.int32)
    next_label = 1 + n + k
    # a node that got each label: label 0 in a scalar, A(y) in held_a[y] (n entries: the caller's
    # cid, whose memory is free by now: no fresh pages), I(x) in held_i[x], fresh ones in held_f (grows)
    held_0 = -1
    held_a[:] = -1
    held_i = np.full(k, -1, np.int32)
    held_f = np.full(k + 16, -1, np.int32)
    uf = np.arange(k).astype(np.int32)
    keys = np.full((_capacity((n_load + n_gep) // 4), 3), -1, np.int32)
    n_keys = 0
    n_multi = 0
    for v in range(k):
        deg = (c_ptr[v + 1] - c_ptr[v]) + (a_ptr[v + 1] - a_ptr[v]) + (l_ptr[v + 1] - l_ptr[v]) \
            + (g_ptr[v + 1] - g_ptr[v])
        if deg > 1 or (deg > 0 and is_ind[v]):
            n_multi += 1
    sets = np.full((_capacity(n_multi), 2), -1, np.int32)      # (low hash bits, set id); id -1: free
    set_start = np.empty(n_multi + 16, np.int32)
    set_label = np.empty(n_multi + 16, np.int32)
    n_sets = 0
    members = np.empty(4 * n_multi + 16, np.int32)
    n_members = 0
    dirty = np.zeros(k, np.bool_)
    dirty_next = np.zeros(k, np.bool_)
    buf = np.empty(16, np.int32)
    hbuf = np.empty(16, np.int32)
    set_of = np.full(next_label + k + 16 if hu else 0, -1, np.int32)   # HU: set id of a set label
    passes = 0
    for p in range(max_passes):
        passes += 1
        merged = 0
        any_next = False
        for v in range(k):
            if p > 0:
                if not dirty[v]:
                    continue
                dirty[v] = False
            deg = (c_ptr[v + 1] - c_ptr[v]) + (a_ptr[v + 1] - a_ptr[v]) + (l_ptr[v + 1] - l_ptr[v]) \
                + (g_ptr[v + 1] - g_ptr[v])
            if deg + 1 > len(buf):
                buf = np.empty(2 * deg + 2, np.int32)
            m = 0
            for i in range(c_ptr[v], c_ptr[v + 1]):
                lab = label[c_in[i]]
                if lab > 0:
                    buf[m] = lab
                    m += 1
            for i in range(a_ptr[v], a_ptr[v + 1]):
                buf[m] = 1 + a_in[i]
                m += 1
            for r in range(2):
                lo = l_ptr[v] if r == 0 else g_ptr[v]
                hi = l_ptr[v + 1] if r == 0 else g_ptr[v + 1]
                for i in range(lo, hi):
                    y = l_in[i] if r == 0 else g_in[i]
                    b = -1 if r == 0 else g_off[i]
                    if y < v:
                        base = label[y]           # labelled in this pass
                    elif p == 0:
                        base = -(y + 1)           # placed at or after v: its id in pass 1 ...
                        dirty_next[v] = True      # ... and its label from pass 2 on
                        any_next = True
                    else:
                        base = label[y]           # not relabelled yet in this pass: its last label
                    if base == 0:
                        continue                  # a read through an always-empty pointer reads nothing
                    if 2 * (n_keys + 1) > len(keys):
                        keys = _key_grow(keys)
                    got, put = _key_get_or_put(keys, base, b, next_label)
                    if put:
                        next_label += 1
                        n_keys += 1
                    buf[m] = got
                    m += 1
            if is_ind[v]:
                buf[m] = 1 + n + v
                m += 1
            if m == 0:
                lab = 0
            elif m == 1:
                lab = buf[0]
            else:
                u = _sort_unique(buf, m)
                if hu and u > 1:
                    # HU: a set label stands for the union of its members (primitive labels, unless
                    # that union had more than hu_max: then HVN's set of labels, still exact)
                    m2 = 0
                    for i in range(u):
                        lab = buf[i]
                        c = set_of[lab] if lab < len(set_of) else -1
                        m2 += members[set_start[c]] if c >= 0 else 1
                    if u < m2 <= hu_max:
                        if m2 + 1 > len(hbuf):
                            hbuf = np.empty(2 * m2 + 2, np.int32)
                        m2 = 0
                        for i in range(u):
                            lab = buf[i]
                            c = set_of[lab] if lab < len(set_of) else -1
                            if c >= 0:
                                st = set_start[c]
                                for j in range(members[st]):
                                    hbuf[m2] = members[st + 1 + j]
                                    m2 += 1
                            else:
                                hbuf[m2] = lab
                                m2 += 1
                        u = _sort_unique(hbuf, m2)
                        if u + 1 > len(buf):
                            buf = np.empty(2 * u + 2, np.int32)
                        buf[:u] = hbuf[:u]
                if u == 1:
                    lab = buf[0]
                else:
                    if 2 * (n_sets + 1) > len(sets):
                        sets = _set_grow(sets, set_start, members, set_label)
                    if n_sets == len(set_start):
                        set_start = _grow(set_start)
                        set_label = _grow(set_label)
                    h = np.uint64(u)
                    for i in range(u):
                        h = _mix(h, buf[i])
                    h = _fmix(h)
                    h32 = np.int32(h & np.uint64(0x7FFFFFFF))
                    smask = np.uint64(len(sets) - 1)
                    slot = (h >> np.uint64(32)) & smask
                    lab = -1
                    while sets[slot, 1] >= 0:
                        c = sets[slot, 1]
                        if sets[slot, 0] == h32:
                            st = set_start[c]
                            same = members[st] == u
                            if same:
                                for i in range(u):
                                    if members[st + 1 + i] != buf[i]:
                                        same = False
                                        break
                            if same:
                                lab = set_label[c]
                                break
                        slot = (slot + np.uint64(1)) & smask
                    if lab < 0:
                        lab = next_label
                        next_label += 1
                        while n_members + u + 1 > len(members):
                            members = _grow(members)
                        members[n_members] = u             # length, then the sorted labels
                        members[n_members + 1:n_members + 1 + u] = buf[:u]
                        sets[slot, 0] = h32
                        sets[slot, 1] = n_sets
                        set_start[n_sets] = n_members
                        set_label[n_sets] = lab
                        n_members += u + 1
                        if hu:
                            while lab >= len(set_of):
                                set_of = _grow(set_of)
                            set_of[lab] = n_sets
                        n_sets += 1
            old = label[v] if p > 0 else -(v + 1)     # the key reads through v used so far
            if p > 0 and lab == old:
                continue
            label[v] = lab
            if lab == 0:
                held, at = held_a, -1
            elif lab <= n:
                held, at = held_a, lab - 1
            elif lab <= n + k:
                held, at = held_i, lab - 1 - n
            else:
                at = lab - 1 - n - k
                while at >= len(held_f):
                    held_f = _grow(held_f)
                held = held_f
            h = held_0 if at < 0 else held[at]
            if h < 0:
                if at < 0:
                    held_0 = v
                else:
                    held[at] = v
            elif _union(uf, h, v):
                merged += 1
            if p == 0 and not back[v]:
                continue                          # pass 1 marks nothing dirty: only aliases matter
            for i in range(s_ptr[v], s_ptr[v + 1]):
                e = s_edge[i]
                w = e_dst[e]
                if e < n_copy or w > v:
                    if p > 0:
                        dirty[w] = True           # reads v's new label later in this pass
                    continue
                # w reads through v and was placed at or before it: keyed by v's old key so far;
                # v's label inherits that key, so later reads through v (or its equals) agree
                dirty_next[w] = True
                any_next = True
                if w < v and lab > 0 and old != 0:
                    b = -1 if e < n_copy + n_load else gep_off[e - n_copy - n_load]
                    if 2 * (n_keys + 2) > len(keys):
                        keys = _key_grow(keys)
                    target, put = _key_get_or_put(keys, old, b, next_label)
                    if put:
                        next_label += 1
                        n_keys += 1
                    _, put = _key_get_or_put(keys, lab, b, target)
                    if put:
                        n_keys += 1
        # nodes with no input at all keep their fixed label (0 or I(v)) from pass 1
        if not any_next or (p > 0 and merged == 0):
            break
        dirty, dirty_next = dirty_next, dirty
    return uf, held_0, passes


@njit(cache=True, nogil=True)
def _set_grow(sets, set_start, members, set_label):
    """The set slot table rehashed into twice the slots (hashes recomputed from the members)."""
    out = np.full((2 * len(sets), 2), -1, np.int32)
    mask = np.uint64(len(out) - 1)
    for i in range(len(sets)):
        c = sets[i, 1]
        if c < 0:
            continue
        st = set_start[c]
        u = members[st]
        h = np.uint64(u)
        for j in range(u):
            h = _mix(h, members[st + 1 + j])
        h = _fmix(h)
        slot = (h >> np.uint64(32)) & mask
        while out[slot, 1] >= 0:
            slot = (slot + np.uint64(1)) & mask
        out[slot, 0] = sets[i, 0]
        out[slot, 1] = c
    return out


@njit(cache=True, nogil=True)
def _table(n, k, rep, ind, node_of, uf, empty_node):
    """The fixpoint table: each class led by its smallest ``rep`` id; one class for every empty node.

    Written over ``rep`` (the contracted table, a fixpoint: its roots get
    their class's leader first, then every node its root's entry). Returns
    ``(table int32[n], empty leader or -1, representatives of table)``.
    """
    min_id = np.full(k, n, np.int32)
    for v in range(k):
        r = _find(uf, v)
        if node_of[v] < min_id[r]:
            min_id[r] = node_of[v]
    empty_root = _find(uf, empty_node) if empty_node >= 0 else -1
    empty = min_id[empty_root] if empty_root >= 0 else n
    found = False
    for v in range(n):
        if rep[v] == v and not ind[v]:   # untouched (ind marks touched nodes too, see _graph)
            if not found:                  # the first of them decides the leader
                empty = min(empty, v)      # nothing flows in and nothing can store into it
                found = True
            rep[v] = empty
    if empty == n:
        empty = -1
    for v in range(k):
        r = _find(uf, v)
        rep[node_of[v]] = empty if r == empty_root else min_id[r]
    # every other entry points to a root whose entry is final now (the new entries form a fixpoint table)
    reps = 0
    for v in range(n):
        t = rep[rep[v]]
        rep[v] = t
        if t == v:
            reps += 1
    return rep, empty, reps
