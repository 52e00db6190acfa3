"""The constraint model: nodes and the five kinds of inclusion constraint.

Nodes are int32 ids ``0..n_nodes-1``. Constraints are kept as parallel int32
column arrays, one group per kind (the notation of seed 002 and DESIGN.md):

=========  ===========  ====================  ==========================================
kind       statement    columns               rule
=========  ===========  ====================  ==========================================
addr       ``x = &y``   addr_dst=x, addr_src=y  y ∈ pts(x)
copy       ``x = y``    copy_dst=x, copy_src=y  pts(y) ⊆ pts(x)
load       ``x = *y``   load_dst=x, load_src=y  ∀z∈pts(y): pts(z) ⊆ pts(x)
store      ``*x = y``   store_dst=x, store_src=y ∀z∈pts(x): pts(y) ⊆ pts(z)
gep        ``x = y+o``  gep_dst=x, gep_src=y,   ∀z∈pts(y), o < obj_size(z): z+o ∈ pts(x)
                        gep_offset=o
=========  ===========  ====================  ==========================================

``obj_size[z]`` is the number of consecutive ids that belong to the object
starting at ``z`` (the object itself counts as field 0), so a gep offset ``o``
applies to ``z`` exactly when ``o < obj_size[z]`` (Pearce, Kelly and Hankin,
TOPLAS 2007). Non-objects have size 0.

Two facts about the program travel with the constraints:

* ``int_to_pointer``: the id of the object standing for "any address made
  from an integer" (or -1). It may be pointed to, but loads and stores
  through it do nothing: its contents are not modelled.
* ``offline_rep``: nodes merged before solving (the paper dumps' HCD merges):
  ``offline_rep[y] == x`` means pts(y) is pts(x) by construction. Identity
  for nodes not merged; always a fixpoint (``rep[rep[y]] == rep[y]``).
* ``hcd_ptr``/``hcd_target``: the hybrid-cycle-detection table (Hardekopf
  and Lin, CGO 2007): at run time, every object that enters
  ``pts(hcd_ptr[i])`` may be merged with ``hcd_target[i]``, because they are
  known to lie in one copy cycle. An optimisation hint only: solving without
  it gives the same solution.
* ``walk_dst``/``walk_src``/``walk_offset``: *walk geps*, a sixth rule that
  only the offline preprocessing adds (:func:`andersen_gpu.preprocess.collapse`),
  never a front end or a dump. ``x = y +w d`` means
  ``∀z∈pts(y), d <= reach(z): z+d ∈ pts(x)``, where ``reach(z)`` is how many
  ``+1`` gep steps can be taken from ``z`` one after the other (``0`` when
  ``obj_size[z] <= 1``, else ``1 + reach(z+1)``): ``d`` such steps in one
  rule. Where ``p ⊇ p + 1`` holds (a gep of offset 1 whose result is copied
  back into its pointer: ``for (; *s; s++)``), ``p ⊇ p +w d`` holds for
  every ``d``, and walks of ``1, 2, 4, ...`` let a solver that works in
  rounds reach slot ``z + k`` in about log2 k rounds instead of k. The
  bound is ``walk_size()`` (``reach + 1``), so every backend checks a walk
  as it checks a gep, ``d < bound(z)``, against a second array. (Plain geps
  of offset ``d`` are no shortcut: sizes nest, so ``z + 3`` may be a field
  of ``z`` while no chain of three ``+1`` steps reaches it.)
* ``call_dst``/``call_src``/``call_offset``: *call geps*, ``x = y +c k`` means
  ``∀z∈pts(y), z a function, k < obj_size[z]: z+k ∈ pts(x)``: slot ``k`` of every
  function ``y`` may point to, a call's return (``k = 1``) or parameter cell (the
  LLVM front end's indirect calls; Hardekopf's encoding writes them as geps).
  With ``call_geps`` set, they are the only way into a function: a gep or walk
  of offset 1 or more from a function yields nothing (its bound is 1, see
  :meth:`ConstraintSet.gep_bound`), so a pointer that may hold ``@f`` does not
  reach ``@f``'s cells by pointer arithmetic, which no program does.
* ``collapse_cycles``: a choice of model the LLVM front end makes. Where it is
  set, an object that a *positive-weight cycle* may reach (a node on a cycle
  of copies and geps with an offset of 1 or more: pointer arithmetic in a
  loop, the front end's smears of unknown offsets) is one field-insensitive
  node, as Pearce, Kelly and Hankin (TOPLAS 2007) and SVF collapse it: such a
  pointer may land on any slot at or after the one it held, and listing every
  slot in every set it reaches is what made sets large. Solving applies it
  first (:mod:`andersen_gpu.preprocess.objects`), so every backend solves the
  same collapsed set; the objects collapsed are those an object-level solve
  (every object field-insensitive: a sound over-approximation) finds in a
  cycle node's set.
"""

from __future__ import annotations

import enum
from dataclasses import MISSING, dataclass, field, fields
from typing import Sequence

import numpy as np

from .errors import InputError

EDGE_KINDS = ("addr", "copy", "load", "store", "gep")


class NodeKind(enum.IntEnum):
    """What a node stands for in the program."""

    VALUE = 0      # a top-level pointer value (register, argument, temporary)
    OBJECT = 1     # a memory object (global, stack slot, heap allocation)
    FIELD = 2      # a field slot of an object (id = object id + k)
    FUNCTION = 3   # a function (an object whose fields are return and params)


def _as_i32(name: str, values) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InputError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise InputError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.size and (arr.min() < np.iinfo(np.int32).min or arr.max() > np.iinfo(np.int32).max):
        raise InputError(f"{name} has values outside int32")
    out = np.ascontiguousarray(arr, dtype=np.int32)
    out.setflags(write=False)
    return out


def _walk_size(obj_size: np.ndarray) -> np.ndarray:
    # reach(z) = 1 + reach(z + 1) along each run of slots of size >= 2, 0 at its end: numbered from
    # the right, the k-th slot of a run has reach k - 1 (numpy only, no per-node loop)
    size = np.asarray(obj_size)
    n = len(size)
    out = np.zeros(n, np.int32)
    if not n:
        return out
    step = size >= 2                                   # a +1 step can leave z
    idx = np.arange(n, dtype=np.int64)
    # the first position at or after z where no step is possible (the run's end)
    stop = np.where(step, n, idx)
    end = np.minimum.accumulate(stop[::-1])[::-1]
    reach = end - idx                                  # steps from z to its run's end
    out[:] = np.where(size > 0, reach + 1, 0)
    return out


@dataclass(frozen=True, eq=False)
class ConstraintSet:
    """A whole program's inclusion constraints, validated on construction.

    Attributes
    ----------
    n_nodes : int
        Number of nodes; ids are ``0..n_nodes-1``.
    obj_size : int32[n_nodes]
        Gep bound per node (see module docstring); ``z + obj_size[z] <= n_nodes``.
    kind : int8[n_nodes]
        :class:`NodeKind` per node.
    addr_dst, addr_src, copy_dst, copy_src, load_dst, load_src,
    store_dst, store_src, gep_dst, gep_src, gep_offset : int32[m_kind]
        The constraint columns (see module docstring). Order is kept as given.
    int_to_pointer : int
        Id of the int-to-pointer object, or -1 when there is none.
    offline_rep : int32[n_nodes] or None
        Offline merges; None means no node was merged.
    hcd_ptr, hcd_target : int32[k]
        The HCD table (may be empty).
    walk_dst, walk_src, walk_offset : int32[w]
        Walk geps (see the module docstring; usually empty). Offsets are at
        least 1. Not part of :attr:`n_constraints`; of the file formats only npz holds them.
    field_insensitive : int32[f]
        Ids of the field-insensitive objects (see the module docstring), ascending and
        distinct, each with ``obj_size == 1`` (usually empty).
    collapse_cycles : bool
        Objects reached by a positive-weight cycle are collapsed before solving (see the
        module docstring; the LLVM front end sets it, dumps of other tools do not).
    call_dst, call_src, call_offset : int32[c]
        Call geps (see the module docstring; usually empty outside the LLVM front end).
    call_geps : bool
        Functions are entered by call geps only (the LLVM front end sets it).
    names : tuple[str, ...] or None
        A readable name per node (front end), or None.
    locations : tuple[str, ...] or None
        ``file:line`` per node ("" where unknown), or None.

    Raises
    ------
    InputError
        On any id out of range, negative or out-of-range offset, wrong
        length or dtype. The message names the offending entry.
    """

    n_nodes: int
    obj_size: np.ndarray
    kind: np.ndarray
    addr_dst: np.ndarray
    addr_src: np.ndarray
    copy_dst: np.ndarray
    copy_src: np.ndarray
    load_dst: np.ndarray
    load_src: np.ndarray
    store_dst: np.ndarray
    store_src: np.ndarray
    gep_dst: np.ndarray
    gep_src: np.ndarray
    gep_offset: np.ndarray
    int_to_pointer: int = -1
    offline_rep: np.ndarray | None = None
    hcd_ptr: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    hcd_target: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    walk_dst: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    walk_src: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    walk_offset: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    field_insensitive: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    collapse_cycles: bool = False
    call_dst: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    call_src: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    call_offset: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    call_geps: bool = False
    names: tuple[str, ...] | None = None
    locations: tuple[str, ...] | None = None

    # ------------------------------------------------------------------ build
    @classmethod
    def from_lists(
        cls,
        n_nodes: int,
        *,
        obj_size: Sequence[int] | dict[int, int] | None = None,
        kind: Sequence[int] | None = None,
        addr: Sequence[tuple[int, int]] = (),
        copy: Sequence[tuple[int, int]] = (),
        load: Sequence[tuple[int, int]] = (),
        store: Sequence[tuple[int, int]] = (),
        gep: Sequence[tuple[int, int, int]] = (),
        **extra,
    ) -> "ConstraintSet":
        """Build from ``(dst, src)`` pairs (``(dst, src, offset)`` for gep).

        ``obj_size`` may be a full sequence or a ``{node: size}`` dict (others 0).
        If ``kind`` is omitted, nodes with a non-zero size are objects.
        """
        sizes = np.zeros(n_nodes, np.int64)
        if isinstance(obj_size, dict):
            for k, v in obj_size.items():
                if not 0 <= k < n_nodes:
                    raise InputError(f"obj_size names node {k}, outside [0, {n_nodes})")
                sizes[k] = v
        elif obj_size is not None:
            sizes = np.asarray(obj_size, np.int64)
        if kind is None:
            kind_arr = np.where(sizes > 0, NodeKind.OBJECT, NodeKind.VALUE).astype(np.int8)
        else:
            kind_arr = np.asarray(kind, np.int8)

        def cols(pairs, width):
            a = np.asarray(list(pairs), np.int64).reshape(-1, width)
            return [a[:, i] for i in range(width)]

        ad, as_ = cols(addr, 2)
        cd, cs = cols(copy, 2)
        ld, ls = cols(load, 2)
        sd, ss = cols(store, 2)
        gd, gs, go = cols(gep, 3)
        return cls(n_nodes, sizes, kind_arr, ad, as_, cd, cs, ld, ls, sd, ss, gd, gs, go, **extra)

    def __post_init__(self) -> None:
        n = int(self.n_nodes)
        if n < 0 or n > np.iinfo(np.int32).max:
            raise InputError(f"node count {n} outside [0, 2^31)")
        object.__setattr__(self, "n_nodes", n)
        for f in fields(self):
            if f.name in ("n_nodes", "int_to_pointer", "names", "locations", "kind", "offline_rep",
                          "collapse_cycles", "call_geps"):
                continue
            object.__setattr__(self, f.name, _as_i32(f.name, getattr(self, f.name)))
        kind = np.ascontiguousarray(np.asarray(self.kind), dtype=np.int8)
        kind.setflags(write=False)
        object.__setattr__(self, "kind", kind)
        if self.offline_rep is not None:
            object.__setattr__(self, "offline_rep", _as_i32("offline_rep", self.offline_rep))
        object.__setattr__(self, "int_to_pointer", int(self.int_to_pointer))
        object.__setattr__(self, "collapse_cycles", bool(self.collapse_cycles))
        object.__setattr__(self, "call_geps", bool(self.call_geps))
        for attr in ("names", "locations"):
            v = getattr(self, attr)
            if v is not None:
                object.__setattr__(self, attr, tuple(str(s) for s in v))
        self.validate()

    # ------------------------------------------------------------- validation
    def validate(self) -> None:
        """Check every invariant; raise :class:`InputError` naming the entry."""
        n = self.n_nodes
        for name in ("obj_size", "kind"):
            if len(getattr(self, name)) != n:
                raise InputError(f"{name} has {len(getattr(self, name))} entries, expected {n_nodes_str(n)}")
        bad = np.flatnonzero(self.obj_size < 0)
        if bad.size:
            raise InputError(f"node {bad[0]}: negative object size {self.obj_size[bad[0]]}")
        ends = np.arange(n, dtype=np.int64) + self.obj_size
        bad = np.flatnonzero(ends > n)
        if bad.size:
            z = bad[0]
            raise InputError(f"node {z}: object size {self.obj_size[z]} runs past the last node {n - 1}")
        bad = np.flatnonzero((self.kind < 0) | (self.kind > max(NodeKind)))
        if bad.size:
            raise InputError(f"node {bad[0]}: unknown node kind {self.kind[bad[0]]}")
        for kind_name in EDGE_KINDS:
            cols = self.columns(kind_name)
            m = len(cols[0])
            for col_name, col in zip(self.column_names(kind_name), cols):
                if len(col) != m:
                    raise InputError(f"{col_name} has {len(col)} entries, {self.column_names(kind_name)[0]} has {m}")
                if col_name == "gep_offset":
                    bad = np.flatnonzero((col < 0) | (col >= max(n, 1)))
                    if bad.size:
                        i = bad[0]
                        raise InputError(f"gep constraint {i}: offset {col[i]} outside [0, {n})")
                    continue
                bad = np.flatnonzero((col < 0) | (col >= n))
                if bad.size:
                    i = bad[0]
                    raise InputError(f"{kind_name} constraint {i}: node id {col[i]} ({col_name}) outside [0, {n})")
        if not -1 <= self.int_to_pointer < n:
            raise InputError(f"int_to_pointer node {self.int_to_pointer} outside [-1, {n})")
        if self.offline_rep is not None:
            rep = self.offline_rep
            if len(rep) != n:
                raise InputError(f"offline_rep has {len(rep)} entries, expected {n}")
            bad = np.flatnonzero((rep < 0) | (rep >= n))
            if bad.size:
                raise InputError(f"node {bad[0]}: offline representative {rep[bad[0]]} outside [0, {n})")
            bad = np.flatnonzero(rep[rep] != rep)
            if bad.size:
                y = bad[0]
                raise InputError(f"node {y}: offline representative {rep[y]} is itself merged into {rep[rep[y]]}")
        if len(self.hcd_ptr) != len(self.hcd_target):
            raise InputError("hcd_ptr and hcd_target differ in length")
        for col_name in ("hcd_ptr", "hcd_target"):
            col = getattr(self, col_name)
            bad = np.flatnonzero((col < 0) | (col >= n))
            if bad.size:
                raise InputError(f"HCD entry {bad[0]}: node id {col[bad[0]]} outside [0, {n})")
        self._check_offset_columns("walk", "walk constraint", 1)
        self._check_offset_columns("call", "call gep", 0)
        fi = self.field_insensitive
        if len(fi):
            bad = np.flatnonzero((fi < 0) | (fi >= n))
            if bad.size:
                raise InputError(f"field-insensitive object {fi[bad[0]]} outside [0, {n})")
            bad = np.flatnonzero(np.diff(fi) <= 0)
            if bad.size:
                raise InputError(f"field-insensitive objects not ascending and distinct at {fi[bad[0] + 1]}")
            bad = np.flatnonzero(self.obj_size[fi] != 1)
            if bad.size:
                z = fi[bad[0]]
                raise InputError(f"node {z}: a field-insensitive object has size 1, not {self.obj_size[z]}")
        for attr in ("names", "locations"):
            v = getattr(self, attr)
            if v is not None and len(v) != n:
                raise InputError(f"{attr} has {len(v)} entries, expected {n}")

    def _check_offset_columns(self, prefix: str, what: str, least: int) -> None:
        """The columns ``PREFIX_dst``, ``PREFIX_src`` (ids in ``[0, n)``) and ``PREFIX_offset`` (in
        ``[least, n)``) of one kind of constraint, of one length."""
        n = self.n_nodes
        dst, src, off = (getattr(self, f"{prefix}_{c}") for c in ("dst", "src", "offset"))
        if len(src) != len(dst) or len(off) != len(dst):
            raise InputError(f"{prefix}_dst, {prefix}_src and {prefix}_offset differ in length")
        for col_name, col in ((f"{prefix}_dst", dst), (f"{prefix}_src", src)):
            bad = np.flatnonzero((col < 0) | (col >= n))
            if bad.size:
                raise InputError(f"{what} {bad[0]}: node id {col[bad[0]]} ({col_name}) outside [0, {n})")
        bad = np.flatnonzero((off < least) | (off >= max(n, 1)))
        if bad.size:
            raise InputError(f"{what} {bad[0]}: offset {off[bad[0]]} outside [{least}, {n})")

    # -------------------------------------------------------------- accessors
    @staticmethod
    def column_names(kind_name: str) -> tuple[str, ...]:
        """Column attribute names of one constraint kind, dst first."""
        if kind_name == "gep":
            return ("gep_dst", "gep_src", "gep_offset")
        if kind_name not in EDGE_KINDS:
            raise KeyError(kind_name)
        return (f"{kind_name}_dst", f"{kind_name}_src")

    def columns(self, kind_name: str) -> tuple[np.ndarray, ...]:
        """The column arrays of one constraint kind, in :meth:`column_names` order."""
        return tuple(getattr(self, c) for c in self.column_names(kind_name))

    def count(self, kind_name: str) -> int:
        """Number of constraints of one kind."""
        return len(getattr(self, f"{kind_name}_dst"))

    @property
    def n_constraints(self) -> int:
        return sum(self.count(k) for k in EDGE_KINDS) + len(self.call_dst)

    def __setstate__(self, state: dict) -> None:
        """Unpickle, giving fields that a pickle from an older version lacks their defaults (the
        walk columns, field_insensitive): cached extractions stay readable."""
        for f in fields(self):
            if f.name not in state and f.default_factory is not MISSING:
                state[f.name] = f.default_factory()
            elif f.name not in state and f.default is not MISSING:
                state[f.name] = f.default
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def walk_size(self, gep_bound: np.ndarray | None = None) -> np.ndarray:
        """int32[n_nodes]: the walk bound, ``reach(z) + 1`` (``0`` where ``obj_size[z] == 0``), of
        the gep bound (:meth:`gep_bound`; pass it where the caller has it already).

        A walk ``x = y +w d`` adds ``z + d`` exactly when ``d < walk_size()[z]``, as a gep
        of offset ``o`` adds ``z + o`` when ``o < gep_bound()[z]`` (see the module docstring).
        """
        return _walk_size(self.gep_bound() if gep_bound is None else gep_bound)

    def gep_bound(self) -> np.ndarray:
        """int32[n_nodes]: a gep of offset ``o`` adds ``z + o`` when ``o < gep_bound()[z]``:
        ``obj_size``, but 1 at functions where ``call_geps`` closes them to geps."""
        if not self.call_geps:
            return self.obj_size
        return np.where(self.kind == NodeKind.FUNCTION, np.minimum(self.obj_size, 1), self.obj_size).astype(np.int32)

    def call_bound(self) -> np.ndarray:
        """int32[n_nodes]: a call gep of offset ``k`` adds ``z + k`` when ``k < call_bound()[z]``:
        ``obj_size`` at functions, 0 elsewhere."""
        return np.where(self.kind == NodeKind.FUNCTION, self.obj_size, 0).astype(np.int32)

    def field_insensitive_mask(self) -> np.ndarray:
        """int32[n_nodes]: 1 at every field-insensitive object, else 0: the bound under which a gep
        of offset 0 keeps exactly those objects (how the backends apply their rule)."""
        out = np.zeros(self.n_nodes, np.int32)
        out[self.field_insensitive] = 1
        return out

    @property
    def rep(self) -> np.ndarray:
        """Offline representative of every node (identity where none merged)."""
        if self.offline_rep is None:
            r = np.arange(self.n_nodes, dtype=np.int32)
            r.setflags(write=False)
            return r
        return self.offline_rep

    @property
    def object_ids(self) -> np.ndarray:
        """Ids of nodes that start an object (``obj_size > 0``)."""
        return np.flatnonzero(self.obj_size > 0).astype(np.int32)

    def slot_objects(self) -> np.ndarray:
        """``int64[n_nodes]``: the object (or function) each slot belongs to, its slots following
        it: for every node, the last OBJECT or FUNCTION node at or before it (-1 before the first).
        Meaningful at objects and fields, the nodes points-to sets hold (object-level sets)."""
        k = np.asarray(self.kind)
        is_obj = (k == NodeKind.OBJECT) | (k == NodeKind.FUNCTION)
        return np.maximum.accumulate(np.where(is_obj, np.arange(self.n_nodes), -1)) if self.n_nodes else \
            np.zeros(0, np.int64)

    def node_label(self, node: int) -> str:
        """A readable label: the front end's name when there is one, else ``#id``."""
        if self.names is not None and self.names[node]:
            return self.names[node]
        return f"#{node}"

    def node_id(self, name_or_id: "int | str") -> int:
        """Resolve a node given by id, ``"#id"`` or front-end name."""
        if isinstance(name_or_id, (int, np.integer)):
            node = int(name_or_id)
        elif isinstance(name_or_id, str) and name_or_id.startswith("#") and name_or_id[1:].isdigit():
            node = int(name_or_id[1:])
        else:
            index = self._name_index()
            if name_or_id not in index:
                raise KeyError(f"no node named {name_or_id!r}")
            node = index[name_or_id]
        if not 0 <= node < self.n_nodes:
            raise KeyError(f"node id {node} outside [0, {self.n_nodes})")
        return node

    def _name_index(self) -> dict[str, int]:
        cached = self.__dict__.get("_names_to_id")
        if cached is None:
            cached = {}
            for i, nm in enumerate(self.names or ()):
                cached.setdefault(nm, i)
            object.__setattr__(self, "_names_to_id", cached)
        return cached

    # ---------------------------------------------------------------- compare
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConstraintSet):
            return NotImplemented
        if self.n_nodes != other.n_nodes or self.int_to_pointer != other.int_to_pointer:
            return False
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                if f.name == "offline_rep":
                    a, b = self.rep, other.rep
                if not np.array_equal(a, b):
                    return False
            elif f.name not in ("n_nodes", "int_to_pointer") and a != b:
                return False
        return True

    __hash__ = None  # mutable-looking arrays: not hashable

    def summary(self) -> str:
        """A few lines: node counts per kind, constraint counts, objects."""
        kinds = np.bincount(self.kind, minlength=len(NodeKind))
        objs = self.object_ids
        largest = int(self.obj_size.max()) if self.n_nodes else 0
        merged = int(np.count_nonzero(self.rep != np.arange(self.n_nodes))) if self.n_nodes else 0
        lines = [
            f"nodes: {self.n_nodes:,} ("
            + ", ".join(f"{k.name.lower()} {int(kinds[k]):,}" for k in NodeKind) + ")",
            f"objects: {len(objs):,} (largest: {largest} fields)",
            "constraints: " + ", ".join(f"{k} {self.count(k):,}" for k in EDGE_KINDS)
            + f" (total {self.n_constraints:,})",
        ]
        if len(self.field_insensitive):
            lines[1] += f"; field-insensitive: {len(self.field_insensitive):,}"
        if merged or len(self.hcd_ptr):
            lines.append(f"offline merges: {merged:,}; HCD table entries: {len(self.hcd_ptr):,}")
        if self.int_to_pointer >= 0:
            lines.append(f"int-to-pointer object: {self.node_label(self.int_to_pointer)}")
        if self.collapse_cycles:
            lines.append("objects reached by positive-weight cycles: collapsed before solving")
        if len(self.call_dst) or self.call_geps:
            lines.append(f"call geps: {len(self.call_dst):,}" + ("; functions entered by them only"
                                                               if self.call_geps else ""))
        return "\n".join(lines)

    def replace(self, **changes) -> "ConstraintSet":
        """A copy with some attributes replaced (validated again)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(changes)
        return ConstraintSet(**values)


def n_nodes_str(n: int) -> str:
    return f"{n:,}"
