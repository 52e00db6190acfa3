r"""Objects reached by positive-weight cycles, collapsed to one field-insensitive node.

A *positive-weight cycle* is a cycle of copy and gep (or walk) edges with a gep of offset 1 or
more on it: ``for (; *s; s++)``, the front end's smear of an unknown offset (``t = y; u = t + 1;
t = u``). Every object such a cycle's pointer may hold is walked slot by slot, and each set the
cycle reaches lists all of its slots. Pearce, Kelly and Hankin (TOPLAS 2007, section 4) collapse
such an object to one field-insensitive node, as SVF does for an object reached by a variable
offset. :attr:`constraints.model.ConstraintSet.collapse_cycles` asks for it; :func:`collapse_reached`
applies it before any backend runs (``andersen_gpu.solve``), so every backend solves the same set.

Which objects: those in the set of a cycle node in the *object-level* solution, the solution of
the same constraints with every object field-insensitive (:func:`object_level`). Its sets hold,
for each node, at least the objects of the slots it holds in the field-sensitive solution, so every
object the cycle reaches there is collapsed (and a few more: the object-level solve is coarser).
Collapsing is sound whatever the choice (the collapsed object stands for all its slots); only
precision and the size of the sets depend on it.

A collapsed object ``o`` of ``k`` slots becomes ``obj_size[o] = 1`` in ``field_insensitive``; its
slots ``o+1 .. o+k-1`` are merged into it (``offline_rep``: their set is ``o``'s), and an ``x = &(o+j)``
points to ``o``. Node ids stay the same, so a solution of the collapsed set answers for every node of
the original one; a pointer into a collapsed object points to the object.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from constraints.model import ConstraintSet, NodeKind

from .hvn import _row_ptr, _scatter
from .rewrite import _derived, _pool
from .scc import scc_labels


@dataclass
class ObjectsStats:
    """What :func:`collapse_reached` did: the cycle nodes found, the objects collapsed (and their
    slots); the object-level solve's wall milliseconds (``presolve_ms``, the backend's preprocessing
    included), its rounds and its preprocessing's milliseconds as the backend reported them (0 when
    it did not), and the milliseconds of the rest (``host_ms``: finding the cycle nodes, making the
    object-level set, picking the objects from its solution; compiled with numba, on the host)."""

    cycle_nodes: int = 0
    objects: int = 0
    slots: int = 0
    presolve_ms: float = 0.0
    presolve_iterations: int = 0
    presolve_preprocess_ms: float = 0.0
    host_ms: float = 0.0

    def note(self) -> str:
        return (f"{self.objects:,} objects of {self.slots:,} slots collapsed "
                f"({self.cycle_nodes:,} nodes on positive-weight cycles; object-level solve {self.presolve_ms:.1f} ms "
                f"in {self.presolve_iterations:,} rounds, host {self.host_ms:.1f} ms)")


def cycle_nodes(cs: ConstraintSet) -> np.ndarray:
    """int32[k], ascending: the nodes on a cycle of copy, gep and walk edges that holds a gep or
    walk of offset at least 1 (a gep from a node to itself included). Ids are read through
    ``cs.rep`` (merged nodes share a set), and every member of a merged class is listed."""
    if cs.n_nodes == 0:
        return np.zeros(0, np.int32)
    i32 = lambda a: np.ascontiguousarray(a, np.int32)   # noqa: E731
    return _cycle_nodes(cs.n_nodes, i32(cs.rep), i32(cs.copy_src), i32(cs.copy_dst), i32(cs.gep_src),
                        i32(cs.gep_dst), i32(cs.gep_offset), i32(cs.walk_src), i32(cs.walk_dst))


@njit(cache=True, nogil=True)
def _cycle_nodes(n, rep, copy_src, copy_dst, gep_src, gep_dst, gep_offset, walk_src, walk_dst):
    """:func:`cycle_nodes` on the columns: the edges ``rep[src] -> rep[dst]`` as one CSR graph,
    its strongly connected components (:func:`.scc.scc_labels`), then the components a positive
    edge stays inside."""
    nc, ng, nw = len(copy_src), len(gep_src), len(walk_src)
    src = np.empty(nc + ng + nw, np.int32)
    dst = np.empty(nc + ng + nw, np.int32)
    for i in range(nc):
        src[i], dst[i] = rep[copy_src[i]], rep[copy_dst[i]]
    for i in range(ng):
        src[nc + i], dst[nc + i] = rep[gep_src[i]], rep[gep_dst[i]]
    for i in range(nw):
        src[nc + ng + i], dst[nc + ng + i] = rep[walk_src[i]], rep[walk_dst[i]]
    ptr = _row_ptr(n, src)
    adj = _scatter(ptr, src, dst)
    comp, ncomp = scc_labels(n, ptr, adj)
    positive = np.zeros(max(ncomp, 1), np.bool_)
    for i in range(ng):
        if gep_offset[i] > 0:
            s, d = rep[gep_src[i]], rep[gep_dst[i]]
            if comp[s] == comp[d]:
                positive[comp[s]] = True
    for i in range(nw):
        s, d = rep[walk_src[i]], rep[walk_dst[i]]
        if comp[s] == comp[d]:
            positive[comp[s]] = True
    k = 0
    for v in range(n):
        c = comp[rep[v]]
        if c >= 0 and positive[c]:
            k += 1
    out = np.empty(k, np.int32)
    k = 0
    for v in range(n):
        c = comp[rep[v]]
        if c >= 0 and positive[c]:
            out[k] = v
            k += 1
    return out


def _collapsible(cs: ConstraintSet, objects) -> np.ndarray:
    """int64[k], ascending: the objects of ``objects`` that have slots to merge: memory objects (not
    functions, whose slots are a call's parameter cells) of more than one slot, each outside the
    slots of the others (of nested ones, the outermost)."""
    return _outermost(np.asarray(objects, np.int64), cs.obj_size, cs.kind, np.int8(NodeKind.OBJECT))


@njit(cache=True, nogil=True)
def _outermost(objects, obj_size, kind, object_kind):
    """:func:`_collapsible` on ``objects`` (int64 node ids, any order, repeats allowed): in
    ascending order, those of kind ``object_kind`` and more than one slot that start past the span
    of the last one kept."""
    n = len(obj_size)
    listed = np.zeros(n, np.bool_)
    for o in objects:
        listed[o] = True
    keep = np.empty(min(len(objects), n), np.int64)
    k, end = 0, -1
    for o in range(n):
        if listed[o] and obj_size[o] > 1 and kind[o] == object_kind and o >= end:
            keep[k] = o
            k += 1
            end = o + obj_size[o]
    return keep[:k]


def _slot_owner(cs: ConstraintSet, objs: np.ndarray) -> np.ndarray:
    """int32[n]: the object each slot of ``objs`` (from :func:`_collapsible`) is merged into, every
    other node itself."""
    lengths = cs.obj_size[objs].astype(np.int64) - 1
    owner = np.repeat(objs, lengths)
    start = np.repeat(np.cumsum(lengths) - lengths, lengths)
    into = np.arange(cs.n_nodes, dtype=np.int32)
    into[owner + 1 + (np.arange(len(owner)) - start)] = owner
    return into


def collapse_objects(cs: ConstraintSet, objects) -> ConstraintSet:
    """``cs`` with each memory object of ``objects`` of more than one slot made one
    field-insensitive node (module docstring); others are left as they are.

    Parameters
    ----------
    cs : ConstraintSet
    objects : array of int
        Node ids of objects (any order; functions and one-slot objects are skipped).

    Returns
    -------
    ConstraintSet
        Same nodes and ids; ``collapse_cycles`` as in ``cs``.
    """
    objs = _collapsible(cs, objects)
    n = cs.n_nodes
    if not len(objs):
        return cs
    into = _slot_owner(cs, objs)
    if cs.offline_rep is None:
        rep = into
    else:   # a slot's class joins its object's class: one representative (the least id) for both
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components
        ids = np.arange(n)
        graph = coo_matrix((np.ones(2 * n, np.int8), (np.concatenate((ids, ids)),
                                                      np.concatenate((cs.offline_rep, into)))), shape=(n, n))
        _, label = connected_components(graph, directed=False)
        least = np.full(label.max() + 1, n, np.int64)
        np.minimum.at(least, label, ids)
        rep = least[label].astype(np.int32)
    size = cs.obj_size.copy()
    size[objs] = 1
    fi = np.union1d(cs.field_insensitive, objs).astype(np.int32)
    # every column is the validated set's or mapped through ``into`` (ids in range): not validated again
    return _derived(cs, obj_size=size, addr_src=into[cs.addr_src], hcd_target=into[cs.hcd_target],
                    field_insensitive=fi, offline_rep=rep)


def object_level(cs: ConstraintSet) -> tuple[ConstraintSet, np.ndarray]:
    """``cs`` with every memory object field-insensitive (:func:`collapse_objects` of all of them),
    and numbered densely: its least solution holds, for every node, at least the objects of the
    slots the least solution of ``cs`` holds.

    Returns
    -------
    (ConstraintSet, int32[n_nodes of cs])
        The object-level set and each node's id in it. Without offline merges in ``cs``, the merged
        slots are left out and the nodes that may be pointed to (objects, functions and their
        slots) come first, in their order, then the rest and one padding value, so that a set of
        objects is a dense range of ids
        (the solvers' sets cost words per range of 64 ids, and at object level the slots and
        values between two objects would leave one bit a word); with merges, the ids are kept.
    """
    objs = _collapsible(cs, np.flatnonzero(cs.obj_size > 1))
    if cs.offline_rep is not None:
        return collapse_objects(cs, objs).replace(collapse_cycles=False), np.arange(cs.n_nodes, dtype=np.int32)
    into = _slot_owner(cs, objs)
    order, new, size, kind, spans_kept = _dense_ids(into, cs.obj_size, cs.kind, objs, np.int8(NodeKind.VALUE))
    m = lambda col: _take(new, col)      # noqa: E731
    # an offset past every span applies to no object but a field-insensitive one (a call gep's to
    # none), as the largest span's size does: offsets stay below the (smaller) node count, one
    # padding value after the rest
    top = np.int32(max(1, int(size.max(initial=0))))
    clamp = lambda off: np.minimum(off, top).astype(np.int32, copy=False)   # noqa: E731
    fi = np.union1d(cs.field_insensitive, objs)
    # every column is the validated set's mapped through ``new`` (ids below len(order)), offsets
    # clamped below it, sizes and kinds those of the kept nodes: not validated again (_derived;
    # tests/test_objects.py validates it on random sets)
    coarse = _derived(
        cs, n_nodes=len(order) + 1, obj_size=size, kind=kind,
        addr_dst=m(cs.addr_dst), addr_src=m(cs.addr_src), copy_dst=m(cs.copy_dst), copy_src=m(cs.copy_src),
        load_dst=m(cs.load_dst), load_src=m(cs.load_src), store_dst=m(cs.store_dst), store_src=m(cs.store_src),
        gep_dst=m(cs.gep_dst), gep_src=m(cs.gep_src), gep_offset=clamp(cs.gep_offset),
        int_to_pointer=int(new[cs.int_to_pointer]) if cs.int_to_pointer >= 0 else -1, offline_rep=None,
        hcd_ptr=m(cs.hcd_ptr), hcd_target=m(cs.hcd_target), walk_dst=m(cs.walk_dst), walk_src=m(cs.walk_src),
        walk_offset=clamp(cs.walk_offset), field_insensitive=np.unique(new[fi]).astype(np.int32),
        collapse_cycles=False, call_dst=m(cs.call_dst), call_src=m(cs.call_src),
        call_offset=clamp(cs.call_offset), call_geps=cs.call_geps, names=None, locations=None)
    if not spans_kept:
        # a kept span lost a node (an object nested in a function's slots was collapsed): the
        # validating constructor decides, as it always did (InputError where the span runs past)
        coarse = coarse.replace()
    return coarse, new


@njit(cache=True, nogil=True)
def _dense_ids(into, obj_size, kind, objs, value_kind):
    """(order, new, size, kinds, spans_kept) for :func:`object_level`: ``order`` (int32[k]) the kept nodes
    (``into[v] == v``), first those inside some kept object's span ``[z, z + size[z])`` (``size``:
    ``obj_size`` with 1 for the collapsed ``objs``), then the rest, each part ascending; ``new``
    (int32[n]) each node's position in ``order``, a merged node its owner's; ``size`` (int32[k + 1])
    and ``kinds`` (int8[k + 1]) the object-level set's: the kept nodes' in ``order``, then a value of
    size 0 (the padding node); and whether every kept span of more than one slot kept all its
    nodes, in order (so that its new span covers its own slots)."""
    n = len(into)
    one = np.zeros(n, np.bool_)
    for z in objs:
        one[z] = True
    spanned = np.zeros(n, np.bool_)
    end = 0
    for z in range(n):            # spans nest or follow one another: the furthest end so far
        sz = 1 if one[z] else obj_size[z]
        if into[z] == z and sz > 0 and z + sz > end:
            end = z + sz
        if z < end:
            spanned[z] = True
    order = np.empty(n, np.int32)
    k = 0
    for z in range(n):
        if into[z] == z and spanned[z]:
            order[k] = z
            k += 1
    for z in range(n):
        if into[z] == z and not spanned[z]:
            order[k] = z
            k += 1
    new = np.empty(n, np.int32)
    size = np.empty(k + 1, np.int32)
    kinds = np.empty(k + 1, np.int8)
    for i in range(k):
        z = order[i]
        new[z] = i
        size[i] = 1 if one[z] else obj_size[z]
        kinds[i] = kind[z]
    size[k] = 0
    kinds[k] = value_kind
    for z in range(n):
        new[z] = new[into[z]]     # an owner comes before its slots
    spans_kept = True
    for i in range(k):
        z = order[i]
        for j in range(1, size[i]):
            if z + j >= n or new[z + j] != i + j:
                spans_kept = False
    return order[:k], new, size, kinds, spans_kept


@njit(cache=True, nogil=True)
def _take(table, col):
    """int32 ``table[col]``."""
    out = np.empty(len(col), np.int32)
    for i in range(len(col)):
        out[i] = table[col[i]]
    return out


@njit(cache=True, nogil=True)
def _least_nodes(new, m, n):
    """int64[m]: per object-level id, the least node of ``new`` that has it (``n`` where none)."""
    old = np.full(m, n, np.int64)
    for v in range(len(new) - 1, -1, -1):
        old[new[v]] = v
    return old


def collapse_reached(cs: ConstraintSet, solve) -> tuple[ConstraintSet, ObjectsStats]:
    """The set to solve for ``cs`` when ``cs.collapse_cycles`` (module docstring).

    Parameters
    ----------
    cs : ConstraintSet
    solve : callable(ConstraintSet) -> Solution
        Solves the object-level set (any backend: the least solution is the same).

    Returns
    -------
    (ConstraintSet, ObjectsStats)
        The collapsed set, with ``collapse_cycles`` cleared, and what was done.
    """
    stats = ObjectsStats()
    t0 = time.perf_counter()
    # the object-level set does not depend on the cycle nodes: made in a worker thread meanwhile
    # (both stages are compiled, mostly without the GIL), and dropped where there is no cycle
    has_slots = bool(np.any(cs.obj_size > 1))
    pool = _pool() if has_slots else None
    job = pool.submit(object_level, cs) if pool is not None else None
    cyc = cycle_nodes(cs)
    stats.cycle_nodes = int(len(cyc))
    out = cs
    if len(cyc) and has_slots:
        coarse, new = job.result() if job is not None else object_level(cs)
        t = time.perf_counter()
        sol = solve(coarse)
        stats.presolve_ms = (time.perf_counter() - t) * 1e3
        if sol.stats is not None:
            stats.presolve_iterations = int(sol.stats.iterations)
            notes = sol.stats.notes
            stats.presolve_preprocess_ms = float(notes.get("preprocess_ms", notes.get("preprocess ms", 0.0)))
        sets = np.unique(sol.node_set[new[cyc]])
        held = np.concatenate([sol.set_indices[sol.set_indptr[s]:sol.set_indptr[s + 1]] for s in sets.tolist()])
        old = _least_nodes(new, coarse.n_nodes, cs.n_nodes)   # a coarse id's node in cs: the least of its
        objs = _collapsible(cs, old[held])                       # nodes (an object before its merged slots)
        stats.objects = int(len(objs))
        stats.slots = int(cs.obj_size[objs].sum())
        out = collapse_objects(cs, objs)
    stats.host_ms = (time.perf_counter() - t0) * 1e3 - stats.presolve_ms
    # only the flag changes: the columns are those validated already
    return _derived(out, collapse_cycles=False), stats
