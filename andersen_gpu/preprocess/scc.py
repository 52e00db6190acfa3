"""Offline cycle collapse: nodes on one copy cycle share one points-to set.

If ``x = y`` and ``y = x`` (through any chain of copies), every solution has
pts(x) == pts(y), so merging a strongly connected component of the copy graph
into one representative keeps the least solution.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from constraints.model import ConstraintSet


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
    """:func:`copy_scc_rep` on bare edge columns ``src -> dst`` over ``n`` nodes.

    Only nodes that carry an edge enter SciPy's SCC search (a compact graph).
    """
    out = np.arange(n, dtype=np.int64)
    if len(src) == 0 or n == 0:
        return out
    src = np.asarray(src, np.int64)
    dst = np.asarray(dst, np.int64)
    touched = np.zeros(n, bool)
    touched[src] = True
    touched[dst] = True
    ids = np.flatnonzero(touched)
    cid = np.cumsum(touched) - 1
    k, m = len(ids), len(src)
    graph = csr_matrix((np.ones(m, np.int8), (cid[src], cid[dst])), shape=(k, k))
    n_comp, labels = connected_components(graph, directed=True, connection="strong")
    if n_comp == k:
        return out
    smallest = np.full(n_comp, n, np.int64)
    np.minimum.at(smallest, labels, ids)
    out[ids] = smallest[labels]
    return out
