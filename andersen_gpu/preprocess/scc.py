"""Offline cycle collapse: nodes on one copy cycle share one points-to set.

If ``x = y`` and ``y = x`` (through any chain of copies), every solution has
pts(x) == pts(y), so merging a strongly connected component of the copy graph
into one representative keeps the least solution.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from constraints.model import ConstraintSet

from .hvn import _row_ptr, _scatter


def copy_scc_rep(cs: ConstraintSet) -> np.ndarray:
    """Merges that collapse every copy cycle of ``cs``.

    Parameters
    ----------
    cs : ConstraintSet
        Copy constraints are read as edges ``copy_src -> copy_dst``; ids are
        expected to be representatives already (see :func:`rewrite.apply_rep`).

    Returns
    -------
    int64[n_nodes]
        ``new_rep[v]``: the smallest id of v's strongly connected component
        (v itself for nodes on no cycle). Compose it with ``cs.rep``.
    """
    return scc_rep(cs.n_nodes, cs.copy_src, cs.copy_dst)


def scc_rep(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """:func:`copy_scc_rep` on bare edge columns ``src -> dst`` over ``n`` nodes (compiled:
    :func:`scc_labels` on the graph's CSR)."""
    if len(src) == 0 or n == 0:
        return np.arange(n, dtype=np.int64)
    return _scc_smallest(n, np.ascontiguousarray(src, np.int32), np.ascontiguousarray(dst, np.int32))


@njit(cache=True, nogil=True)
def _scc_smallest(n, src, dst):
    """int64[n]: the smallest id of each node's strongly connected component (itself off every
    cycle). Only the nodes that carry an edge enter the search (compact ids, in id order)."""
    cid = np.full(n, -1, np.int32)
    for i in range(len(src)):
        cid[src[i]] = 0
        cid[dst[i]] = 0
    k = 0
    for v in range(n):
        if cid[v] == 0:
            cid[v] = k
            k += 1
    ids = np.empty(k, np.int32)
    for v in range(n):
        if cid[v] >= 0:
            ids[cid[v]] = v
    csrc = np.empty(len(src), np.int32)
    cdst = np.empty(len(src), np.int32)
    for i in range(len(src)):
        csrc[i] = cid[src[i]]
        cdst[i] = cid[dst[i]]
    ptr = _row_ptr(k, csrc)
    adj = _scatter(ptr, csrc, cdst)
    comp, ncomp = scc_labels(k, ptr, adj)
    smallest = np.full(max(ncomp, 1), -1, np.int64)
    out = np.arange(n, dtype=np.int64)
    for c in range(k):          # compact ids ascend with the ids: a component's first is its smallest
        if smallest[comp[c]] < 0:
            smallest[comp[c]] = ids[c]
        out[ids[c]] = smallest[comp[c]]
    return out


@njit(cache=True, nogil=True)
def scc_labels(n, ptr, adj):
    """Strongly connected components of the graph ``v -> adj[ptr[v]:ptr[v + 1]]`` over ``n`` nodes
    (Tarjan's algorithm, iterative: an explicit call stack, so that a long chain overflows nothing).

    Returns ``(comp, ncomp)``: ``comp`` (int32[n]) each node's component, numbered in the order
    they complete (a component's successors complete before it: reverse topological order), -1
    for a node with no edge out that no edge reaches; ``ncomp`` the number of components.
    Searches start only from nodes with an edge out."""
    index = np.zeros(n, np.int32)     # 0: not visited yet; low[v]: the least index v reaches on the stack
    low = np.zeros(n, np.int32)
    comp = np.full(n, -1, np.int32)   # -1 while on the stack (a visited node is on it until its component is done)
    stack = np.empty(n, np.int32)
    call = np.empty(n, np.int32)      # the DFS path; next_edge[v]: v's next edge to follow
    next_edge = ptr[:n].copy()
    sp, counter, ncomp = 0, 1, 0
    for root in range(n):
        if index[root] != 0 or ptr[root] == ptr[root + 1]:
            continue
        depth = 0
        call[0] = root
        index[root] = low[root] = counter
        counter += 1
        stack[sp] = root
        sp += 1
        while depth >= 0:
            v = call[depth]
            if next_edge[v] < ptr[v + 1]:
                w = adj[next_edge[v]]
                next_edge[v] += 1
                if index[w] == 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack[sp] = w
                    sp += 1
                    depth += 1
                    call[depth] = w
                elif comp[w] < 0 and index[w] < low[v]:
                    low[v] = index[w]
                continue
            if low[v] == index[v]:
                while True:
                    sp -= 1
                    w = stack[sp]
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
            depth -= 1
            if depth >= 0:
                u = call[depth]
                if low[v] < low[u]:
                    low[u] = low[v]
    return comp, ncomp
