"""The inverted constraint graph of the representatives, built on the device with CuPy sorts.

:class:`DeviceGraph` keeps the constraint columns of the (offline-collapsed) constraint set on
the device and builds from them, for a representative table ``rep``, the CSR lists the
kernels read (same contract as ``gpu.HostGraph``, as cupy arrays). :meth:`DeviceGraph.rekey`
builds them again after online merges changed ``rep``: a class's load, store and gep lists
are then the union of its members' lists, under the representative.

A build is a CuPy sort per list plus the kernels of ``kernels_cu/graph.cu`` (keys, first
entries, columns and row pointers by binary search), with no synchronisation once the work
list's size is known: a merge rebuilds the graph, and the launches and synchronisations of
a NumPy-style build (``unique``, boolean masks) cost a few milliseconds a merge.
"""

from __future__ import annotations

import cupy
import numpy as np

from constraints.model import ConstraintSet

from ._gpu_pool import BLOCK, module
from ._gpu_sort import sort_keys


def _u32(a: np.ndarray) -> cupy.ndarray:
    return cupy.asarray(np.ascontiguousarray(a, dtype=np.uint32))


def _empty_rows(n: int) -> cupy.ndarray:
    return cupy.zeros(n + 1, cupy.uint32)


def _blocks(threads: int) -> tuple[int]:
    return (max(1, (threads + BLOCK - 1) // BLOCK),)


def build_csr(n: int, rep: cupy.ndarray, dst: cupy.ndarray, src: cupy.ndarray,
              off: cupy.ndarray | None = None) -> tuple[cupy.ndarray, ...]:
    """The distinct (rep dst, rep src[, off]) entries as a CSR over ``n`` rows.

    ``dst``, ``src`` (and ``off``): uint32[m] columns of raw ids; ``rep``: uint32[n]. Returns
    ``(ptr uint32[n+1], col uint32[>= 1][, off uint32[>= 1]])``: row d's entries are
    ``col[ptr[d]:ptr[d+1]]``, sorted by source; entries past ``ptr[n]`` are unused. Without
    offsets every repeat is dropped; with offsets, repeats of (dst, src, off) that the sort
    leaves adjacent (harmless: a repeat only costs a second union). No synchronisation.
    """
    m = int(dst.size)
    if not m:
        empty = cupy.zeros(1, cupy.uint32)
        return (_empty_rows(n), empty) if off is None else (_empty_rows(n), empty, empty.copy())
    f = module("graph.cu").get_function
    keys = cupy.empty(m, cupy.uint64)
    f("csr_keys")(_blocks(m), (BLOCK,), (dst, src, np.uint64(m), rep, keys))
    has_off = off is not None
    if has_off:
        order = cupy.argsort(keys)
        keys = keys[order]
    else:
        sort_keys(keys)             # no synchronisation up to _gpu_sort.MERGE_SORT_MAX keys
        order, off = keys, dst      # dummies, not read
    first = cupy.empty(m, cupy.uint32)
    f("csr_first")(_blocks(m), (BLOCK,), (keys, order, off, np.int32(has_off), np.uint64(m), first))
    pos = cupy.cumsum(first, dtype=cupy.uint32)
    ptr = cupy.empty(n + 1, cupy.uint32)
    col = cupy.empty(m, cupy.uint32)
    off_out = cupy.empty(m, cupy.uint32) if has_off else col
    f("csr_fill")(_blocks(m + n + 1), (BLOCK,), (keys, order, off, np.int32(has_off), np.uint64(m),
                                                 pos, np.uint32(n), ptr, col, off_out))
    return (ptr, col, off_out) if has_off else (ptr, col)


class DeviceGraph:
    """Constraint graph of the representatives, inverted, as device arrays.

    Attributes (cupy, uint32 unless said; all ids representatives except pointees)
    ----------
    n, n_work, i2p : int               nodes, representatives, int-to-pointer id or 0xFFFFFFFF
    n_work_dev : uint64[1]             n_work on the device (the count of the work list ``nodes``)
    rep : uint32[n]                    representative of every node (a fixpoint)
    nodes : uint32[n_work]             the representatives, ascending
    l_ptr[n+1], l_src                  load⁻¹ CSR: x = *y gives y in l⁻¹(x)
    g_ptr[n+1], g_src, g_off           gep⁻¹ CSR: x = y + o gives (y, o) in a⁻¹(x)
    s_ptr[n+1], s_dst                  store CSR: *x = y gives y in s(x)
    size : uint32[n]                   object sizes
    hcd_ptr, hcd_target : uint32[k]    the HCD table (raw ids; read through rep)
    perm, inverse : uint32[n] or None  new id of every original node and its inverse, when
                                       the graph was renumbered (else None: ids are the
                                       constraint set's)
    """

    def __init__(self, cs: ConstraintSet, perm: np.ndarray | None = None):
        """``perm`` (int32[n], optional): new id of every node (a permutation that keeps every
        object's ids consecutive and in order, ``andersen_gpu.preprocess.order``). The graph
        is then that of ``cs`` renumbered by it, on the device: every id the kernels see
        is a new id, and ``perm`` / ``inverse`` (uint32[n]) map between the two."""
        self.n = int(cs.n_nodes)
        self.perm = self.inverse = None
        if perm is not None and self.n:
            self.perm = _u32(perm)
            self.inverse = cupy.empty(self.n, cupy.uint32)
            self.inverse[self.perm] = cupy.arange(self.n, dtype=cupy.uint32)
        ids = self._ids
        i2p = cs.int_to_pointer
        self.i2p = 0xFFFFFFFF if i2p < 0 else (int(perm[i2p]) if self.perm is not None else i2p)
        self.size = self._by_id(_u32(cs.obj_size)) if self.n else cupy.zeros(1, cupy.uint32)
        self._load = (ids(cs.load_dst), ids(cs.load_src))
        self._gep = (ids(cs.gep_dst), ids(cs.gep_src), _u32(cs.gep_offset))
        self._store = (ids(cs.store_dst), ids(cs.store_src))
        self._addr = (ids(cs.addr_dst), ids(cs.addr_src))
        self._copy = (ids(cs.copy_dst), ids(cs.copy_src))
        self.hcd_ptr, self.hcd_target = ids(cs.hcd_ptr), ids(cs.hcd_target)
        # raw ids whose ΔP a rule other than Copy⁻¹ reads (see consumers), repeats kept: a
        # np.unique of them on the host took 10-22 ms on linux and gimp
        self._readers = cupy.concatenate([self._load[1], self._gep[1], self._store[0], self.hcd_ptr])
        # new rep[perm[v]] = perm[rep[v]]
        self.rekey(self._by_id(ids(cs.rep)) if self.n else cupy.zeros(1, cupy.uint32))

    def _ids(self, col: np.ndarray) -> cupy.ndarray:
        """uint32 device copy of a column of node ids, renumbered."""
        out = _u32(col)
        return self.perm[out] if self.perm is not None and out.size else out

    def _by_id(self, values: cupy.ndarray) -> cupy.ndarray:
        """A per-node array (indexed by old id) re-indexed by new id."""
        if self.perm is None:
            return values
        out = cupy.empty_like(values)
        out[self.perm] = values
        return out

    @property
    def n_hcd(self) -> int:
        return int(self.hcd_ptr.size)

    def _pairs(self, hi: cupy.ndarray, lo: cupy.ndarray) -> cupy.ndarray:
        return (hi.astype(cupy.uint64) << np.uint64(32)) | lo.astype(cupy.uint64)

    def rekey(self, rep: cupy.ndarray, n_work: int | None = None) -> None:
        """Build the CSR lists and the work list for the representative table ``rep``.

        ``n_work``, when given, is the number of representatives under ``rep`` and every one
        of them is already in ``nodes`` (after merges: the old count less the merged nodes);
        the work list is then compacted without a synchronisation. Repeated entries are
        removed: kept (after online merges), they tripled php's rule kernel on the H200 (175
        to 616 ms, 2026-11-30)."""
        self.rep = rep
        n = self.n
        if n_work is None:
            self.nodes = cupy.flatnonzero(rep[:n] == cupy.arange(n, dtype=cupy.uint32)).astype(cupy.uint32)
            self.n_work = int(self.nodes.size)
        else:
            self.nodes = self._still_reps(n_work)
            self.n_work = n_work
        self.n_work_dev = cupy.full(1, self.n_work, cupy.uint64)
        self.l_ptr, self.l_src = build_csr(n, rep, *self._load)
        self.s_ptr, self.s_dst = build_csr(n, rep, *self._store)
        self.g_ptr, self.g_src, self.g_off = build_csr(n, rep, *self._gep)

    def _still_reps(self, n_work: int) -> cupy.ndarray:
        """The nodes of the work list that ``rep`` still maps to themselves (``n_work`` of them)."""
        k = int(self.nodes.size)
        out = cupy.empty(max(n_work, 1), cupy.uint32)[:n_work]
        if not k or not n_work:
            return out
        f = module("graph.cu").get_function
        flag = cupy.empty(k, cupy.uint32)
        f("keep_reps")(_blocks(k), (BLOCK,), (self.nodes, np.uint64(k), self.rep, flag))
        pos = cupy.cumsum(flag, dtype=cupy.uint32)
        f("compact")(_blocks(k), (BLOCK,), (self.nodes, flag, pos, np.uint64(k), out, np.uint32(n_work)))
        return out

    def consumers(self, succ: cupy.ndarray, uses: cupy.ndarray) -> None:
        """Fill ``uses`` (uint8[>= n]) with 1 for the representatives whose ΔP some rule reads
        (load and gep sources, store pointers, HCD pointers, nodes with copy successors), under
        the current ``rep``, else 0. Two launches, no synchronisation."""
        if not self.n:
            return
        f = module("graph.cu").get_function
        f("consumers_init")(_blocks(self.n), (BLOCK,), (np.uint32(self.n), succ, uses))
        k = int(self._readers.size)
        if k:
            f("consumers_mark")(_blocks(k), (BLOCK,), (self._readers, np.uint64(k), self.rep, uses))

    def initial_pairs(self) -> tuple[cupy.ndarray, cupy.ndarray]:
        """Sorted uint64 (rep x) << 32 | y for x = &y, and (rep x) << 32 | (rep y) for x = y."""
        ad, as_ = self._addr
        addr = self._pairs(self.rep[ad], as_) if ad.size else cupy.zeros(0, cupy.uint64)
        sort_keys(addr)
        cd, cs_ = self._copy
        if cd.size:
            rd, rs = self.rep[cd], self.rep[cs_]
            keep = rd != rs
            copy = self._pairs(rd[keep], rs[keep])
            sort_keys(copy)
        else:
            copy = cupy.zeros(0, cupy.uint64)
        return addr, copy
