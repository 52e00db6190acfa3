"""One round of the solver on the device: emit, sort, union, commit (kernels_cu/emit.cu,
runs.cu, commit.cu), and the buffers the rounds share.

A round reads the state (per representative: P, ΔP = D, Pold, as set ids) and the changed
list of the last round, and ends with the next state, the next changed list and the counts
the host sizes the next round's buffers from. Its pair buffers:

* C, the contribution pairs (t << 32 | sid): the store pairs carried over from the last round
  (E), then what emit_changed and emit_loads push; sorted, then one union per target.
  Its size is known before the round: the carried pairs, plus the out-degrees of the changed
  nodes (copy, gep, load) and the load out-degrees of every node with a set (``ctl`` counts
  them at commit); the unused tail is padding that sorts last.
* G, the store grouping pairs (T << 32 | sid), also sized at commit; sorted, one union and one
  expansion of T per distinct set T, into the next E (its size is read after the round).

A kernel that runs out of room raises ``ctl[CTL_OVF]``; the kernels after it do nothing and
the commit is skipped, so the state is untouched and the host runs the round again once it
made room (:meth:`Round.make_room`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cupy
import numpy as np

from .device import (BLOCK, CTL_C_FILL, CTL_E_FILL, CTL_G_FILL, CTL_LOAD_LIVE, CTL_NCHG, CTL_NEXT_C,
                     CTL_NEXT_G, CTL_NSETS, CTL_OVF, CTL_TOP, blocks_for, fill_bytes, module,
                     persistent_grid)
from .graph import DeviceGraph
from .pool import ElementPool
from .sets import SetStore
from .sort import sort_keys


@dataclass
class Counts:
    """What the host reads of the control block after a round (or the initial sets)."""

    nchg: int          # nodes whose set changed (the next round's changed list)
    next_c: int        # contribution pairs the changed nodes push next round (bound)
    next_g: int        # store grouping pairs next round (bound)
    load_live: int     # load out-degree of the nodes with a set (bound of the Ldelta pairs)
    n_e: int           # store pairs carried to the next round
    top: int           # pool elements in use
    nsets: int         # set ids in use

    @classmethod
    def read(cls, c: np.ndarray) -> "Counts":
        return cls(int(c[CTL_NCHG]), int(c[CTL_NEXT_C]), int(c[CTL_NEXT_G]), int(c[CTL_LOAD_LIVE]),
                   int(c[CTL_E_FILL]), int(c[CTL_TOP]), int(c[CTL_NSETS]))


def _room(buf: cupy.ndarray, need: int) -> cupy.ndarray:
    """``buf`` if it holds ``need`` uint64, else a new buffer of at least twice the size."""
    return buf if need <= buf.size else cupy.empty(max(need, 2 * buf.size), cupy.uint64)


def _warp_groups(npairs: int) -> tuple[int]:
    """Blocks for one warp per 32 consecutive pairs."""
    return blocks_for(((npairs + 31) // 32) * 32)


class Round:
    """The state of a solve and the buffers its rounds reuse.

    Attributes
    ----------
    P, D, Pold : uint32[n]   set ids per node (meaningful at representatives; 0 elsewhere)
    Pn, Dn : uint32[n]       a round's new sets (valid for the nodes of its changed list)
    chg, chg_next : uint32[n]  the last round's changed list and this round's
    E : uint64               the store pairs carried over (the first ``counts.n_e``)
    ch : uint32[...]         bit z: ΔP(rep z) ≠ ∅, as 960-bit elements' words
    """

    def __init__(self, g: DeviceGraph, pool: ElementPool, store: SetStore, timer):
        n = max(g.n, 1)
        self.g, self.pool, self.store, self.timer = g, pool, store, timer
        self.P, self.D, self.Pold, self.Pn, self.Dn = (cupy.zeros(n, cupy.uint32) for _ in range(5))
        self.chg = cupy.empty(n, cupy.uint32)
        self.chg_next = cupy.empty(n, cupy.uint32)
        self.n_ch_words = ((n + 959) // 960 + 1) * 30
        self.ch = cupy.zeros(self.n_ch_words, cupy.uint32)
        self.cb = cupy.zeros((self.n_ch_words // 30 + 31) // 32, cupy.uint32)
        self.C, self.G, self.E, self.E_next = (cupy.empty(1024, cupy.uint64) for _ in range(4))
        self.grid = persistent_grid()

    def roots(self) -> tuple[list, list]:
        """The sid arrays and pair buffers a compaction must keep (and rewrites)."""
        return [self.P, self.D, self.Pold], [self.E]

    def launch(self, counts: Counts) -> None:
        """Queue one round after ``counts`` (the last one's); nothing is synchronised."""
        g, pool, store, t = self.g, self.pool, self.store, self.timer
        f_emit, f_runs = module("emit.cu"), module("runs.cu")
        n_e = counts.n_e
        bound_c = n_e + counts.next_c + counts.load_live
        bound_g = counts.next_g
        self.C = _room(self.C, bound_c)
        self.G = _room(self.G, bound_g)
        pool.clear_round()
        store.image.clear()
        C, G = self.C, self.G
        if n_e:
            C[:n_e] = self.E[:n_e]
        fill_bytes(C[n_e:bound_c], 0xFF)
        fill_bytes(G[:bound_g], 0xFF)
        Cout, cap_c = C[n_e:], np.uint64(bound_c - n_e)
        nloads = int(g.load_ptrs.size) if counts.load_live else 0
        if counts.nchg or nloads:
            # C, G: the pushes of the changed nodes, Ldelta of every load pointer with an old set
            t.run("emit", f_emit("emit"), self.grid, (BLOCK,), (
                self.chg, np.uint64(counts.nchg), g.load_ptrs, np.uint64(nloads), g.desc, self.P, self.D,
                self.Pold, self.ch, self.cb, store.desc, store.shift.desc, store.image.desc, Cout, cap_c,
                G, np.uint64(bound_g), *pool.args()))
        if bound_g:
            t.run("sort", sort_keys, G[:bound_g])
            self.E_next = _room(self.E_next, max(1024, 2 * n_e))
            # E_next: the store pairs of the next round
            t.run("stores", f_runs("store_runs"), _warp_groups(bound_g), (BLOCK,), (
                G, np.uint64(bound_g), g.rep, np.uint32(g.i2p), store.desc, self.E_next,
                np.uint64(self.E_next.size), *pool.args()))
        if bound_c:
            t.run("sort", sort_keys, C[:bound_c])
            # Pn, Dn, chg_next: the targets whose set grew
            t.run("union", f_runs("union_update"), _warp_groups(bound_c), (BLOCK,), (
                C, np.uint64(bound_c), self.P, store.desc, store.update.desc, self.Pn, self.Dn,
                self.chg_next, *pool.args()))
        self.commit(counts.nchg)

    def commit(self, nprev: int) -> None:
        """Queue the commit of the sets in Pn, Dn for the nodes of ``chg_next`` (and the reset
        of the deltas of ``chg``'s first ``nprev``), and the changed-pointee bitmap."""
        g, t = self.g, self.timer
        f = module("commit.cu")
        if nprev:
            # Pold, D of the nodes changed last round
            t.run("commit", f("commit_prev"), blocks_for(nprev), (BLOCK,), (
                self.chg, np.uint64(nprev), self.P, self.D, self.Pold, self.pool.ctl))
        # P, D, Pold of the nodes changed now; the next round's counts
        t.run("commit", f("commit_new"), self.grid, (BLOCK,), (
            self.chg_next, self.P, self.D, self.Pold, self.Pn, self.Dn, g.c_ptr, g.g_ptr, g.l_ptr,
            g.s_ptr, g.v_ptr, self.pool.ctl))
        # ch, cb: the pointees whose set changed, and their element bases
        fill_bytes(self.cb, 0)
        t.run("commit", f("mark_changed"), blocks_for(self.n_ch_words * 32), (BLOCK,), (
            np.uint32(g.n), np.uint64(self.n_ch_words), g.rep, self.D, self.ch, self.cb))

    def advance(self) -> None:
        """After a successful round: this round's changed list and store pairs become the last's."""
        self.chg, self.chg_next = self.chg_next, self.chg
        self.E, self.E_next = self.E_next, self.E

    def make_room(self, c: np.ndarray, counts: Counts, top_before: int, min_cap: int) -> str:
        """After a round that raised CTL_OVF (control block ``c``): grow what ran out, so that the
        round can run again. Returns what was done (for the statistics)."""
        done = []
        n_e = counts.n_e
        bound_c = n_e + counts.next_c + counts.load_live
        if int(c[CTL_C_FILL]) > bound_c - n_e:
            self.C = cupy.empty(2 * (n_e + int(c[CTL_C_FILL])), cupy.uint64)
            done.append("C")
        if int(c[CTL_G_FILL]) > counts.next_g:
            self.G = cupy.empty(2 * int(c[CTL_G_FILL]), cupy.uint64)
            done.append("G")
        if int(c[CTL_E_FILL]) > self.E_next.size:
            self.E_next = cupy.empty(2 * int(c[CTL_E_FILL]), cupy.uint64)
            done.append("E")
        nsets = int(c[CTL_NSETS])
        if nsets >= self.store.cap:
            self.store.grow(nsets)
            done.append("sets")
        top = int(c[CTL_TOP])
        if top > self.pool.cap:
            roots, pair_roots = self.roots()
            self.store.compact(roots, [r[:n_e] for r in pair_roots], min(nsets, self.store.cap), min_cap,
                               want_free=2 * (top - top_before) + self.pool.cap // 4)
            done.append("pool")
        if not done:
            # nothing full that we can see: the intern table (twice the set table) must be
            self.store.grow(nsets)
            done.append("sets")
        self.store.clear_caches()
        self.pool.ctl[CTL_OVF] = 0
        return "+".join(done)
