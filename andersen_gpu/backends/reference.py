"""The reference solver: pure Python, written to be obviously right.

A worklist over Python sets with difference propagation (each node passes on
only what it gained since it was last processed), one function per inference
rule. Meant for small inputs and as the oracle the fast backends are checked
against.

Storage: the points-to set of node ``v`` lives at ``rep[v]`` (the constraint
set's offline merges), so every pointer-side id is read through ``rep``;
pointees keep their own ids. Loads and stores through the int-to-pointer
object do nothing.
"""

from __future__ import annotations

import time
from collections import defaultdict

import numpy as np

from constraints.model import ConstraintSet

from ..solution import Solution, SolveStats


class _State:
    def __init__(self, cs: ConstraintSet):
        self.cs = cs
        self.rep = cs.rep.tolist()
        self.size = cs.gep_bound().tolist()
        self.walk_size = cs.walk_size().tolist() if len(cs.walk_dst) else self.size   # read by walks only
        self.call_bound = cs.call_bound().tolist() if len(cs.call_dst) else []      # read by call geps only
        self.i2p = cs.int_to_pointer
        self.fi = set(cs.field_insensitive.tolist())
        self.pts: dict[int, set[int]] = defaultdict(set)
        self.copy_succ: dict[int, set[int]] = defaultdict(set)   # y -> {x}: pts(y) ⊆ pts(x)
        self.loads: dict[int, list[int]] = defaultdict(list)     # y -> [x]: x = *y
        self.stores: dict[int, list[int]] = defaultdict(list)    # x -> [y]: *x = y
        self.geps: dict[int, list[tuple[int, int]]] = defaultdict(list)  # y -> [(x, o)]: x = y + o
        self.walks: dict[int, list[tuple[int, int]]] = defaultdict(list)  # y -> [(x, d)]: x = y +w d
        self.calls: dict[int, list[tuple[int, int]]] = defaultdict(list)  # y -> [(x, k)]: x = y +c k
        self.done: dict[int, set[int]] = defaultdict(set)        # part of pts(v) already propagated
        self.worklist: list[int] = []
        self.queued: set[int] = set()
        self.iterations = 0

    def push(self, v: int) -> None:
        if v not in self.queued:
            self.queued.add(v)
            self.worklist.append(v)


def _add_addr(st: _State, x: int, y: int) -> None:
    """``x = &y``  ⟹  y ∈ pts(x)."""
    st.pts[x].add(y)
    st.push(x)


def _add_copy_edge(st: _State, src: int, dst: int) -> None:
    """Record ``pts(src) ⊆ pts(dst)``; a new edge carries all of ``pts(src)`` at once."""
    if src != dst and dst not in st.copy_succ[src]:
        st.copy_succ[src].add(dst)
        have = st.pts.get(src)
        if have and not have <= st.pts[dst]:
            st.pts[dst] |= have
            st.push(dst)


def _rule_load(st: _State, y: int, z: int) -> None:
    """``y --load--> x``, ``z ∈ pts(y)``  ⟹  ``z --copy--> x``."""
    if z == st.i2p:
        return
    for x in st.loads.get(y, ()):
        _add_copy_edge(st, st.rep[z], x)


def _rule_store(st: _State, x: int, z: int) -> None:
    """``x --store--> y``, ``z ∈ pts(x)``  ⟹  ``y --copy--> z``."""
    if z == st.i2p:
        return
    for y in st.stores.get(x, ()):
        _add_copy_edge(st, y, st.rep[z])


def _shift(st: _State, edges: list[tuple[int, int]], bound: list[int], z: int, keep_fi: bool = True) -> None:
    """``z+o ∈ pts(x)`` for every ``(x, o)`` of ``edges`` with ``o < bound[z]``; ``z ∈ pts(x)``
    for every one when ``z`` is field-insensitive (and ``keep_fi``)."""
    fi = keep_fi and z in st.fi
    for x, o in edges:
        if fi or o < bound[z]:
            target = st.pts[x]
            w = z if fi else z + o
            if w not in target:
                target.add(w)
                st.push(x)


def _rule_gep(st: _State, y: int, z: int) -> None:
    """``y --gep,o--> x``, ``z ∈ pts(y)``, ``o < size(z)``  ⟹  ``z+o ∈ pts(x)``
    (``z`` itself when it is field-insensitive)."""
    _shift(st, st.geps.get(y, ()), st.size, z)


def _rule_walk(st: _State, y: int, z: int) -> None:
    """``y --walk,d--> x``, ``z ∈ pts(y)``, ``d < walk_size(z)``  ⟹  ``z+d ∈ pts(x)``
    (``z`` itself when it is field-insensitive)."""
    _shift(st, st.walks.get(y, ()), st.walk_size, z)


def _rule_call(st: _State, y: int, z: int) -> None:
    """``y --call,k--> x``, ``z ∈ pts(y)``, ``z`` a function, ``k < size(z)``  ⟹  ``z+k ∈ pts(x)``."""
    _shift(st, st.calls.get(y, ()), st.call_bound, z, keep_fi=False)


def _rule_copy(st: _State, y: int, src: set[int]) -> None:
    """``y --copy--> x``  ⟹  ``pts(y) ⊆ pts(x)`` (``src``: what y gained since last time)."""
    for x in list(st.copy_succ.get(y, ())):
        dst = st.pts[x]
        if not src <= dst:
            dst |= src
            st.push(x)


def solve(cs: ConstraintSet) -> Solution:
    """Least solution of ``cs`` by a worklist with difference propagation."""
    t0 = time.perf_counter()
    st = _State(cs)
    rep = st.rep
    for x, y in zip(cs.copy_dst.tolist(), cs.copy_src.tolist()):
        _add_copy_edge(st, rep[y], rep[x])
    for x, y in zip(cs.load_dst.tolist(), cs.load_src.tolist()):
        st.loads[rep[y]].append(rep[x])
    for x, y in zip(cs.store_dst.tolist(), cs.store_src.tolist()):
        st.stores[rep[x]].append(rep[y])
    for x, y, o in zip(cs.gep_dst.tolist(), cs.gep_src.tolist(), cs.gep_offset.tolist()):
        st.geps[rep[y]].append((rep[x], o))
    for x, y, d in zip(cs.walk_dst.tolist(), cs.walk_src.tolist(), cs.walk_offset.tolist()):
        st.walks[rep[y]].append((rep[x], d))
    for x, y, k in zip(cs.call_dst.tolist(), cs.call_src.tolist(), cs.call_offset.tolist()):
        st.calls[rep[y]].append((rep[x], k))
    for x, y in zip(cs.addr_dst.tolist(), cs.addr_src.tolist()):
        _add_addr(st, rep[x], y)

    while st.worklist:
        v = st.worklist.pop()
        st.queued.discard(v)
        st.iterations += 1
        delta = st.pts[v] - st.done[v]
        if not delta:
            continue
        st.done[v] |= delta
        for z in delta:
            _rule_load(st, v, z)
            _rule_store(st, v, z)
            _rule_gep(st, v, z)
            _rule_walk(st, v, z)
            _rule_call(st, v, z)
        _rule_copy(st, v, delta)

    n = cs.n_nodes
    rep_arr = cs.rep
    sets = [st.pts.get(v, ()) if rep_arr[v] == v else () for v in range(n)]
    sol = Solution.from_rep_sets(rep_arr, *_csr(sets), names=cs.names)
    sol.stats = SolveStats(backend="reference", iterations=st.iterations,
                           solve_ms=(time.perf_counter() - t0) * 1e3)
    return sol


def _csr(sets) -> tuple[np.ndarray, np.ndarray]:
    indptr = np.zeros(len(sets) + 1, np.int64)
    np.cumsum([len(s) for s in sets], out=indptr[1:])
    indices = np.fromiter((z for s in sets for z in sorted(s)), np.int32, count=int(indptr[-1]))
    return indptr, indices
