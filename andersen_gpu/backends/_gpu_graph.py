"""The inverted constraint graph of the representatives, built on the device with CuPy sorts.

:class:`DeviceGraph` keeps the constraint columns of the (offline-collapsed) constraint set on
the device and builds from them, for a representative table ``rep``, the CSR lists the
kernels read (same contract as ``gpu.HostGraph``, as cupy arrays). :meth:`DeviceGraph.rekey`
builds them again after online merges changed ``rep``: a class's load, store and gep lists
are then the union of its members' lists, under the representative.
"""

from __future__ import annotations

import cupy
import numpy as np

from constraints.model import ConstraintSet

_LOW = np.uint64(0xFFFFFFFF)


def _u32(a: np.ndarray) -> cupy.ndarray:
    return cupy.asarray(np.ascontiguousarray(a, dtype=np.uint32))


def _rows(n: int, keys: cupy.ndarray) -> cupy.ndarray:
    """uint32[n+1] row pointers of the sorted row ids ``keys`` (a binary search per row: no
    synchronisation, unlike a bincount)."""
    if not keys.size:
        return cupy.zeros(n + 1, cupy.uint32)
    return cupy.searchsorted(keys, cupy.arange(n + 1, dtype=cupy.uint32)).astype(cupy.uint32)


def _nonempty(a: cupy.ndarray) -> cupy.ndarray:
    # a dummy element so that empty CSR columns still have a device pointer
    return a if a.size else cupy.zeros(1, cupy.uint32)


class DeviceGraph:
    """Constraint graph of the representatives, inverted, as device arrays.

    Attributes (cupy, uint32 unless said; all ids representatives except pointees)
    ----------
    n, n_work, i2p : int               nodes, representatives, int-to-pointer id or 0xFFFFFFFF
    rep : uint32[n]                    representative of every node (a fixpoint)
    nodes : uint32[n_work]             the representatives, ascending
    l_ptr[n+1], l_src                  load⁻¹ CSR: x = *y gives y in l⁻¹(x)
    g_ptr[n+1], g_src, g_off           gep⁻¹ CSR: x = y + o gives (y, o) in a⁻¹(x)
    s_ptr[n+1], s_dst                  store CSR: *x = y gives y in s(x)
    size : uint32[n]                   object sizes
    hcd_ptr, hcd_target : uint32[k]    the HCD table (raw ids; read through rep)
    """

    def __init__(self, cs: ConstraintSet):
        self.n = int(cs.n_nodes)
        self.i2p = cs.int_to_pointer if cs.int_to_pointer >= 0 else 0xFFFFFFFF
        self.size = _u32(cs.obj_size) if self.n else cupy.zeros(1, cupy.uint32)
        self._load = (_u32(cs.load_dst), _u32(cs.load_src))
        self._gep = (_u32(cs.gep_dst), _u32(cs.gep_src), _u32(cs.gep_offset))
        self._store = (_u32(cs.store_dst), _u32(cs.store_src))
        self._addr = (_u32(cs.addr_dst), _u32(cs.addr_src))
        self._copy = (_u32(cs.copy_dst), _u32(cs.copy_src))
        self.hcd_ptr, self.hcd_target = _u32(cs.hcd_ptr), _u32(cs.hcd_target)
        self.rekey(_u32(cs.rep) if self.n else cupy.zeros(1, cupy.uint32))

    @property
    def n_hcd(self) -> int:
        return int(self.hcd_ptr.size)

    def _pairs(self, hi: cupy.ndarray, lo: cupy.ndarray) -> cupy.ndarray:
        return (hi.astype(cupy.uint64) << np.uint64(32)) | lo.astype(cupy.uint64)

    def _csr(self, dst: cupy.ndarray, src: cupy.ndarray) -> tuple[cupy.ndarray, cupy.ndarray]:
        if not dst.size:
            return _rows(self.n, cupy.zeros(0, cupy.uint32)), _nonempty(cupy.zeros(0, cupy.uint32))
        keys = cupy.unique(self._pairs(self.rep[dst], self.rep[src]))
        return _rows(self.n, (keys >> np.uint64(32)).astype(cupy.uint32)), \
            _nonempty((keys & _LOW).astype(cupy.uint32))

    def rekey(self, rep: cupy.ndarray) -> None:
        """Build the CSR lists and the work list for the representative table ``rep``.

        Repeated entries are removed: kept (after online merges), they tripled php's rule
        kernel on the H200 (175 to 616 ms, 2026-11-30)."""
        self.rep = rep
        n = self.n
        self.nodes = cupy.flatnonzero(rep[:n] == cupy.arange(n, dtype=cupy.uint32)).astype(cupy.uint32)
        self.n_work = int(self.nodes.size)
        self.l_ptr, self.l_src = self._csr(*self._load)
        self.s_ptr, self.s_dst = self._csr(*self._store)
        gd, gs, go = self._gep
        if gd.size:
            keys = self._pairs(rep[gd], rep[gs])
            order = cupy.argsort(keys)
            keys, go = keys[order], go[order]
            keep = cupy.ones(keys.size, cupy.bool_)
            # equal (dst, src, offset) next to each other are dropped (not all repeats: harmless)
            keep[1:] = (keys[1:] != keys[:-1]) | (go[1:] != go[:-1])
            keys, go = keys[keep], go[keep]
        else:
            keys = cupy.zeros(0, cupy.uint64)
        self.g_ptr = _rows(n, (keys >> np.uint64(32)).astype(cupy.uint32))
        self.g_src = _nonempty((keys & _LOW).astype(cupy.uint32))
        self.g_off = _nonempty(go.astype(cupy.uint32))

    def consumers(self, succ: cupy.ndarray) -> cupy.ndarray:
        """uint8[n]: 1 for the representatives whose ΔP some rule reads (load and gep sources,
        store pointers, HCD pointers, nodes with copy successors), under the current ``rep``."""
        uses = (succ[:self.n] != np.uint32(0xFFFFFFFF)).astype(cupy.uint8)
        for col in (self._load[1], self._gep[1], self._store[0], self.hcd_ptr):
            if col.size:
                uses[self.rep[col]] = 1
        return uses

    def initial_pairs(self) -> tuple[cupy.ndarray, cupy.ndarray]:
        """Sorted uint64 (rep x) << 32 | y for x = &y, and (rep x) << 32 | (rep y) for x = y."""
        ad, as_ = self._addr
        addr = cupy.sort(self._pairs(self.rep[ad], as_)) if ad.size else cupy.zeros(0, cupy.uint64)
        cd, cs_ = self._copy
        if cd.size:
            rd, rs = self.rep[cd], self.rep[cs_]
            keep = rd != rs
            copy = cupy.sort(self._pairs(rd[keep], rs[keep]))
        else:
            copy = cupy.zeros(0, cupy.uint64)
        return addr, copy
