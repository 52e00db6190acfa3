"""Offline variable substitution: hash-based value numbering (HVN).

Hardekopf and Lin, "Exploiting pointer and location equivalence to optimize
pointer analysis", SAS 2007. Every representative gets a *pointer-equivalence
label*; two nodes with the same label have the same least points-to set, so
they can share one set. Label 0 means "always empty".

A node's label is derived from what can flow into it, in topological order of
the (acyclic, after SCC collapse) copy graph:

* ``x = &y``           contributes the primitive label ``A(y)``;
* ``x = *y``           contributes ``L(y)`` (the same for every load of y);
* ``x = y + o``        contributes ``G(y, o)`` (the same for every such gep);
* ``x = y``            contributes label(y);
* x may be written by a store (it is, or is the representative of, a node
  that can appear in a points-to set): a label ``I(x)`` of its own.

The label of a node is its single input label when it has one, else the
number of its *set* of input labels. This is exact under the project's
semantics: equal input-label sets denote equal unions of equal sets, by
induction along the topological order. A hash collision between different
sets only costs a merge (the node gets a fresh label), never correctness.
Running the pass again after merging refines ``L`` and ``G`` (they are keyed
by representatives), which is the iteration of the paper's HR algorithm.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba import types
from numba.typed import Dict

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
    n = cs.n_nodes
    rep = cs.rep.astype(np.int64)
    indirect = np.zeros(n, np.bool_)
    indirect[rep[pointee_capable(cs)]] = True
    stride = int(cs.gep_offset.max()) + 1 if cs.count("gep") else 1   # gep key: (src, offset)
    labels = _hvn(n, rep, indirect,
                  _csr(n, cs.copy_dst, cs.copy_src),
                  _csr(n, cs.addr_dst, cs.addr_src),
                  _csr(n, cs.load_dst, cs.load_src),
                  _csr(n, cs.gep_dst, cs.gep_src.astype(np.int64) * stride + cs.gep_offset),
                  cs.copy_src.astype(np.int64), cs.copy_dst.astype(np.int64))
    if labels[0] == -2:
        raise ValueError("hvn_labels needs an acyclic copy graph (collapse SCCs first)")
    return labels


def _csr(n: int, rows: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(rows, kind="stable")
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr, np.asarray(vals, np.int64)[order]


@njit(cache=True)
def _mix(h, x):
    h ^= np.uint64(x) + np.uint64(0x9E3779B97F4A7C15) + (h << np.uint64(6)) + (h >> np.uint64(2))
    return h


@njit(cache=True)
def _hvn(n, rep, indirect, copy_in, addr_in, load_in, gep_in, copy_src, copy_dst):
    cin_ptr, cin = copy_in
    a_ptr, a_src = addr_in
    l_ptr, l_src = load_in
    g_ptr, g_key = gep_in
    label = np.full(n, -1, np.int64)
    # Kahn's algorithm over the copy DAG: succ CSR and in-degrees.
    indeg = np.zeros(n, np.int64)
    for d in copy_dst:
        indeg[d] += 1
    s_ptr = np.zeros(n + 1, np.int64)
    for s in copy_src:
        s_ptr[s + 1] += 1
    for i in range(n):
        s_ptr[i + 1] += s_ptr[i]
    fill = s_ptr[:-1].copy()
    succ = np.empty(len(copy_dst), np.int64)
    for i in range(len(copy_src)):
        succ[fill[copy_src[i]]] = copy_dst[i]
        fill[copy_src[i]] += 1
    queue = np.empty(n, np.int64)
    head = 0
    tail = 0
    for v in range(n):
        if rep[v] == v and indeg[v] == 0:
            queue[tail] = v
            tail += 1
    gep_label = Dict.empty(key_type=types.int64, value_type=types.int64)
    set_label = Dict.empty(key_type=types.uint64, value_type=types.int64)
    # Compound labels: sorted member labels in ``members[members_start[c]:members_start[c+1]]``.
    members_start = np.zeros(16, np.int64)
    compound_label = np.zeros(16, np.int64)
    members = np.zeros(64, np.int64)
    n_members = 0
    n_compound = 0
    next_label = 1 + 3 * n
    buf = np.empty(16, np.int64)
    processed = 0
    while head < tail:
        v = queue[head]
        head += 1
        processed += 1
        k = (cin_ptr[v + 1] - cin_ptr[v]) + (a_ptr[v + 1] - a_ptr[v]) + (l_ptr[v + 1] - l_ptr[v]) \
            + (g_ptr[v + 1] - g_ptr[v]) + 1
        if k > len(buf):
            buf = np.empty(2 * k, np.int64)
        m = 0
        for i in range(cin_ptr[v], cin_ptr[v + 1]):
            lab = label[cin[i]]
            if lab != 0:
                buf[m] = lab
                m += 1
        for i in range(a_ptr[v], a_ptr[v + 1]):
            buf[m] = 1 + a_src[i]
            m += 1
        for i in range(l_ptr[v], l_ptr[v + 1]):
            buf[m] = 1 + n + l_src[i]
            m += 1
        for i in range(g_ptr[v], g_ptr[v + 1]):
            key = g_key[i]
            if key not in gep_label:
                gep_label[key] = next_label
                next_label += 1
            buf[m] = gep_label[key]
            m += 1
        if indirect[v]:
            buf[m] = 1 + 2 * n + v
            m += 1
        if m == 0:
            label[v] = 0
        else:
            s = np.sort(buf[:m])
            u = 1
            for i in range(1, m):
                if s[i] != s[u - 1]:
                    s[u] = s[i]
                    u += 1
            if u == 1:
                label[v] = s[0]
            else:
                h = np.uint64(u)
                for i in range(u):
                    h = _mix(h, s[i])
                found = -1
                if h in set_label:
                    c = set_label[h]
                    st = members_start[c]
                    if members_start[c + 1] - st == u:
                        same = True
                        for i in range(u):
                            if members[st + i] != s[i]:
                                same = False
                                break
                        if same:
                            found = compound_label[c]
                    if found < 0:           # collision: a fresh, unshared label keeps it exact
                        found = next_label
                        next_label += 1
                else:
                    found = next_label
                    next_label += 1
                    c = n_compound
                    n_compound += 1
                    if c + 2 > len(members_start):
                        grown = np.zeros(2 * len(members_start), np.int64)
                        grown[:c + 1] = members_start[:c + 1]
                        members_start = grown
                        grown = np.zeros(2 * len(compound_label), np.int64)
                        grown[:c] = compound_label[:c]
                        compound_label = grown
                    while n_members + u > len(members):
                        grown = np.zeros(2 * len(members), np.int64)
                        grown[:n_members] = members[:n_members]
                        members = grown
                    members_start[c] = n_members
                    for i in range(u):
                        members[n_members + i] = s[i]
                    n_members += u
                    members_start[c + 1] = n_members
                    compound_label[c] = found
                    set_label[h] = c
                label[v] = found
        for i in range(s_ptr[v], s_ptr[v + 1]):
            w = succ[i]
            indeg[w] -= 1
            if indeg[w] == 0:
                queue[tail] = w
                tail += 1
    n_reps = 0
    for v in range(n):
        if rep[v] == v:
            n_reps += 1
    if processed != n_reps:
        label[0] = -2
    return label
