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
    n = cs.n_nodes
    if cs.count("copy") == 0 or n == 0:
        return np.arange(n, dtype=np.int64)
    graph = csr_matrix((np.ones(cs.count("copy"), np.int8), (cs.copy_src, cs.copy_dst)), shape=(n, n))
    _, labels = connected_components(graph, directed=True, connection="strong")
    smallest = np.full(labels.max() + 1, n, np.int64)
    np.minimum.at(smallest, labels, np.arange(n, dtype=np.int64))
    return smallest[labels]
