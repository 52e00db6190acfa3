"""The constraint graph of the representatives on the device, as forward CSR lists.

Built once per solve from the (offline-collapsed) constraint set, with CuPy sorts and the
kernels of kernels_cu/graph.cu. Every id is a representative (``rep``) except pointees, which
keep their own ids; the rules of kernels_cu/emit.cu push from a node whose set changed, so
every list is keyed by the node whose set the rule reads:

====================  ===============  =====================================
list                  row              entries
====================  ===============  =====================================
``c_ptr, c_dst``      y                x for x = y (copy successors)
``g_ptr, g_dst, g_off`` y              (x, o) for x = y + o, (x, d | WALK) for x = y +w d,
                                       (x, k | CALL) for x = y +c k
``l_ptr, l_dst``      y                x for x = *y
``s_ptr, s_val``      x                y for *x = y (stores by pointer)
``v_ptr, v_ptr_of``   y                x for *x = y (stores by value)
====================  ===============  =====================================

Repeats are dropped (gep: repeats of (y, x, o) only where the sort leaves them adjacent,
which costs a second lookup at most). ``perm``/``inverse`` map between the constraint set's
ids and the pointee order's when the graph was renumbered
(:mod:`andersen_gpu.preprocess.order`).
"""

from __future__ import annotations

import cupy
import numpy as np

from constraints.model import ConstraintSet

from .device import BLOCK, blocks_for, descriptor, module
from .sort import sort_keys

#: The flag of a walk gep's offset in ``g_off`` (``WALK`` in kernels_cu/emit.cu).
WALK = 0x80000000
#: The flag of a call gep's offset in ``g_off`` (``CALL`` in kernels_cu/emit.cu).
CALL = 0x40000000
#: Gep edges per emit item (``GEP_CHUNK`` in kernels_cu/emit.cu): a node with more has the rest
#: pushed by heavy items of that many edges each (:func:`heavy_gep_chunks`).
GEP_CHUNK = 16


def _u32(a: np.ndarray) -> cupy.ndarray:
    return cupy.asarray(np.ascontiguousarray(a, dtype=np.uint32))


def build_csr(n: int, rep: cupy.ndarray, row: cupy.ndarray, col: cupy.ndarray,
              off: cupy.ndarray | None = None) -> tuple[cupy.ndarray, ...]:
    """The distinct (rep row, rep col[, off]) entries as a CSR over ``n`` rows.

    ``row``, ``col`` (and ``off``): uint32[m] columns of raw ids; ``rep``: uint32[n]. Returns
    ``(ptr uint32[n+1], col uint32[>= 1][, off uint32[>= 1]])``: row r's entries are
    ``col[ptr[r]:ptr[r+1]]``, sorted; entries past ``ptr[n]`` are unused. No synchronisation
    without offsets (with them, an argsort).
    """
    m = int(row.size)
    if not m:
        empty = cupy.zeros(1, cupy.uint32)
        ptr = cupy.zeros(n + 1, cupy.uint32)
        return (ptr, empty) if off is None else (ptr, empty, empty.copy())
    f = module("graph.cu")
    keys = cupy.empty(m, cupy.uint64)
    f("csr_keys")(blocks_for(m), (BLOCK,), (row, col, np.uint64(m), rep, keys))
    has_off = off is not None
    if has_off:
        order = cupy.argsort(keys)
        keys = keys[order]
    else:
        sort_keys(keys)
        order, off = keys, row      # dummies, not read
    first = cupy.empty(m, cupy.uint32)
    f("csr_first")(blocks_for(m), (BLOCK,), (keys, order, off, np.int32(has_off), np.uint64(m), first))
    pos = cupy.cumsum(first, dtype=cupy.uint32)
    ptr = cupy.empty(n + 1, cupy.uint32)
    col_out = cupy.empty(m, cupy.uint32)
    off_out = cupy.empty(m, cupy.uint32) if has_off else col_out
    f("csr_fill")(blocks_for(m + n + 1), (BLOCK,), (keys, order, off, np.int32(has_off), np.uint64(m),
                                                   pos, np.uint32(n), ptr, col_out, off_out))
    return (ptr, col_out, off_out) if has_off else (ptr, col_out)


def heavy_gep_chunks(g_ptr: cupy.ndarray, n: int) -> cupy.ndarray:
    """The heavy items of emit: ``y << 32 | j`` (uint64[h]) for every node y with more than
    :data:`GEP_CHUNK` gep edges and every chunk of its edges after the first, j the chunk's
    first edge in ``g_dst``/``g_off``; ordered by node, then chunk. One host synchronisation
    (the count)."""
    if not n:
        return cupy.zeros(0, cupy.uint64)
    start = g_ptr[:n].astype(cupy.int64)
    extra = (g_ptr[1:n + 1].astype(cupy.int64) - start + GEP_CHUNK - 1) // GEP_CHUNK - 1
    heavy = cupy.flatnonzero(extra > 0)
    if not heavy.size:
        return cupy.zeros(0, cupy.uint64)
    extra = extra[heavy]
    ends = cupy.cumsum(extra)
    total = int(ends[-1])
    item = cupy.arange(total, dtype=cupy.int64)
    row = cupy.searchsorted(ends, item, side="right")
    chunk = item - (ends[row] - extra[row]) + 1            # 1 .. extra[row]
    y = heavy[row]
    return (y.astype(cupy.uint64) << np.uint64(32)) | (start[y] + chunk * GEP_CHUNK).astype(cupy.uint64)


class DeviceGraph:
    """The forward constraint lists of the representatives (see the module docstring).

    Attributes (cupy uint32 unless said)
    ----------
    n : int                   nodes
    i2p : int                 the int-to-pointer id (renumbered), or 0xFFFFFFFF
    rep : uint32[n]           representative of every node (a fixpoint)
    size : uint32[n]          the gep bound (``ConstraintSet.gep_bound``: object sizes, functions closed by call geps 1)
    walk_size : uint32[n]     the walk bound (``ConstraintSet.walk_size``; ``size`` when there is no walk)
    call_size : uint32[n]     the call gep bound (``ConstraintSet.call_bound``; ``size`` when there is no call gep)
    fi : uint32[n] or None    1 at the field-insensitive objects (``ConstraintSet.field_insensitive_mask``),
                              None when there is none
    gep_pairs : int           contribution pairs a gep may push a round: 2 with ``fi``, else 1
    nodes : uint32[k]         the representatives, ascending
    load_ptrs : uint32[q]     the representatives with a load successor
    heavy : uint64[h]         emit's heavy gep chunks (:func:`heavy_gep_chunks`)
    perm, inverse             new id of every constraint-set node and its inverse (uint32[n]),
                              or None when the graph keeps the constraint set's ids
    desc : uint64[17]         the ``Graph`` struct of kernels_cu/emit.cu
    """

    def __init__(self, cs: ConstraintSet, perm=None):
        """``perm``: the pointee order's new id of every node (``np.ndarray``), None to keep the
        ids, or a callable returning either, called once the columns are on the device (so that
        an order computed in another thread overlaps the host's part of the build)."""
        n = self.n = int(cs.n_nodes)
        # what does not depend on the order: the per-node bounds and the columns, uploaded as they are
        bound = cs.gep_bound()
        size = _u32(bound) if n else cupy.zeros(1, cupy.uint32)
        # read by walk geps (call geps) only: without any, the gep bound stands in (no second upload)
        walk_size = _u32(cs.walk_size(bound)) if n and len(cs.walk_dst) else None
        call_size = _u32(cs.call_bound()) if n and len(cs.call_dst) else None
        fi = _u32(cs.field_insensitive_mask()) if n and len(cs.field_insensitive) else None
        copy = (_u32(cs.copy_src), _u32(cs.copy_dst))
        # walk geps share the gep lists, their offsets flagged with WALK (kernels_cu/emit.cu)
        walk_off = cs.walk_offset.astype(np.uint32) | np.uint32(WALK)
        call_off = cs.call_offset.astype(np.uint32) | np.uint32(CALL)
        gep = (_u32(np.concatenate((cs.gep_src, cs.walk_src, cs.call_src))),
               _u32(np.concatenate((cs.gep_dst, cs.walk_dst, cs.call_dst))),
               _u32(np.concatenate((cs.gep_offset.astype(np.uint32), walk_off, call_off))))
        load, store, addr = ((_u32(a), _u32(b)) for a, b in ((cs.load_src, cs.load_dst),
                                                             (cs.store_dst, cs.store_src),
                                                             (cs.addr_dst, cs.addr_src)))
        rep = _u32(cs.rep) if n else None
        if callable(perm):
            perm = perm()
        self.perm = self.inverse = None
        if perm is not None and n:
            self.perm = _u32(perm)
            self.inverse = cupy.empty(n, cupy.uint32)
            self.inverse[self.perm] = cupy.arange(n, dtype=cupy.uint32)
        ids = self._ids
        i2p = cs.int_to_pointer
        self.i2p = 0xFFFFFFFF if i2p < 0 else (int(perm[i2p]) if self.perm is not None else int(i2p))
        self.size = size = self._by_id(size) if n else size
        self.walk_size = self._by_id(walk_size) if walk_size is not None else size
        self.call_size = self._by_id(call_size) if call_size is not None else size
        self.fi = self._by_id(fi) if fi is not None else None
        self.gep_pairs = 1 if self.fi is None else 2   # pairs a gep may push (emit.cu: the fi part)
        # the constraint columns (renumbered ids): the lists are rebuilt from them when the
        # representatives change (:meth:`relink`)
        self._copy = tuple(ids(c) for c in copy)
        self._gep = (ids(gep[0]), ids(gep[1]), gep[2])
        self._load, self._store, self._addr = (tuple(ids(c) for c in cols) for cols in (load, store, addr))
        self.relink(self._by_id(ids(rep)) if n else cupy.zeros(1, cupy.uint32))   # new rep[perm v] = perm rep v

    def relink(self, rep: cupy.ndarray) -> None:
        """Make every list again under the representative table ``rep`` (uint32[n], a fixpoint:
        rep[rep[v]] = rep[v]); ``nodes``, ``load_ptrs`` and ``desc`` follow."""
        n = self.n
        self.rep = rep
        self.nodes = cupy.flatnonzero(rep[:n] == cupy.arange(n, dtype=cupy.uint32)).astype(cupy.uint32)
        (load_src, load_dst), (store_ptr, store_val) = self._load, self._store
        self.c_ptr, self.c_dst = build_csr(n, rep, *self._copy)
        self.g_ptr, self.g_dst, self.g_off = build_csr(n, rep, *self._gep)
        self.l_ptr, self.l_dst = build_csr(n, rep, load_src, load_dst)
        self.s_ptr, self.s_val = build_csr(n, rep, store_ptr, store_val)
        self.v_ptr, self.v_ptr_of = build_csr(n, rep, store_val, store_ptr)
        self.load_ptrs = cupy.flatnonzero(self.degree(self.l_ptr)).astype(cupy.uint32)
        self.heavy = heavy_gep_chunks(self.g_ptr, n)
        self.desc = descriptor(self.c_ptr, self.c_dst, self.g_ptr, self.g_dst, self.g_off,
                               self.l_ptr, self.l_dst, self.s_ptr, self.s_val, self.v_ptr,
                               self.v_ptr_of, self.rep, self.size, self.walk_size, self.call_size,
                               0 if self.fi is None else self.fi, self.i2p)

    def degree(self, ptr: cupy.ndarray) -> cupy.ndarray:
        """uint32[n]: the row lengths of the list with row pointers ``ptr``."""
        n = self.n
        return ptr[1:n + 1] - ptr[:n] if n else cupy.zeros(0, cupy.uint32)

    def columns(self, kind: str) -> tuple[cupy.ndarray, ...]:
        """The constraint columns of ``kind`` (raw renumbered ids, uint32[m] each): ``copy``
        (src, dst), ``load`` (ptr, dst), ``store`` (ptr, val)."""
        return dict(copy=self._copy, load=self._load, store=self._store)[kind]

    @property
    def n_work(self) -> int:
        return int(self.nodes.size)

    def _ids(self, col: cupy.ndarray) -> cupy.ndarray:
        """A column of node ids (uint32, on the device), renumbered."""
        return self.perm[col] if self.perm is not None and col.size else col

    def _by_id(self, values: cupy.ndarray) -> cupy.ndarray:
        """A per-node array (indexed by old id) re-indexed by new id."""
        if self.perm is None:
            return values
        out = cupy.empty_like(values)
        out[self.perm] = values
        return out

    def addr_pairs(self) -> cupy.ndarray:
        """Sorted uint64 (rep x) << 32 | y for x = &y."""
        ad, as_ = self._addr
        if not ad.size:
            return cupy.zeros(0, cupy.uint64)
        pairs = (self.rep[ad].astype(cupy.uint64) << np.uint64(32)) | as_.astype(cupy.uint64)
        sort_keys(pairs)
        return pairs
