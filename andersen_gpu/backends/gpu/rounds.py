"""One round of the solver on the device: emit, group the stores, union, commit
(kernels_cu/emit.cu, runs.cu, commit.cu), and the buffers the rounds share.

A round reads the state (per representative: P, ΔP = D, Pold, as set ids) and the changed
list of the last round, and ends with the next state, the next changed list and the counts
the host sizes the next round's buffers from. Its pair buffers:

* C, the contribution pairs (t << 32 | sid): what emit pushes (its size is known before the
  round: the out-degrees of the changed nodes, and the load out-degrees of every node with a
  set, counted at commit; the unused tail is padding that sorts last), then what the stores
  expand to; sorted, then one union and one update per target.
* G, the store grouping pairs (T << 32 | sid), also sized at commit; sorted, one union per
  distinct pointer set T, then the elements of T are grouped by content (GE: slot << 32 | sid)
  so that an element held by many sets T is expanded once.

A round of at most ``SPECULATE_MAX`` pairs synchronises once, at its end: its second half is
queued with the first, sized by the room the last rounds needed (``Round.ge_room``,
``Round.expand_room``), and its kernels read the counts on the device (``sort_counted``, the
``count_slot`` of runs.cu). When that room was too small the round is run again the other way,
which a larger round always takes: it synchronises after the stores are grouped (the host reads
how many grouping pairs and expanded pairs there are, to size the sort and C), and at its end. A
kernel that runs out of room raises ``ctl[CTL_OVF]``; the kernels after it do nothing and the
commit is skipped, so the state is untouched and the host runs the round again once it made room
(:meth:`Round.make_room`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cupy
import numpy as np

from .device import (BLOCK, CTL_C_FILL, CTL_EXPAND_BOUND, CTL_G_FILL, CTL_GE_FILL, CTL_LOAD_LIVE, CTL_NCHG,
                     CTL_NEXT_C, CTL_NEXT_G, CTL_NSETS, CTL_OVF, CTL_TABLE_CLAIMS, CTL_TABLE_FULL, CTL_TOP,
                     blocks_for, fill_bytes, fill_many, module, persistent_grid)
from .graph import DeviceGraph
from .pool import ElementPool
from . import sets
from .sets import ElemMemo, SetStore, grown, pow2_at_least, start_slots
from .sort import MERGE_SORT_MAX, sort_counted, sort_keys

#: Buffers grow to this many times what was asked for (the next rounds tend to ask for more).
GROWTH = 1.25
#: An image of a set of at least this many elements has its element parts computed by emit's
#: image chunk items, IMAGE_CHUNK_ELEMS elements (1 to 32) an item, before the warp that images it
#: gets to them (kernels_cu/emit.cu, image_chunks); the table that lists each such set once a
#: round, and the most chunks a round lists (the parts of those past it are computed by the
#: imaging warp).
IMAGE_CHUNK_MIN = 8
IMAGE_CHUNK_ELEMS = 4
IMAGE_CHUNK_TABLE = 1 << 14
IMAGE_CHUNK_CAP = 1 << 18


@dataclass
class Counts:
    """What the host reads of the control block after a round (or the initial sets)."""

    nchg: int          # nodes whose set changed (the next round's changed list)
    next_c: int        # contribution pairs the changed nodes push next round (bound)
    next_g: int        # store grouping pairs next round (bound)
    load_live: int     # load out-degree of the nodes with a set (bound of the Ldelta pairs)
    top: int           # pool elements in use
    nsets: int         # set ids in use

    @classmethod
    def read(cls, c: np.ndarray) -> "Counts":
        return cls(int(c[CTL_NCHG]), int(c[CTL_NEXT_C]), int(c[CTL_NEXT_G]), int(c[CTL_LOAD_LIVE]),
                   int(c[CTL_TOP]), int(c[CTL_NSETS]))

    @property
    def bound_c(self) -> int:
        """Contribution pairs emit may push next round."""
        return self.next_c + self.load_live


def _room(buf: cupy.ndarray, need: int) -> cupy.ndarray:
    """``buf`` if it holds ``need`` uint64, else a new, larger buffer."""
    return buf if need <= buf.size else cupy.empty(int(need * GROWTH) + 1024, cupy.uint64)


#: The most pairs (C with its room for the stores' expansions; GE's room) a round queues its second
#: half for without reading its counts (at most MERGE_SORT_MAX: sort_counted). Larger rounds read
#: them: their kernels' time dwarfs the read.
SPECULATE_MAX = 1 << 17
assert SPECULATE_MAX <= MERGE_SORT_MAX
#: A speculative round's room for the stores' pairs: this many times the most the recent rounds used
#: (decaying by a quarter a round), and at least ROOM_MIN.
ROOM_GROWTH = 2
ROOM_MIN = 1024

def _room_for(used) -> int:
    """A speculative round's room for pairs of which a round used ``used``."""
    return ROOM_GROWTH * int(used) + ROOM_MIN


#: Sorted pairs a warp of union_update, store_runs and expand_elems reads (1 to 32; kernels_cu/runs.cu):
#: it handles the runs that begin among them one after another (bench/results/h100-5233423/).
UNION_PER_WARP = 8
STORE_PER_WARP = 8
EXPAND_PER_WARP = 8


def _warp_groups(npairs: int, per_warp: int) -> tuple[int]:
    """Blocks for one warp per ``per_warp`` consecutive pairs."""
    return blocks_for(((npairs + per_warp - 1) // per_warp) * 32)


class Round:
    """The state of a solve and the buffers its rounds reuse.

    Attributes
    ----------
    P, D, Pold : uint32[n]   set ids per node (meaningful at representatives; 0 elsewhere)
    Pn, Dn : uint32[n]       a round's new sets (valid for the nodes of its changed list)
    chg, chg_next : uint32[n]  the last round's changed list and this round's
    ch : uint32[...]         bit z: ΔP(rep z) ≠ ∅, as 960-bit elements' words; cb a bit per base

    ``table_slots`` is the largest size the stores' element table takes by its claims (:meth:`fit`;
    it starts smaller, and a round that finds it full doubles it and runs again).
    """

    def __init__(self, g: DeviceGraph, pool: ElementPool, store: SetStore, timer, table_slots: int):
        n = max(g.n, 1)
        self.g, self.pool, self.store, self.timer = g, pool, store, timer
        self.P, self.D, self.Pold, self.Pn, self.Dn = (cupy.zeros(n, cupy.uint32) for _ in range(5))
        self.chg = cupy.empty(n, cupy.uint32)
        self.chg_next = cupy.empty(n, cupy.uint32)
        self.n_ch_words = ((n + 959) // 960 + 1) * 30
        self.ch = cupy.zeros(self.n_ch_words, cupy.uint32)
        self.cb = cupy.zeros((self.n_ch_words // 30 + 31) // 32, cupy.uint32)
        self.C, self.G, self.GE = (cupy.empty(1024, cupy.uint64) for _ in range(3))
        self.table_largest = pow2_at_least(table_slots, sets.MIN_CACHE_SLOTS)
        self.table = ElemMemo.make(start_slots(self.table_largest), CTL_TABLE_CLAIMS)
        self.chunk_table = cupy.empty(IMAGE_CHUNK_TABLE, cupy.uint64)
        self.chunks = cupy.empty(IMAGE_CHUNK_CAP, cupy.uint64)
        self.grid = persistent_grid()
        # pairs beyond the counted bounds (none, unless a bound is wrong: then the round is run
        # again with this much more room instead of losing pairs)
        self.c_slack = self.g_slack = 0
        self.bound_c = self.bound_g = self.c_cap = self.ge_cap = 0
        # the room a speculative round keeps for the stores' element pairs (GE) and expansions (in C)
        self.ge_room = self.expand_room = ROOM_MIN
        self.speculative = False
        # the control words a speculative round's sorts read its pair counts from (views)
        self.ge_fill, self.c_fill = pool.ctl[CTL_GE_FILL:CTL_GE_FILL + 1], pool.ctl[CTL_C_FILL:CTL_C_FILL + 1]

    def roots(self) -> list[cupy.ndarray]:
        """The sid arrays a compaction must keep (and rewrites)."""
        return [self.P, self.D, self.Pold]

    def launch_first(self, counts: Counts, speculate: bool = True) -> bool:
        """Queue the first part of a round after ``counts`` (the last one's): emit, and the
        grouping of the stores. Returns whether the round is speculative (``speculate`` and small
        enough): then the host calls :meth:`launch_second` at once, without ``c``; otherwise it reads
        the control block first and passes it."""
        g, pool, store, t = self.g, self.pool, self.store, self.timer
        bound_c, bound_g = counts.bound_c + self.c_slack, counts.next_g + self.g_slack
        room = self.expand_room if bound_g else 0
        spec = (speculate and SPECULATE_MAX > 0 and bound_c + room <= SPECULATE_MAX
                and (not bound_g or self.ge_room <= SPECULATE_MAX))
        self.speculative = spec
        self.bound_c, self.bound_g = bound_c, bound_g
        self.c_cap = bound_c + room if spec else bound_c
        self.C = _room(self.C, self.c_cap)
        self.G = _room(self.G, bound_g)
        # GE's room only where stores run (a round without any needs no buffer for them)
        self.GE = _room(self.GE, max(bound_g, self.ge_room if spec and bound_g else 0))
        self.ge_cap = min(int(self.GE.size), self.ge_room) if spec else int(self.GE.size)
        C, G = self.C, self.G
        nloads = int(g.load_ptrs.size) if counts.load_live else 0
        emits = bool(counts.nchg or nloads)
        # the round's clears, in one launch: the round's control slots, the image and element caches,
        # the pair buffers' padding (sorts last), the chunk table, the stores' element table
        fill_many([(pool.round_slots, 0), (store.image.buf, 0xFF),
                   (store.elements.buf, 0xFF), (C[:bound_c], 0xFF), (G[:bound_g], 0xFF)]
                  + ([(self.chunk_table, 0xFF)] if emits else []) + ([(self.table.buf, 0xFF)] if bound_g else []))
        if emits:
            # C, G: the pushes of the changed nodes (the gep chunks of those with many first), Ldelta
            # of every load pointer with an old set
            nheavy = int(g.heavy.size) if counts.nchg else 0
            f = module("emit.cu")
            # chunks: the large images' chunks of IMAGE_CHUNK_ELEMS elements, each set once (count in ctl)
            t.run("emit", f("image_chunks"), blocks_for(counts.nchg + nloads), (BLOCK,), (
                self.chg, np.uint64(counts.nchg), g.load_ptrs, np.uint64(nloads), g.l_ptr, self.D, self.Pold,
                store.desc, self.chunk_table, np.uint64(IMAGE_CHUNK_TABLE - 1), np.uint32(IMAGE_CHUNK_MIN),
                np.uint32(IMAGE_CHUNK_ELEMS), self.chunks, np.uint64(IMAGE_CHUNK_CAP), pool.ctl))
            t.run("emit", f("emit"), self.grid, (BLOCK,), (
                self.chunks, np.uint64(IMAGE_CHUNK_CAP), np.uint32(IMAGE_CHUNK_ELEMS),
                g.heavy, np.uint64(nheavy), self.chg, np.uint64(counts.nchg), g.load_ptrs, np.uint64(nloads),
                g.desc, self.P, self.D, self.Pold, self.ch, self.cb, store.desc, store.shift.desc, store.image.desc,
                store.elements.desc, C, np.uint64(bound_c), G, np.uint64(bound_g), *pool.args()))
        if bound_g:
            t.run("sort", sort_keys, G[:bound_g])
            # GE: (element slot, W) for every element of every store pointer set T
            t.run("stores", module("runs.cu")("store_runs"), _warp_groups(bound_g, STORE_PER_WARP), (BLOCK,), (
                G, np.uint64(bound_g), np.uint32(STORE_PER_WARP), store.desc, self.table.desc, np.uint32(g.i2p), self.GE,
                np.uint64(self.ge_cap), *pool.args()))
        return spec

    def launch_second(self, counts: Counts, c: np.ndarray | None = None) -> None:
        """Queue the rest of the round (``c``: the control block after :meth:`launch_first`; None
        after a speculative one): the stores' expansions into C, the sort of C, the unions and
        updates, the commit. A speculative round's are sized by its room (``ge_cap``, ``c_cap``),
        and its kernels read the pairs' counts on the device (CTL_GE_FILL, CTL_C_FILL): a count past
        its room raised CTL_OVF (emit_pair), and :meth:`speculation_missed` follows."""
        g, pool, store, t = self.g, self.pool, self.store, self.timer
        f_runs = module("runs.cu")
        if c is None:
            n_ge, total = (self.ge_cap if self.bound_g else 0), self.c_cap
            ge_slot, c_slot = CTL_GE_FILL, CTL_C_FILL
            sort = lambda keys, count: sort_counted(keys, count)   # noqa: E731
        else:
            bound_c = self.bound_c
            n_ge, expand = int(c[CTL_GE_FILL]), int(c[CTL_EXPAND_BOUND])
            total = self.c_cap = bound_c + expand
            if total > self.C.size:
                bigger = cupy.empty(int(total * GROWTH) + 1024, cupy.uint64)
                bigger[:bound_c] = self.C[:bound_c]
                self.C = bigger
            fill_bytes(self.C[bound_c:total], 0xFF)
            ge_slot = c_slot = 0
            sort = lambda keys, count: sort_keys(keys)   # noqa: E731
        C = self.C
        if n_ge:
            GE = self.GE[:n_ge]
            t.run("sort", sort, GE, self.ge_fill)
            # C: the stores' pairs, one expansion per distinct element
            t.run("stores", f_runs("expand_elems"), _warp_groups(n_ge, EXPAND_PER_WARP), (BLOCK,), (
                GE, np.uint64(n_ge), np.uint32(EXPAND_PER_WARP), np.uint32(ge_slot), store.desc, self.table.desc,
                g.rep, np.uint32(g.i2p), C, np.uint64(total), *pool.args()))
        if total:
            t.run("sort", sort, C[:total], self.c_fill)
            # Pn, Dn, chg_next: the targets whose set grew
            t.run("union", f_runs("union_update"), _warp_groups(total, UNION_PER_WARP), (BLOCK,), (
                C, np.uint64(total), np.uint32(UNION_PER_WARP), np.uint32(c_slot), self.P, store.desc, store.update.desc,
                self.Pn, self.Dn, self.chg_next, *pool.args()))
        self.commit(counts.nchg)

    def speculation_missed(self, c: np.ndarray) -> None:
        """After a speculative round that raised CTL_OVF (control block ``c``): room for the stores'
        pairs it found, the caches cleared and the flags lowered; the host runs the round again,
        reading its counts (``launch_first(..., speculate=False)``), which makes room for anything
        else that ran out."""
        self.ge_room = max(self.ge_room, _room_for(c[CTL_GE_FILL]))
        self.expand_room = max(self.expand_room, _room_for(c[CTL_EXPAND_BOUND]))
        self._lower_flags()

    def _lower_flags(self) -> None:
        """After a round that raised CTL_OVF: forget the caches (its kernels left aborted entries)
        and lower the flags, so that it can run again."""
        self.store.clear_caches()
        self.pool.ctl[CTL_OVF] = 0
        self.pool.ctl[CTL_TABLE_FULL] = 0

    def commit(self, nprev: int) -> None:
        """Queue the commit of the sets in Pn, Dn for the nodes of ``chg_next`` (and the reset
        of the deltas of ``chg``'s first ``nprev``), and the changed-pointee bitmaps."""
        g, t = self.g, self.timer
        f = module("commit.cu")
        if nprev:
            # Pold, D of the nodes changed last round
            t.run("commit", f("commit_prev"), blocks_for(nprev), (BLOCK,), (
                self.chg, np.uint64(nprev), self.P, self.D, self.Pold, self.pool.ctl))
        # P, D, Pold of the nodes changed now; the next round's counts
        t.run("commit", f("commit_new"), self.grid, (BLOCK,), (
            self.chg_next, self.P, self.D, self.Pold, self.Pn, self.Dn, g.c_ptr, g.g_ptr, g.l_ptr,
            g.s_ptr, g.v_ptr, np.uint32(g.gep_pairs), self.pool.ctl))
        # ch, cb: the pointees whose set changed, and their element bases
        fill_bytes(self.cb, 0)
        t.run("commit", f("mark_changed"), blocks_for(self.n_ch_words * 32), (BLOCK,), (
            np.uint32(g.n), np.uint64(self.n_ch_words), g.rep, self.D, self.ch, self.cb))

    def fit(self, c: np.ndarray) -> None:
        """After a successful round (control block ``c``): the set store's tables and caches
        (:meth:`.sets.SetStore.fit`), and the stores' element table, made larger for the next
        rounds when this round's claims passed 1/CACHE_LOAD of its slots."""
        self.store.fit(c)
        self.table = grown(self.table, int(c[CTL_TABLE_CLAIMS]), self.table_largest) or self.table
        # the next speculative rounds' room: what this one used, or what the last ones did, decaying
        self.ge_room = max(_room_for(c[CTL_GE_FILL]), self.ge_room - self.ge_room // 4)
        self.expand_room = max(_room_for(c[CTL_EXPAND_BOUND]), self.expand_room - self.expand_room // 4)

    def release_buffers(self) -> None:
        """Drop the pair buffers (between rounds they hold nothing the next round reads; it
        makes them again at the size it needs)."""
        self.C, self.G, self.GE = (cupy.empty(1024, cupy.uint64) for _ in range(3))

    def advance(self) -> None:
        """After a successful round: this round's changed list becomes the last's."""
        self.chg, self.chg_next = self.chg_next, self.chg

    def make_room(self, c: np.ndarray, counts: Counts, top_before: int, min_cap: int) -> str:
        """After a round that raised CTL_OVF (control block ``c``): grow what ran out, so that the
        round can run again. Returns what was done (for the statistics)."""
        done = []
        if int(c[CTL_C_FILL]) > self.c_cap:
            self.c_slack += int(c[CTL_C_FILL]) - self.c_cap + 1024
            done.append("C")
        if int(c[CTL_G_FILL]) > self.bound_g:
            self.g_slack += int(c[CTL_G_FILL]) - self.bound_g + 1024
            done.append("G")
        if int(c[CTL_GE_FILL]) > self.GE.size:
            self.GE = cupy.empty(int(int(c[CTL_GE_FILL]) * GROWTH) + 1024, cupy.uint64)
            done.append("GE")
        if int(c[CTL_TABLE_FULL]):
            self.table = ElemMemo.make(2 * self.table.slots, CTL_TABLE_CLAIMS)
            done.append("table")
        nsets = int(c[CTL_NSETS])
        if nsets >= self.store.cap:
            self.store.grow(nsets)
            done.append("sets")
        top = int(c[CTL_TOP])
        if top > self.pool.cap:
            used = top - top_before   # what the round took before the pool ran out
            self.store.compact(self.roots(), min(nsets, self.store.cap), min_cap,
                               want_free=2 * used + self.pool.cap // 4, min_free=used + used // 4 + 1024,
                               release=self.release_buffers)
            done.append("pool")
        if not done:
            # nothing full that we can see: the intern table (twice the set table) must be
            self.store.grow(nsets)
            done.append("sets")
        self._lower_flags()
        return "+".join(done)
