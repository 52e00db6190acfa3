"""Per-instruction alias facts: what each memory access and call may touch.

Given a program's constraint set, its recorded access sites
(:class:`constraints.llvm.access_sites.AccessSites`) and a solution,
:func:`build_facts` gives every site a **location set**: the field slots
(node ids of objects and their fields) one execution of it may read or write.

* ``load``/``store``/``atomic``: for each pointee ``z`` of the address, the
  slots ``z .. z+w-1`` (``w`` the site's width: how many slots an access of
  that many bytes can cover, never past the object's end);
* ``memcpy``/``memmove``/``memset``: the same for each pointer operand (a
  length that is not a constant covers every slot to the object's end);
* ``call``: its mod/ref summary. A defined callee (directly or through a
  function pointer, whose targets are the functions in its points-to set: a
  C++ vtable slot's set also holds the typeinfo objects beside the virtual
  functions, and control never goes to data) contributes every location its body and, transitively,
  its callees touch; a modelled external or a non-memory intrinsic the whole
  objects its pointer arguments point into (and the callbacks it is handed);
  alias assertions nothing.

A site is **unknown** (location set id -1) when the analysis cannot bound
it: an operand with no points-to target, one whose set holds the
int-to-pointer object, a call to an unmodelled external or inline assembly,
or a call that reaches one. Unknown sites may alias everything.

Unmodelled externals are made visible first (:func:`with_unknown_externals`):
their results, and what they may write through their pointer arguments,
point to the int-to-pointer object, so a pointer that merely *might* come
from unknown code is unknown too, not just one that certainly does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from graphlib import TopologicalSorter

import numpy as np

from constraints.llvm.access_sites import ACCESS_KINDS, AccessSites
from constraints.model import ConstraintSet, NodeKind

from ..solution import Solution

UNKNOWN = -1


def with_unknown_externals(cs: ConstraintSet, sites: AccessSites) -> ConstraintSet:
    """``cs`` plus constraints that let unknown code's pointers reach the int-to-pointer object.

    For every call site to an unmodelled external or inline assembly, and for
    the slots of every unmodelled external function (reached by indirect
    calls): the result points to the int-to-pointer object ``U``, and every
    slot at or after what a pointer argument points to may receive a pointer
    to ``U``. ``U`` is created when ``cs`` has none. Node ids of ``cs`` are kept.

    Parameters
    ----------
    cs : the program's constraints
    sites : its access sites (``extract_with_stats(..., record_sites=True)``)

    Returns
    -------
    ConstraintSet
        A new set whose least solution agrees with ``cs``'s on every node,
        except that pointers which may come from unknown code also point to ``U``.
    """
    n = cs.n_nodes
    names = list(cs.names) if cs.names is not None else None
    sizes, kinds = [], []
    addr, copy, store, gep = [], [], [], []

    def new(name, size=0, kind=NodeKind.VALUE):
        sizes.append(size)
        kinds.append(int(kind))
        if names is not None:
            names.append(name)
        return n + len(sizes) - 1

    u = cs.int_to_pointer if cs.int_to_pointer >= 0 else new("<int-to-pointer>", 1, NodeKind.OBJECT)
    unk = new("<unknown-code>")
    addr.append((unk, u))

    def clobber(a):
        # *(a + any) = unk:  t = a; v = t + 1; t = v; *t = unk
        t, v = new("<unknown-code>.arg"), new("<unknown-code>.arg+1")
        copy.extend(((t, a), (t, v)))
        gep.append((v, t, 1))
        store.append((t, unk))

    for i in range(len(sites)):
        if sites.call_class[i] in ("unmodelled", "asm"):
            if sites.result[i] >= 0:
                addr.append((sites.result[i], u))
            for a in sites.operand_nodes(i):
                if a >= 0:
                    clobber(a)
    if cs.names is not None:
        index = {cs.names[z]: z for z in np.flatnonzero(cs.kind == NodeKind.FUNCTION)}
        for fname, cls in sites.function_class.items():
            F = index.get(f"@{fname}")
            if cls != "unmodelled" or F is None:
                continue
            addr.append((F + 1, u))              # @f#ret
            for slot in range(F + 2, F + int(cs.obj_size[F])):
                clobber(slot)                    # @f#argK, @f#va
    i32 = np.int32

    def cat(old, extra):
        return np.concatenate([old, np.asarray(extra, np.int64).astype(i32)]) if extra else old

    def col(pairs, k):
        return [p[k] for p in pairs]

    return ConstraintSet(
        n + len(sizes),
        np.concatenate([cs.obj_size, np.asarray(sizes, np.int64)]).astype(np.int64),
        np.concatenate([cs.kind, np.asarray(kinds, np.int8)]),
        cat(cs.addr_dst, col(addr, 0)), cat(cs.addr_src, col(addr, 1)),
        cat(cs.copy_dst, col(copy, 0)), cat(cs.copy_src, col(copy, 1)),
        cs.load_dst, cs.load_src,
        cat(cs.store_dst, col(store, 0)), cat(cs.store_src, col(store, 1)),
        cat(cs.gep_dst, col(gep, 0)), cat(cs.gep_src, col(gep, 1)), cat(cs.gep_offset, col(gep, 2)),
        int_to_pointer=u,
        offline_rep=None if cs.offline_rep is None else np.concatenate(
            [cs.offline_rep, np.arange(n, n + len(sizes), dtype=np.int64)]).astype(i32),
        hcd_ptr=cs.hcd_ptr, hcd_target=cs.hcd_target, field_insensitive=cs.field_insensitive,
        walk_dst=cs.walk_dst, walk_src=cs.walk_src, walk_offset=cs.walk_offset,
        call_dst=cs.call_dst, call_src=cs.call_src, call_offset=cs.call_offset, call_geps=cs.call_geps,
        collapse_cycles=cs.collapse_cycles, names=tuple(names) if names is not None else None,
        locations=tuple(cs.locations) + ("",) * len(sizes) if cs.locations is not None else None)


@dataclass
class AliasFacts:
    """Location sets of a program's access sites, and the alias relation they give.

    Attributes
    ----------
    sites : the access sites (one entry per site, see :class:`AccessSites`)
    site_set : int32[n_sites], id of each site's location set, -1 when unknown
    set_indptr, set_indices : CSR of the distinct location sets (sorted node ids)
    names : node names, for reports (``*@g#1``, ``*f:%buf``...)
    """

    sites: AccessSites
    site_set: np.ndarray
    set_indptr: np.ndarray
    set_indices: np.ndarray
    names: tuple[str, ...] | None = None
    _by_key: dict = field(default_factory=dict, repr=False)
    _by_function: dict = field(default_factory=dict, repr=False)

    @property
    def n_sets(self) -> int:
        return len(self.set_indptr) - 1

    def location_set(self, s: int) -> np.ndarray:
        """The sorted node ids of location set ``s``."""
        return self.set_indices[self.set_indptr[s]:self.set_indptr[s + 1]]

    def site(self, key) -> int:
        """Index of a site given its index or its stable id ``(function, block, index)``."""
        if isinstance(key, (int, np.integer)):
            if not 0 <= key < len(self.sites):
                raise KeyError(f"site {key} outside [0, {len(self.sites)})")
            return int(key)
        if not self._by_key:
            self._by_key.update((self.sites.key(i), i) for i in range(len(self.sites)))
        key = (key[0], str(key[1]), int(key[2]))
        if key not in self._by_key:
            raise KeyError(f"no access site {key}")
        return self._by_key[key]

    def may_alias(self, a, b) -> bool:
        """Whether sites ``a`` and ``b`` may touch a common location.

        Parameters
        ----------
        a, b : site index or stable id ``(function, block, index)``

        Returns
        -------
        bool
            False only when both location sets are known and disjoint.
        """
        sa, sb = self.site_set[self.site(a)], self.site_set[self.site(b)]
        if sa < 0 or sb < 0:
            return True
        if sa == sb:
            return self.set_indptr[sa + 1] > self.set_indptr[sa]
        return np.intersect1d(self.location_set(sa), self.location_set(sb), assume_unique=True).size > 0

    def function_sites(self, function: str, kinds=ACCESS_KINDS) -> np.ndarray:
        """Indices of the sites of ``function`` whose kind is in ``kinds`` (loads, stores,
        atomics and memory intrinsics by default)."""
        if not self._by_function:
            for i, f in enumerate(self.sites.function):
                self._by_function.setdefault(f, []).append(i)
        kind = self.sites.kind
        return np.asarray([i for i in self._by_function.get(function, ()) if kind[i] in kinds], np.int64)

    def functions(self) -> list[str]:
        """The functions that have sites, in order of appearance."""
        return list(dict.fromkeys(self.sites.function))

    def intersections(self, set_ids: np.ndarray) -> np.ndarray:
        """``bool[k, k]``: whether location sets ``set_ids[i]`` and ``set_ids[j]`` intersect."""
        from scipy import sparse

        set_ids = np.asarray(set_ids, np.int64)
        lengths = (self.set_indptr[set_ids + 1] - self.set_indptr[set_ids]) if set_ids.size else set_ids
        rows = np.repeat(np.arange(set_ids.size), lengths)
        cols = np.concatenate([self.location_set(s) for s in set_ids]) if set_ids.size else set_ids
        m = sparse.csr_matrix((np.ones(rows.size, np.int32), (rows, cols)),
                              shape=(set_ids.size, max(1, int(cols.max()) + 1 if cols.size else 1)))
        return (m @ m.T).toarray() > 0

    def function_classes(self, function: str) -> tuple[list[np.ndarray], dict[int, list[int]]]:
        """The alias classes of one function's memory accesses.

        The locations its loads, stores, atomics and memory intrinsics touch are
        split into classes of locations touched by exactly the same accesses.
        Two accesses may alias iff they share a class (unknown accesses, which
        have no classes, may alias everything).

        Returns
        -------
        (classes, site_classes)
            ``classes[c]``: the node ids of class ``c``; ``site_classes[i]``:
            the classes of site ``i`` (known sites only).
        """
        idx = self.function_sites(function)
        known = idx[self.site_set[idx] >= 0]
        sets = np.unique(self.site_set[known])
        signature: dict[int, list[int]] = {}
        for k, s in enumerate(sets):
            for z in self.location_set(s).tolist():
                signature.setdefault(z, []).append(k)
        groups: dict[tuple, list[int]] = {}
        for z, sig in signature.items():
            groups.setdefault(tuple(sig), []).append(z)
        classes = [np.asarray(sorted(zs), np.int32) for zs in groups.values()]
        per_set: dict[int, list[int]] = {k: [] for k in range(len(sets))}
        for c, sig in enumerate(groups):
            for k in sig:
                per_set[k].append(c)
        pos = {int(s): k for k, s in enumerate(sets)}
        return classes, {int(i): per_set[pos[int(self.site_set[i])]] for i in known}


def may_alias_values(solution: Solution, a, b, unknown: int) -> bool:
    """Whether values ``a`` and ``b`` (node ids or names) may point to a common location.

    Like :meth:`Solution.may_alias`, except that a value with no target or
    one that holds the unknown object ``unknown`` (the int-to-pointer object)
    may alias everything.
    """
    pa, pb = solution.points_to(a), solution.points_to(b)
    for p in (pa, pb):
        if p.size == 0 or (unknown >= 0 and np.any(p == unknown)):
            return True
    return np.intersect1d(pa, pb, assume_unique=True).size > 0


# ------------------------------------------------------------------ building
class _SetTable:
    """Distinct sorted int32 arrays, numbered in order of first appearance."""

    def __init__(self):
        self.ids: dict[bytes, int] = {}
        self.arrays: list[np.ndarray] = []

    def add(self, arr: np.ndarray) -> int:
        key = arr.tobytes()
        sid = self.ids.get(key)
        if sid is None:
            sid = self.ids[key] = len(self.arrays)
            self.arrays.append(arr)
        return sid

    def csr(self) -> tuple[np.ndarray, np.ndarray]:
        indptr = np.zeros(len(self.arrays) + 1, np.int64)
        np.cumsum([a.size for a in self.arrays], out=indptr[1:])
        indices = np.concatenate(self.arrays).astype(np.int32) if self.arrays else np.zeros(0, np.int32)
        return indptr, indices


def build_facts(cs: ConstraintSet, sites: AccessSites, solution: Solution) -> AliasFacts:
    """The location set of every access site (module docstring).

    Parameters
    ----------
    cs : the constraint set that was solved, normally
        ``with_unknown_externals(original, sites)`` (its ``int_to_pointer``
        object marks unknown targets)
    sites : the access sites recorded with the original constraints
    solution : ``solve(cs)``

    Returns
    -------
    AliasFacts

    Raises
    ------
    ValueError
        The solution does not cover ``cs``'s nodes.
    """
    if solution.n_nodes != cs.n_nodes:
        raise ValueError(f"solution has {solution.n_nodes} nodes, constraint set {cs.n_nodes}")
    b = _Builder(cs, sites, solution)
    return b.run()


class _Builder:
    def __init__(self, cs: ConstraintSet, sites: AccessSites, solution: Solution):
        self.cs, self.sites, self.sol = cs, sites, solution
        self.u = cs.int_to_pointer
        self.size = cs.obj_size.astype(np.int64)
        k = cs.kind
        self.base = cs.slot_objects()   # a pointee's object (or function), its slots following it
        self.table = _SetTable()
        self.cache: dict[tuple[int, int], np.ndarray | None] = {}
        self.func_obj: dict[int, str] = {}
        if cs.names is not None:
            for z in np.flatnonzero(k == NodeKind.FUNCTION):
                self.func_obj[int(z)] = cs.names[z][1:]
        self.statics = {}
        if cs.names is not None:
            for z in np.flatnonzero(k == NodeKind.OBJECT):
                nm = cs.names[z]
                if nm.endswith("()") and nm.startswith("*"):
                    self.statics[nm[1:-2]] = int(z)

    # -- a pointer's locations
    def pointees(self, node: int) -> np.ndarray | None:
        """pts(node), or None when unknown (no node, no target, or the unknown object)."""
        if node < 0:
            return None
        p = self.sol.points_to(node)
        if p.size == 0 or (self.u >= 0 and np.any(p == self.u)):
            return None
        return p

    def slots(self, node: int, width: int) -> np.ndarray | None:
        """Slots one access of ``width`` slots through ``node`` may touch (0: to the end)."""
        if node < 0:
            return None
        key = (int(self.sol.node_set[node]), width)
        if key in self.cache:
            return self.cache[key]
        p = self.pointees(node)
        out = None
        if p is not None:
            count = np.maximum(self.size[p], 1)
            if width > 0:
                count = np.minimum(count, width)
            starts = np.repeat(p.astype(np.int64), count)
            offs = np.arange(starts.size) - np.repeat(np.cumsum(count) - count, count)
            out = np.unique(starts + offs).astype(np.int32)
        self.cache[key] = out
        return out

    def whole_objects(self, node: int) -> np.ndarray | None:
        p = self.pointees(node)
        if p is None:
            return None
        bases = np.unique(self.base[p])
        count = np.maximum(self.size[bases], 1)
        starts = np.repeat(bases, count)
        offs = np.arange(starts.size) - np.repeat(np.cumsum(count) - count, count)
        return np.unique(starts + offs).astype(np.int32)

    # -- the facts
    def run(self) -> AliasFacts:
        sites = self.sites
        n = len(sites)
        site_set = np.full(n, UNKNOWN, np.int32)
        own: dict[str, list] = {}          # function -> location arrays of its accesses (None: unknown)
        calls: dict[int, tuple] = {}       # call site -> (extra arrays, callee functions) or None
        for i in range(n):
            f = sites.function[i]
            if sites.kind[i] in ACCESS_KINDS:
                parts = [self.slots(a, sites.width[i]) for a in sites.operand_nodes(i)]
                if parts and all(p is not None for p in parts):
                    arr = parts[0] if len(parts) == 1 else np.union1d(*parts).astype(np.int32)
                    site_set[i] = self.table.add(arr)
                    own.setdefault(f, []).append(arr)
                else:
                    own.setdefault(f, []).append(None)
            else:
                c = self.call_parts(i)
                calls[i] = c
                own.setdefault(f, [])
        summary = self.summaries(own, calls)
        for i, c in calls.items():
            if c is None:
                continue
            extra, callees = c
            parts = list(extra) + [summary.get(g, np.zeros(0, np.int32)) for g in callees]
            if any(p is None for p in parts):
                continue
            arr = _union(parts)
            site_set[i] = self.table.add(arr)
        indptr, indices = self.table.csr()
        return AliasFacts(sites, site_set, indptr, indices, self.cs.names)

    def call_parts(self, i: int):
        """(location arrays, defined callees) of call site ``i``; None when unknown."""
        sites = self.sites
        cls = sites.call_class[i]
        if cls == "assertion":
            return [], []
        if cls in ("unmodelled", "asm"):
            return None
        if cls == "defined":
            return [], [sites.callee[i]]
        if cls == "indirect":
            targets = self.pointees(sites.fp[i])
            if targets is None:
                return None
            extra, callees, found = [], [], False
            for t in targets.tolist():
                name = self.func_obj.get(t)
                if name is None:
                    continue  # data (a vtable slot also points to typeinfo): control never goes there
                found = True
                tcls = sites.function_class.get(name, "unmodelled")
                if tcls == "defined":
                    callees.append(name)
                elif tcls in ("modelled", "intrinsic"):
                    got = self.external_parts(i, name)
                    if got is None:
                        return None
                    extra += got[0]
                    callees += got[1]
                elif tcls != "assertion":
                    return None
            return (extra, callees) if found else None  # no function: where it goes is unknown
        return self.external_parts(i, sites.callee[i])

    def external_parts(self, i: int, callee: str):
        """A modelled external or intrinsic: the whole objects its pointer arguments
        reach, its static object, and the functions it is handed (callbacks)."""
        extra, callees = [], []
        for a in self.sites.operand_nodes(i):
            if a < 0:
                continue
            objs = self.whole_objects(a)
            if objs is None:
                return None
            extra.append(objs)
            for t in self.sol.points_to(a).tolist():
                name = self.func_obj.get(t)
                if name is not None:
                    if self.sites.function_class.get(name) != "defined":
                        return None
                    callees.append(name)
        if callee in self.statics:
            z = self.statics[callee]
            extra.append(np.arange(z, z + max(1, self.size[z]), dtype=np.int32))
        return extra, callees

    def summaries(self, own: dict, calls: dict) -> dict[str, np.ndarray | None]:
        """Mod/ref summary of every function: its accesses and, transitively, its callees'."""
        sites = self.sites
        edges: dict[str, set] = {f: set() for f in own}
        local: dict[str, list] = {f: list(v) for f, v in own.items()}
        for i, c in calls.items():
            f = sites.function[i]
            if c is None:
                local[f].append(None)
                continue
            local[f].extend(c[0])
            edges[f].update(g for g in c[1] if g != f)
        for f in list(edges):
            for g in edges[f]:
                edges.setdefault(g, set())
                local.setdefault(g, [])
        comp = _sccs(edges)
        members: dict[int, list[str]] = {}
        for f, c in comp.items():
            members.setdefault(c, []).append(f)
        dag = {c: set() for c in members}
        for f, gs in edges.items():
            dag[comp[f]].update(comp[g] for g in gs if comp[g] != comp[f])
        summary: dict[str, np.ndarray | None] = {}
        for c in TopologicalSorter(dag).static_order():  # callees first
            parts = [p for f in members[c] for p in local[f]]
            parts += [summary[members[d][0]] for d in dag[c]]
            arr = None if any(p is None for p in parts) else _union(parts)
            for f in members[c]:
                summary[f] = arr
        return summary


def _union(parts: list[np.ndarray]) -> np.ndarray:
    if not parts:
        return np.zeros(0, np.int32)
    return np.unique(np.concatenate(parts)).astype(np.int32)


def _sccs(edges: dict[str, set]) -> dict[str, int]:
    """Strongly connected component id of every function of a call graph (scipy's csgraph)."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    names = list(edges)
    pos = {f: k for k, f in enumerate(names)}
    rows = [pos[f] for f, gs in edges.items() for g in gs]
    cols = [pos[g] for f, gs in edges.items() for g in gs]
    m = sparse.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(len(names), len(names)))
    _, labels = connected_components(m, directed=True, connection="strong")
    return {f: int(labels[k]) for k, f in enumerate(names)}
