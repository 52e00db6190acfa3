"""``Solution``: the points-to set of every original node.

Stored compactly: many nodes share one set (pointer-equivalent variables,
offline merges), so a solution is a table of distinct sets in CSR form plus,
per node, the id of its set:

* ``node_set``: int32[n_nodes], index into the set table;
* ``set_indptr``: int64[n_sets + 1];
* ``set_indices``: int32[set_indptr[-1]], each set sorted ascending, no repeats.

``indptr``/``indices`` give the plain per-node CSR (built on first use; it can
be large: linux has about 1.5 G points-to edges).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from constraints.errors import InputError

#: The ``format`` member of a solution ``.npz`` (:meth:`Solution.save`).
SOLUTION_FORMAT = "andersen-gpu-solution-1"


@dataclass
class SolveStats:
    """What a solve did. Times in milliseconds; memory in bytes.

    ``solve_ms`` is the solve (preprocessing included); ``compile_ms`` the one-time compile
    of numba code before it (:mod:`andersen_gpu.warmup`), 0 when there was none.
    """

    backend: str = ""
    device: str = ""
    iterations: int = 0
    solve_ms: float = 0.0
    compile_ms: float = 0.0
    kernel_ms: dict[str, float] = field(default_factory=dict)
    pool_bytes: int = 0
    peak_device_bytes: int = 0
    peak_host_bytes: int = 0
    notes: dict[str, object] = field(default_factory=dict)

    def lines(self) -> list[str]:
        out = [f"backend: {self.backend}" + (f" on {self.device}" if self.device else ""),
               f"iterations: {self.iterations}", f"solve time: {self.solve_ms:.1f} ms"]
        if self.compile_ms:
            out.append(f"compile time (numba, once per process): {self.compile_ms:.1f} ms")
        for k, v in sorted(self.kernel_ms.items(), key=lambda kv: -kv[1]):
            out.append(f"  {k}: {v:.1f} ms")
        if self.pool_bytes:
            out.append(f"pool: {self.pool_bytes / 2**20:.1f} MiB")
        if self.peak_device_bytes:
            out.append(f"peak device memory: {self.peak_device_bytes / 2**20:.1f} MiB")
        if self.peak_host_bytes:
            out.append(f"peak host memory: {self.peak_host_bytes / 2**20:.1f} MiB")
        for k, v in self.notes.items():
            out.append(f"{k}: {v}")
        return out


def _set_hashes(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """An order-sensitive 64-bit hash per CSR row (rows are sorted, so canonical)."""
    n_rows = len(indptr) - 1
    if len(indices) == 0:
        return np.zeros(n_rows, np.uint64)
    with np.errstate(over="ignore"):
        x = indices.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        x ^= x >> np.uint64(31)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        pos = (np.arange(len(indices), dtype=np.int64) - np.repeat(indptr[:-1], np.diff(indptr))).astype(np.uint64)
        x += pos * np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(29)
        sums = np.zeros(n_rows, np.uint64)
        nonempty = np.flatnonzero(np.diff(indptr) > 0)
        if nonempty.size:
            sums[nonempty] = np.add.reduceat(x, indptr[:-1][nonempty])
    return sums


def dedupe_sets(indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Collapse equal rows of a CSR.

    Returns
    -------
    (row_to_set int32[n_rows], set_indptr int64[k+1], set_indices int32[...])
        The distinct sets in order of first appearance.
    """
    indptr = np.asarray(indptr, np.int64)
    indices = np.asarray(indices, np.int32)
    n_rows = len(indptr) - 1
    lengths = np.diff(indptr)
    h = _set_hashes(indptr, indices)
    order = np.lexsort((np.arange(n_rows), lengths, h))
    row_to_set = np.empty(n_rows, np.int64)
    first_of_class = np.empty(n_rows, np.int64)
    prev = -1
    for r in order:  # exact check within equal (hash, length) runs
        if prev >= 0 and h[r] == h[prev] and lengths[r] == lengths[prev] and np.array_equal(
                indices[indptr[r]:indptr[r + 1]], indices[indptr[prev]:indptr[prev + 1]]):
            first_of_class[r] = first_of_class[prev]
        else:
            first_of_class[r] = r
        prev = r
    reps, row_to_set_raw = np.unique(first_of_class, return_inverse=True)
    row_to_set = row_to_set_raw.astype(np.int32)
    rep_len = lengths[reps]
    set_indptr = np.zeros(len(reps) + 1, np.int64)
    np.cumsum(rep_len, out=set_indptr[1:])
    if len(indices):
        starts = np.repeat(indptr[reps], rep_len)
        offs = np.arange(set_indptr[-1], dtype=np.int64) - np.repeat(set_indptr[:-1], rep_len)
        set_indices = indices[starts + offs]
    else:
        set_indices = np.zeros(0, np.int32)
    return row_to_set, set_indptr, set_indices.astype(np.int32)


class Solution:
    """Points-to sets of every node of a constraint set.

    Parameters
    ----------
    node_set : int32[n_nodes]
    set_indptr : int64[n_sets + 1]
    set_indices : int32[nnz]; each set sorted, no repeats
    names : optional node names (from the front end), for name look-ups
    stats : optional :class:`SolveStats`
    """

    def __init__(self, node_set, set_indptr, set_indices, names: Sequence[str] | None = None,
                 stats: SolveStats | None = None):
        self.node_set = np.ascontiguousarray(node_set, np.int32)
        self.set_indptr = np.ascontiguousarray(set_indptr, np.int64)
        self.set_indices = np.ascontiguousarray(set_indices, np.int32)
        self.names = tuple(names) if names is not None else None
        self.stats = stats
        self._csr: tuple[np.ndarray, np.ndarray] | None = None
        self._name_index: dict[str, int] | None = None

    # -------------------------------------------------------- constructors
    @classmethod
    def from_csr(cls, indptr, indices, **kw) -> "Solution":
        """From a per-node CSR (rows sorted, no repeats)."""
        row_to_set, sp, si = dedupe_sets(np.asarray(indptr, np.int64), np.asarray(indices, np.int32))
        return cls(row_to_set, sp, si, **kw)

    @classmethod
    def from_sets(cls, sets: Sequence[Iterable[int]], **kw) -> "Solution":
        """From one iterable of pointees per node (any order; repeats removed)."""
        arrays = [np.unique(np.fromiter(s, np.int64)) for s in sets]
        indptr = np.zeros(len(arrays) + 1, np.int64)
        np.cumsum([len(a) for a in arrays], out=indptr[1:])
        indices = np.concatenate(arrays).astype(np.int32) if arrays else np.zeros(0, np.int32)
        return cls.from_csr(indptr, indices, **kw)

    @classmethod
    def from_rep_sets(cls, rep: np.ndarray, rep_indptr, rep_indices, **kw) -> "Solution":
        """From sets solved on representatives: node ``v`` gets the row of ``rep[v]``."""
        row_to_set, sp, si = dedupe_sets(np.asarray(rep_indptr, np.int64), np.asarray(rep_indices, np.int32))
        return cls(row_to_set[np.asarray(rep)], sp, si, **kw)

    @classmethod
    def from_groups(cls, n_nodes: int, groups: Sequence[tuple[np.ndarray, np.ndarray]], **kw) -> "Solution":
        """From ``(variables, points_to)`` groups (the reference-solution format).

        Nodes in no group get the empty set. A node in two groups is an error.
        """
        node_set = np.full(n_nodes, -1, np.int64)
        sets = [np.zeros(0, np.int32)]
        for variables, pts in groups:
            variables = np.asarray(variables, np.int64)
            if np.any(node_set[variables] >= 0) or len(np.unique(variables)) != len(variables):
                dup = variables[node_set[variables] >= 0]
                raise InputError(f"node {dup[0] if dup.size else variables[0]} listed twice")
            node_set[variables] = len(sets)
            sets.append(np.unique(np.asarray(pts, np.int64)).astype(np.int32))
        node_set[node_set < 0] = 0
        indptr = np.zeros(len(sets) + 1, np.int64)
        np.cumsum([len(s) for s in sets], out=indptr[1:])
        row_to_set, sp, si = dedupe_sets(indptr, np.concatenate(sets))
        return cls(row_to_set[node_set], sp, si, **kw)

    # ---------------------------------------------------------------- query
    @property
    def n_nodes(self) -> int:
        return len(self.node_set)

    @property
    def n_sets(self) -> int:
        return len(self.set_indptr) - 1

    @property
    def n_edges(self) -> int:
        """Total points-to edges over all nodes (sum of set sizes)."""
        return int(np.diff(self.set_indptr)[self.node_set].sum()) if self.n_nodes else 0

    def node_id(self, node: "int | str") -> int:
        """The id of ``node``: an id, ``"#ID"``, a name, or a string of digits that is no
        node's name (an id, for solutions without names).

        Raises
        ------
        KeyError
            No node has that name, or the id is outside ``[0, n_nodes)``.
        """
        if isinstance(node, str):
            if node.startswith("#") and node[1:].isdigit():
                node = int(node[1:])
            else:
                if self._name_index is None:
                    self._name_index = {}
                    for i, nm in enumerate(self.names or ()):
                        self._name_index.setdefault(nm, i)
                if node in self._name_index:
                    return self._name_index[node]
                if not node.isdigit():
                    raise KeyError(f"no node named {node!r}")
        node = int(node)
        if not 0 <= node < self.n_nodes:
            raise KeyError(f"node id {node} outside [0, {self.n_nodes})")
        return node

    _node = node_id

    def label(self, node: int) -> str:
        """The name of node id ``node`` where the solution carries one, else ``#ID``."""
        return self.names[node] if self.names and self.names[node] else f"#{node}"

    def pointed_by(self, obj: "int | str") -> np.ndarray:
        """Sorted int32 ids of the nodes whose points-to set holds ``obj`` (id or name)."""
        z = self.node_id(obj)
        at = np.flatnonzero(self.set_indices == z)
        holding = np.zeros(self.n_sets, bool)
        holding[np.searchsorted(self.set_indptr, at, side="right") - 1] = True
        return np.flatnonzero(holding[self.node_set]).astype(np.int32)

    def points_to(self, node: "int | str") -> np.ndarray:
        """Sorted int32 array of the nodes that ``node`` (id or name) may point to."""
        s = self.node_set[self._node(node)]
        return self.set_indices[self.set_indptr[s]:self.set_indptr[s + 1]]

    def points_to_names(self, node: "int | str") -> list[str]:
        """Like :meth:`points_to`, as names where the solution carries them."""
        return [self.label(int(t)) for t in self.points_to(node)]

    def may_alias(self, a: "int | str", b: "int | str") -> bool:
        """True when the points-to sets of ``a`` and ``b`` intersect."""
        sa, sb = self.node_set[self._node(a)], self.node_set[self._node(b)]
        if sa == sb:
            return self.set_indptr[sa + 1] > self.set_indptr[sa]
        pa = self.set_indices[self.set_indptr[sa]:self.set_indptr[sa + 1]]
        pb = self.set_indices[self.set_indptr[sb]:self.set_indptr[sb + 1]]
        return np.intersect1d(pa, pb, assume_unique=True).size > 0

    @property
    def indptr(self) -> np.ndarray:
        """int64[n_nodes + 1] of the plain per-node CSR."""
        return self._plain_csr()[0]

    @property
    def indices(self) -> np.ndarray:
        """int32[n_edges] of the plain per-node CSR."""
        return self._plain_csr()[1]

    def _plain_csr(self) -> tuple[np.ndarray, np.ndarray]:
        if self._csr is None:
            lengths = np.diff(self.set_indptr)[self.node_set]
            indptr = np.zeros(self.n_nodes + 1, np.int64)
            np.cumsum(lengths, out=indptr[1:])
            starts = np.repeat(self.set_indptr[self.node_set], lengths)
            offs = np.arange(indptr[-1], dtype=np.int64) - np.repeat(indptr[:-1], lengths)
            self._csr = (indptr, self.set_indices[starts + offs])
        return self._csr

    # -------------------------------------------------------------- compare
    def differing_nodes(self, other: "Solution", limit: int | None = None) -> np.ndarray:
        """Ids of nodes whose sets differ (ascending; at most ``limit``)."""
        if self.n_nodes != other.n_nodes:
            raise ValueError(f"solutions have {self.n_nodes} and {other.n_nodes} nodes")
        pairs = self.node_set.astype(np.int64) * (other.n_sets + 1) + other.node_set
        uniq, first = np.unique(pairs, return_index=True)
        bad_pairs = []
        for p in uniq:
            sa, sb = divmod(int(p), other.n_sets + 1)
            a = self.set_indices[self.set_indptr[sa]:self.set_indptr[sa + 1]]
            b = other.set_indices[other.set_indptr[sb]:other.set_indptr[sb + 1]]
            if not np.array_equal(a, b):
                bad_pairs.append(p)
        if not bad_pairs:
            return np.zeros(0, np.int32)
        bad = np.flatnonzero(np.isin(pairs, np.asarray(bad_pairs, np.int64))).astype(np.int32)
        return bad if limit is None else bad[:limit]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Solution):
            return NotImplemented
        return self.n_nodes == other.n_nodes and self.differing_nodes(other, limit=1).size == 0

    __hash__ = None

    def diff_report(self, other: "Solution", limit: int = 10, labels: tuple[str, str] = ("this", "other")) -> str:
        """Human-readable report of the first ``limit`` differing nodes ("" when equal)."""
        if self.n_nodes != other.n_nodes:
            return f"node counts differ: {labels[0]} has {self.n_nodes}, {labels[1]} has {other.n_nodes}"
        bad = self.differing_nodes(other)
        if bad.size == 0:
            return ""
        lines = [f"{bad.size} of {self.n_nodes} nodes differ; first {min(limit, bad.size)}:"]
        for v in bad[:limit]:
            a, b = self.points_to(int(v)), other.points_to(int(v))
            only_a = np.setdiff1d(a, b, assume_unique=True)
            only_b = np.setdiff1d(b, a, assume_unique=True)
            name = f" ({self.names[v]})" if self.names else ""
            lines.append(f"  node {v}{name}: {labels[0]} has {a.size}, {labels[1]} has {b.size}; "
                         f"only in {labels[0]}: {_short(only_a)}; only in {labels[1]}: {_short(only_b)}")
        return "\n".join(lines)

    # -------------------------------------------------------------- export
    def to_pandas(self):
        """Long table: one row per points-to edge, columns ``node`` and ``pointee`` (int32)."""
        import pandas as pd
        indptr, indices = self._plain_csr()
        nodes = np.repeat(np.arange(self.n_nodes, dtype=np.int32), np.diff(indptr))
        return pd.DataFrame({"node": nodes, "pointee": indices})

    def save(self, path: str | os.PathLike) -> None:
        """Write as ``.npz`` (atomically: a temp file then rename).

        Members: ``format`` (``andersen-gpu-solution-1``), ``node_set``, ``set_indptr``,
        ``set_indices``, and, when the solution carries node names, ``names_blob`` and
        ``names_offsets`` (:func:`constraints.npz_format.pack_strings`), so that a saved
        solution answers questions by name (``andersen-gpu query``). Files without names
        (written before names were kept) load as solutions without names.
        """
        from constraints.atomic import atomic_output
        from constraints.npz_format import pack_strings

        members = {}
        if self.names is not None:
            members["names_blob"], members["names_offsets"] = pack_strings(self.names)
        with atomic_output(path, binary=True) as fh:
            np.savez_compressed(fh, format=np.array(SOLUTION_FORMAT), node_set=self.node_set,
                                set_indptr=self.set_indptr, set_indices=self.set_indices, **members)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Solution":
        """Read a solution written by :meth:`save`, or a paper reference-solution file."""
        p = str(path)
        with open(p, "rb") as fh:
            magic = fh.read(4)
        if magic == b"PK\x03\x04":
            from constraints.npz_format import check_members, unpack_strings

            check_members(p)
            try:
                with np.load(p, allow_pickle=False) as z:
                    if str(z.get("format", "")) != SOLUTION_FORMAT:
                        raise InputError("not an andersen-gpu solution file", p)
                    names = (unpack_strings(z["names_blob"], z["names_offsets"], p, "names")
                             if "names_blob" in z.files else None)
                    sol = cls(z["node_set"], z["set_indptr"], z["set_indices"], names=names)
            except (KeyError, ValueError, OSError) as exc:
                raise InputError(f"unreadable solution file ({exc})", p) from None
            sol._check(p)
            return sol
        from constraints.paper_format import read_solution_sets
        n, groups = read_solution_sets(p)
        try:
            return cls.from_groups(n, groups)
        except InputError as exc:
            raise exc.at(p) from None

    def _check(self, source: str) -> None:
        if self.names is not None and len(self.names) != self.n_nodes:
            raise InputError(f"{len(self.names)} names for {self.n_nodes} nodes", source)
        if np.any(np.diff(self.set_indptr) < 0) or self.set_indptr[0] != 0 or self.set_indptr[-1] != len(self.set_indices):
            raise InputError("corrupt set table", source)
        if self.node_set.size and (self.node_set.min() < 0 or self.node_set.max() >= self.n_sets):
            raise InputError("set id out of range", source)
        if self.set_indices.size and (self.set_indices.min() < 0 or self.set_indices.max() >= self.n_nodes):
            raise InputError("pointee id out of range", source)

    def write_paper(self, path: str | os.PathLike) -> None:
        """Write in the paper's reference-solution format (nodes grouped by equal sets)."""
        from constraints.atomic import atomic_output
        order = np.argsort(self.node_set, kind="stable")
        bounds = np.flatnonzero(np.diff(self.node_set[order])) + 1
        with atomic_output(path) as fh:
            fh.write(f"{self.n_nodes}\n")
            for group in np.split(order, bounds) if self.n_nodes else []:
                s = self.node_set[group[0]]
                pts = self.set_indices[self.set_indptr[s]:self.set_indptr[s + 1]]
                fh.write("[" + ", ".join(map(str, group.tolist())) + "] => ["
                         + ", ".join(map(str, pts.tolist())) + "]\n")

    def __repr__(self) -> str:
        return f"Solution(n_nodes={self.n_nodes}, n_sets={self.n_sets}, n_edges={self.n_edges})"


def _short(a: np.ndarray, k: int = 8) -> str:
    s = ", ".join(map(str, a[:k].tolist()))
    return "{" + s + (", ..." if a.size > k else "") + "}"
