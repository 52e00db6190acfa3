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
* ``x = y + o``        contributes ``G(label(y), o)``, for the same reason;
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
label inherits the key, so every read through ``y`` agrees. Label numbers
are never reused, so a label denotes one set in every pass, and nodes that
share a label in any pass are merged (union-find). Extra passes replace the
paper's HR iteration (rewriting the constraint set and running HVN again);
on the paper inputs two passes leave at most 1.3 % more nodes than eight
such rounds did, and a few more passes leave fewer (bench/results/preprocess-speed.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from constraints.model import ConstraintSet


def pointee_capable(cs: ConstraintSet) -> np.ndarray:
    """bool[n]: nodes that can appear in some points-to set.

    Address-taken nodes, and every field of a possible pointee (a gep from an
    object ``z`` yields ``z + o`` with ``o < obj_size[z]``), closed over
    nested objects.
    """
    n = cs.n_nodes
    cap = np.zeros(n, bool)
    cap[cs.addr_src] = True
    size = cs.obj_size.astype(np.int64)
    frontier = np.flatnonzero(cap & (size > 1))
    while frontier.size:
        lens = size[frontier] - 1
        starts = np.repeat(frontier + 1, lens)
        offs = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        fields = starts + offs
        fresh = fields[~cap[fields]]
        cap[fresh] = True
        frontier = np.unique(fresh[size[fresh] > 1])
    return cap


def hvn_labels(cs: ConstraintSet) -> np.ndarray:
    """Pointer-equivalence label of every representative of ``cs``.

    Parameters
    ----------
    cs : ConstraintSet
        Pointer-side ids already representatives and the copy graph acyclic
        (run SCC collapse first).

    Returns
    -------
    int64[n_nodes]
        Label per representative (0: the least points-to set is empty);
        -1 for merged nodes.

    Raises
    ------
    ValueError
        If the copy graph has a cycle.
    """
    rep = cs.rep.astype(np.int64)
    indirect = np.zeros(cs.n_nodes, np.bool_)
    indirect[rep[pointee_capable(cs)]] = True
    labels, _, ok, _ = label_round(cs.n_nodes, rep, indirect, cs.copy_src, cs.copy_dst, cs.addr_dst, cs.addr_src,
                                   cs.load_dst, cs.load_src, cs.gep_dst, cs.gep_src, cs.gep_offset)
    if not ok:
        raise ValueError("hvn_labels needs an acyclic copy graph (collapse SCCs first)")
    return labels


def label_round(n, rep, indirect, copy_src, copy_dst, addr_dst, addr_src,
                load_dst, load_src, gep_dst, gep_src, gep_off, max_passes: int = 1):
    """HVN passes on columns whose pointer-side ids are representatives.

    Returns ``(labels, new_rep, acyclic, passes)``: the last pass's labels
    (0 for every node proven empty, -1 for merged nodes), the merges found
    by all passes (each node to the smallest id of its class), whether the
    copy graph was acyclic (if not, nothing is labelled: every touched node
    gets -1 and nothing is merged; collapse SCCs and call again), and the
    passes run (stops early when one merges nothing new).

    Only nodes that some copy, load, gep or address-of constraint touches
    enter the compiled core (renumbered densely); every other
    representative is empty (merged into one class) or, when a store may
    write it, alone.
    """
    rep = np.asarray(rep, np.int64)
    cols = [np.asarray(c, np.int64) for c in (copy_src, copy_dst, addr_dst, load_dst, load_src, gep_dst, gep_src)]
    touched = np.zeros(n, np.bool_)
    for c in cols:
        touched[c] = True
    ids = np.flatnonzero(touched)
    cid = np.full(n, -1, np.int64)
    cid[ids] = np.arange(len(ids))
    c_copy_src, c_copy_dst, c_addr_dst, c_load_dst, c_load_src, c_gep_dst, c_gep_src = (cid[c] for c in cols)
    ind = np.ascontiguousarray(indirect, np.bool_)
    lab_c, rep_c, done, passes = _hvn(len(ids), n, np.arange(len(ids)), ind[ids],
                                      c_copy_src, c_copy_dst, c_addr_dst, np.asarray(addr_src, np.int64),
                                      c_load_dst, c_load_src, c_gep_dst, c_gep_src,
                                      np.asarray(gep_off, np.int64), max_passes)
    is_rep = rep == np.arange(n)
    labels = np.where(is_rep, 0, -1)
    alone = np.flatnonzero(is_rep & ind & ~touched)         # untouched: empty, or alone
    labels[alone] = (int(lab_c.max()) + 1 if len(lab_c) else 1) + np.arange(len(alone))
    labels[ids] = lab_c
    new_rep = np.arange(n, dtype=np.int64)
    new_rep[ids] = ids[rep_c]
    empty = np.flatnonzero(labels == 0)      # the core labels its whole empty class 0
    if empty.size:
        new_rep[empty] = empty[0]            # one class for every empty node, led by the smallest
    return labels, new_rep, bool(done), int(passes)


# ----------------------------------------------------------------- compiled core

@njit(cache=True)
def _csr(n, rows, vals):
    """Values grouped by row: (indptr, vals sorted by row, stable)."""
    ptr = np.zeros(n + 1, np.int64)
    for r in rows:
        ptr[r + 1] += 1
    for i in range(n):
        ptr[i + 1] += ptr[i]
    fill = ptr[:-1].copy()
    out = np.empty(len(rows), np.int64)
    for i in range(len(rows)):
        out[fill[rows[i]]] = vals[i]
        fill[rows[i]] += 1
    return ptr, out


@njit(cache=True)
def _mix(h, x):
    h ^= np.uint64(x) + np.uint64(0x9E3779B97F4A7C15) + (h << np.uint64(6)) + (h >> np.uint64(2))
    return h


@njit(cache=True)
def _fmix(h):
    """Murmur3's 64-bit finalizer: spreads every input bit over the low bits used as a slot."""
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


@njit(cache=True)
def _capacity(entries):
    cap = 16
    while cap < 2 * entries + 16:
        cap *= 2
    return cap


@njit(cache=True)
def _key_label(tab_a, tab_b, tab_lab, a, b, next_label):
    """Label of primitive key (a, b) in an open-addressing table; new keys get ``next_label``.

    Returns (label, next_label).
    """
    mask = np.uint64(len(tab_lab) - 1)
    h = _fmix(_mix(_mix(np.uint64(0x51ED27), a), b))
    i = h & mask
    while True:
        lab = tab_lab[i]
        if lab < 0:
            tab_a[i] = a
            tab_b[i] = b
            tab_lab[i] = next_label
            return next_label, next_label + 1
        if tab_a[i] == a and tab_b[i] == b:
            return lab, next_label
        i = (i + np.uint64(1)) & mask


@njit(cache=True)
def _key_alias(tab_a, tab_b, tab_lab, a, b, lab):
    """Give key (a, b) the label ``lab`` unless it has one already."""
    mask = np.uint64(len(tab_lab) - 1)
    h = _fmix(_mix(_mix(np.uint64(0x51ED27), a), b))
    i = h & mask
    while True:
        if tab_lab[i] < 0:
            tab_a[i] = a
            tab_b[i] = b
            tab_lab[i] = lab
            return
        if tab_a[i] == a and tab_b[i] == b:
            return
        i = (i + np.uint64(1)) & mask


@njit(cache=True)
def _insertion_sort_unique(buf, m):
    """Sort buf[:m] in place and drop repeats; returns the distinct count."""
    if m > 32:
        s = np.sort(buf[:m])
        buf[:m] = s
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


@njit(cache=True)
def _order(n, rep, copy_src, copy_dst, dep_src, dep_dst):
    """An order of the representatives in which every input comes first where it can.

    Strongly connected components of the dependency graph (copy, load and gep
    edges ``y -> x``; Tarjan, which emits sinks first) in topological order;
    inside a component, copy edges in topological order (loads and geps close
    the cycle). Returns the order; shorter than the number of
    representatives when the copy graph has a cycle.
    """
    src = np.concatenate((copy_src, dep_src))
    dst = np.concatenate((copy_dst, dep_dst))
    ptr, adj = _csr(n, src, dst)
    index = np.full(n, -1, np.int64)
    low = np.zeros(n, np.int64)
    on_stack = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    sp = 0
    comp = np.full(n, -1, np.int64)
    n_comp = 0
    call_v = np.empty(n, np.int64)
    call_i = np.empty(n, np.int64)
    counter = 0
    for s in range(n):
        if rep[s] != s or index[s] >= 0:
            continue
        depth = 0
        call_v[0] = s
        call_i[0] = ptr[s]
        index[s] = counter
        low[s] = counter
        counter += 1
        stack[sp] = s
        sp += 1
        on_stack[s] = True
        while depth >= 0:
            v = call_v[depth]
            i = call_i[depth]
            if i < ptr[v + 1]:
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
                    call_i[depth] = ptr[w]
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
            else:
                if low[v] == index[v]:
                    while True:
                        sp -= 1
                        w = stack[sp]
                        on_stack[w] = False
                        comp[w] = n_comp
                        if w == v:
                            break
                    n_comp += 1
                depth -= 1
                if depth >= 0:
                    u = call_v[depth]
                    if low[v] < low[u]:
                        low[u] = low[v]
    # nodes grouped by component, sources first
    c_ptr = np.zeros(n_comp + 1, np.int64)
    for v in range(n):
        if comp[v] >= 0:
            c_ptr[n_comp - comp[v]] += 1
    for c in range(n_comp):
        c_ptr[c + 1] += c_ptr[c]
    fill = c_ptr[:-1].copy()
    members = np.empty(c_ptr[n_comp], np.int64)
    for v in range(n):
        if comp[v] >= 0:
            c = n_comp - 1 - comp[v]
            members[fill[c]] = v
            fill[c] += 1
    # copy edges inside a component, in topological order (Kahn)
    csucc_ptr, csucc = _csr(n, copy_src, copy_dst)
    copy_in = np.zeros(n, np.int64)
    for i in range(len(copy_dst)):
        if copy_src[i] != copy_dst[i] and comp[copy_src[i]] == comp[copy_dst[i]]:
            copy_in[copy_dst[i]] += 1
    order = np.empty(len(members), np.int64)
    count = 0
    for c in range(n_comp):
        lo = c_ptr[c]
        hi = c_ptr[c + 1]
        if hi - lo == 1:
            order[count] = members[lo]
            count += 1
            continue
        head = count
        for i in range(lo, hi):
            if copy_in[members[i]] == 0:
                order[count] = members[i]
                count += 1
        while head < count:
            v = order[head]
            head += 1
            for i in range(csucc_ptr[v], csucc_ptr[v + 1]):
                w = csucc[i]
                if w != v and comp[w] == comp[v]:
                    copy_in[w] -= 1
                    if copy_in[w] == 0:
                        order[count] = w
                        count += 1
        if count < hi:
            break                           # a copy cycle: stop here
    return order[:count]


@njit(cache=True)
def _find(uf, v):
    while uf[v] != v:
        uf[v] = uf[uf[v]]
        v = uf[v]
    return v


@njit(cache=True)
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


@njit(cache=True)
def _hvn(n, n_addr, rep, indirect, copy_src, copy_dst, addr_dst, addr_src, load_dst, load_src, gep_dst, gep_src,
         gep_off, max_passes):
    """Order the nodes (:func:`_order`), renumber them in that order, label, map back.

    Renumbering makes the passes stream through memory and turns "placed
    before" into "smaller id". ``rep`` must be the identity (label_round
    compacts to representatives).
    """
    dep_src = np.concatenate((load_src, gep_src))
    dep_dst = np.concatenate((load_dst, gep_dst))
    order = _order(n, rep, copy_src, copy_dst, dep_src, dep_dst)
    if len(order) < n:
        return np.full(n, -1, np.int64), np.arange(n), False, 0
    pos = np.empty(n, np.int64)
    for i in range(n):
        pos[order[i]] = i
    lab_p, rep_p, passes = _hvn_ordered(n, n_addr, indirect[order], pos[copy_src], pos[copy_dst], pos[addr_dst],
                                        addr_src, pos[load_dst], pos[load_src], pos[gep_dst], pos[gep_src],
                                        gep_off, max_passes)
    label = np.empty(n, np.int64)
    min_id = np.full(n, n, np.int64)
    for i in range(n):
        label[order[i]] = lab_p[i]
        r = rep_p[i]
        if order[i] < min_id[r]:
            min_id[r] = order[i]
    new_rep = np.empty(n, np.int64)
    for i in range(n):
        new_rep[order[i]] = min_id[rep_p[i]]
    return label, new_rep, True, passes


@njit(cache=True)
def _hvn_ordered(n, n_addr, indirect, copy_src, copy_dst, addr_dst, addr_src, load_dst, load_src, gep_dst, gep_src,
                 gep_off, max_passes):
    # Nodes 0..n-1 numbered in processing order; addr_src ids 0..n_addr-1.
    # Fixed labels: 0, A(y) = 1 + y, I(x) = 1 + n_addr + x. Returns (label, class root, passes).
    cin_ptr, cin = _csr(n, copy_dst, copy_src)
    a_ptr, a_src = _csr(n, addr_dst, addr_src)
    l_ptr, l_src = _csr(n, load_dst, load_src)
    g_ptr, g_src = _csr(n, gep_dst, gep_src)
    _, g_off = _csr(n, gep_dst, gep_off)
    dep_src = np.concatenate((load_src, gep_src))
    dep_dst = np.concatenate((load_dst, gep_dst))
    n_load = len(load_dst)
    dsucc_ptr, dsucc = _csr(n, dep_src, np.arange(len(dep_dst)))   # edge ids: loads, then geps

    # nodes with no input at all: label 0, or I(v) when a store may write them; the rest are "active"
    label = np.full(n, -1, np.int64)
    active = np.empty(n, np.int64)
    n_active = 0
    for v in range(n):
        if cin_ptr[v + 1] == cin_ptr[v] and a_ptr[v + 1] == a_ptr[v] and l_ptr[v + 1] == l_ptr[v] \
                and g_ptr[v + 1] == g_ptr[v]:
            label[v] = 1 + n_addr + v if indirect[v] else 0
        else:
            active[n_active] = v
            n_active += 1
    uf = np.arange(n)
    first_fixed = np.full(1 + n_addr + n, -1, np.int64)   # fixed labels (0, A(y), I(x)) -> a node with it
    for v in range(n):
        lab = label[v]
        if lab >= 0:
            if first_fixed[lab] < 0:
                first_fixed[lab] = v
            else:
                _union(uf, first_fixed[lab], v)
    prev = np.full(n, -1, np.int64)
    pcap = _capacity(2 * (len(load_dst) + len(gep_dst)))
    p_a = np.empty(pcap, np.int64)
    p_b = np.empty(pcap, np.int64)
    p_lab = np.full(pcap, -1, np.int64)
    scap = _capacity(n_active)
    smask = np.uint64(scap - 1)
    s_hash = np.empty(scap, np.uint64)
    s_comp = np.full(scap, -1, np.int64)
    members_start = np.zeros(n_active + 2, np.int64)
    compound_label = np.zeros(n_active + 1, np.int64)
    members = np.zeros(64, np.int64)
    first_fresh = np.full(n_active + pcap + 1, -1, np.int64)
    next_label = 1 + n_addr + n
    buf = np.empty(16, np.int64)
    passes = 0
    for p in range(max_passes):
        passes += 1
        # fresh labels of this pass: numbers never reused, so a label denotes one set in every pass
        pass_start = next_label
        p_lab[:] = -1
        s_comp[:] = -1
        n_members = 0
        n_compound = 0
        for j in range(n_active):
            v = active[j]
            k = (cin_ptr[v + 1] - cin_ptr[v]) + (a_ptr[v + 1] - a_ptr[v]) + (l_ptr[v + 1] - l_ptr[v]) \
                + (g_ptr[v + 1] - g_ptr[v]) + 1
            if k > len(buf):
                buf = np.empty(2 * k, np.int64)
            m = 0
            for i in range(cin_ptr[v], cin_ptr[v + 1]):
                lab = label[cin[i]]
                if lab > 0:
                    buf[m] = lab
                    m += 1
            for i in range(a_ptr[v], a_ptr[v + 1]):
                buf[m] = 1 + a_src[i]
                m += 1
            for i in range(l_ptr[v], l_ptr[v + 1]):
                y = l_src[i]
                # y placed before v: its label of this pass; else its last pass's (or its id in pass 1)
                base = label[y] if y < v else (prev[y] if p > 0 else -(y + 1))
                if base == 0:
                    continue                   # load through an always-empty pointer reads nothing
                lab, next_label = _key_label(p_a, p_b, p_lab, base, -1, next_label)
                buf[m] = lab
                m += 1
            for i in range(g_ptr[v], g_ptr[v + 1]):
                y = g_src[i]
                base = label[y] if y < v else (prev[y] if p > 0 else -(y + 1))
                if base == 0:
                    continue
                lab, next_label = _key_label(p_a, p_b, p_lab, base, g_off[i], next_label)
                buf[m] = lab
                m += 1
            if indirect[v]:
                buf[m] = 1 + n_addr + v
                m += 1
            if m == 0:
                label[v] = 0
            else:
                u = _insertion_sort_unique(buf, m)
                if u == 1:
                    label[v] = buf[0]
                else:
                    h = np.uint64(u)
                    for i in range(u):
                        h = _mix(h, buf[i])
                    h = _fmix(h)
                    slot = h & smask
                    found = -1
                    while True:
                        c = s_comp[slot]
                        if c < 0:
                            break
                        if s_hash[slot] == h:
                            st = members_start[c]
                            if members_start[c + 1] - st == u:
                                same = True
                                for i in range(u):
                                    if members[st + i] != buf[i]:
                                        same = False
                                        break
                                if same:
                                    found = compound_label[c]
                                    break
                        slot = (slot + np.uint64(1)) & smask
                    if found < 0:
                        found = next_label
                        next_label += 1
                        c = n_compound
                        n_compound += 1
                        while n_members + u > len(members):
                            grown = np.zeros(2 * len(members), np.int64)
                            grown[:n_members] = members[:n_members]
                            members = grown
                        members_start[c] = n_members
                        for i in range(u):
                            members[n_members + i] = buf[i]
                        n_members += u
                        members_start[c + 1] = n_members
                        compound_label[c] = found
                        s_hash[slot] = h
                        s_comp[slot] = c
                    label[v] = found
            # loads/geps through v read earlier (w placed before v) were keyed by v's old key:
            # give v's label the same key, so later reads through v (or its equals) agree
            old_key = prev[v] if p > 0 else -(v + 1)
            if label[v] > 0 and old_key != 0 and old_key != label[v]:
                for i in range(dsucc_ptr[v], dsucc_ptr[v + 1]):
                    e = dsucc[i]
                    if dep_dst[e] < v:
                        b = -1 if e < n_load else gep_off[e - n_load]
                        lab, next_label = _key_label(p_a, p_b, p_lab, old_key, b, next_label)
                        _key_alias(p_a, p_b, p_lab, label[v], b, lab)
        # equal labels, in this pass or across passes, are equal sets: merge their nodes
        merged = 0
        for j in range(len(first_fresh)):
            if j >= next_label - pass_start:
                break
            first_fresh[j] = -1
        for j in range(n_active):
            v = active[j]
            lab = label[v]
            if lab < pass_start:
                if first_fixed[lab] < 0:
                    first_fixed[lab] = v
                elif _union(uf, first_fixed[lab], v):
                    merged += 1
            else:
                if first_fresh[lab - pass_start] < 0:
                    first_fresh[lab - pass_start] = v
                elif _union(uf, first_fresh[lab - pass_start], v):
                    merged += 1
        for j in range(n_active):
            prev[active[j]] = label[active[j]]
        if p > 0 and merged == 0:
            break
    root = np.empty(n, np.int64)
    for v in range(n):
        root[v] = _find(uf, v)
    if first_fixed[0] >= 0:
        empty_root = root[first_fixed[0]]
        for v in range(n):
            if root[v] == empty_root:
                label[v] = 0
    return label, root, passes
