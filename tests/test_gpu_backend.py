"""The GPU backend against the reference backend and the paper's reference solutions.

Every test needs a CUDA device and CuPy (marker ``gpu``; skipped elsewhere). Run on the
device with ``python3 -m pytest -m gpu tests/test_gpu_backend.py``, or on the CPU under the
SIMT emulator with ``ANDERSEN_GPU_EMULATOR=1`` (tests/emu/README.md), where the inputs of
minutes a solve (vim, linux, pine, gimp) are skipped.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from andersen_gpu.backends import reference
from andersen_gpu.solution import Solution
from constraints.model import ConstraintSet
from tests.emu import requested as emulator_requested
from tests.strategies import constraint_sets

pytestmark = pytest.mark.gpu

DUMPS = Path(__file__).resolve().parent.parent / ".inputs"
# dumps whose solves take minutes on the SIMT emulator
TOO_BIG_TO_EMULATE = {"vim", "linux", "pine", "gimp"}


def gpu_solve(cs: ConstraintSet, **kw) -> Solution:
    from andersen_gpu.backends import gpu
    return gpu.solve(cs, **kw)


def assert_same(cs: ConstraintSet, **kw) -> None:
    want = reference.solve(cs)
    got = gpu_solve(cs, **kw)
    assert got == want, got.diff_report(want, labels=("gpu", "reference"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets())
def test_random_sets_match_reference(cs):
    assert_same(cs)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=120, max_constraints=120, with_walks=True, long_runs=True))
def test_random_walk_geps_match_reference(cs):
    # walk geps of any pointer and offset (not implied): the kernel's walk bound against the
    # reference's rule, with and without the offline collapse and the pointee order
    assert_same(cs)
    assert_same(cs, pointee_order=False, preprocess=False)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=60, max_constraints=120, with_i2p=True, with_merges=True))
def test_random_sets_pool_compaction(cs):
    # a one-element pool: the initial lists grow it, and every round that runs out of pool
    # compacts it and runs again; compact_fill=0.01 compacts after every round
    assert_same(cs, capacity=1)
    assert_same(cs, capacity=1, compact_fill=0.01)
    # the constraint set's own numbering, and no offline collapse
    assert_same(cs, pointee_order=False, preprocess=False, capacity=1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=60, max_constraints=120, with_i2p=True, with_merges=True))
def test_random_sets_compaction_short_of_device_memory(cs):
    # every compaction finds no room for the new pool beside the old one (twice: before and
    # after the pair buffers are released), so it stages the live sets and frees the old pool
    # first; then the first new pool asked for, when it has more room than the least the
    # caller accepts, does not fit either and the room is halved
    from unittest.mock import patch

    from andersen_gpu.backends.gpu import sets
    real_try, real_compact = sets._try_empty, sets.SetStore.compact
    calls, least = [], [0]

    def short_try(words):
        calls.append(words)
        fail = len(calls) in (1, 2) or (len(calls) == 4 and (words - calls[2]) // 32 > least[0])
        return None if fail else real_try(words)

    def compact(self, *a, **kw):
        calls.clear()
        least[0] = kw.get("min_free", 0)
        return real_compact(self, *a, **kw)

    with patch.object(sets, "_try_empty", short_try), patch.object(sets.SetStore, "compact", compact):
        want = reference.solve(cs)
        got = gpu_solve(cs, capacity=1, compact_fill=0.01)
    assert got == want, got.diff_report(want, labels=("gpu", "reference"))
    assert got.stats.notes["staged_compactions"] == got.stats.notes["compactions"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=2500, max_constraints=200, with_i2p=True, with_merges=True))
def test_random_sets_tiny_tables(cs):
    # a set table of a few ids (it grows and the round runs again) and caches of two slots
    # (probes find no room: computed without caching); ids past one element's 960 bits
    from unittest.mock import patch

    from andersen_gpu.backends.gpu import sets
    with patch.object(sets, "MIN_SETS", 4), patch.object(sets, "MIN_CACHE_SLOTS", 2):
        assert_same(cs, capacity=1)
        assert_same(cs)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=120, max_constraints=200, with_i2p=True, with_merges=True))
def test_random_sets_fewer_pairs_a_warp(cs):
    # the run kernels (union_update, store_runs, expand_elems) with 1 and 7 pairs a warp: runs
    # begin in one warp's pairs and end in the next ones'
    from unittest.mock import patch

    from andersen_gpu.backends.gpu import rounds
    for k in (1, 7):
        with patch.object(rounds, "UNION_PER_WARP", k), patch.object(rounds, "STORE_PER_WARP", k), \
                patch.object(rounds, "EXPAND_PER_WARP", k):
            assert_same(cs)
            with cycle_pass_every_round():
                assert_same(cs)


def test_cache_slots_follow_the_claims():
    # a cache keeps its size while its claims fill at most a quarter of it, then takes the least
    # power of two of four times its claims (MIN_CACHE_SLOTS at least), never past its largest
    # size and never smaller
    from unittest.mock import patch

    from andersen_gpu.backends.gpu import sets
    from andersen_gpu.backends.gpu.sets import CACHE_LOAD, cache_slots
    assert CACHE_LOAD == 4
    assert cache_slots(5, 16, 1 << 20) == sets.MIN_CACHE_SLOTS
    with patch.object(sets, "MIN_CACHE_SLOTS", 2):
        _cache_slots_cases(cache_slots)


def _cache_slots_cases(cache_slots):
    assert cache_slots(0, 16, 1024) == 16
    assert cache_slots(4, 16, 1024) == 16
    assert cache_slots(5, 16, 1024) == 32
    assert cache_slots(100, 16, 1024) == 512
    assert cache_slots(1000, 16, 1024) == 1024
    assert cache_slots(10, 2048, 1024) == 2048


def _busy_set(n: int = 420, seed: int = 7) -> ConstraintSet:
    """Objects of four slots at 0, 4, .., 96 and pointers 100..n-1 with random copies, geps,
    loads and stores among them: every cache of the GPU solver claims slots in some round."""
    rng = np.random.default_rng(seed)
    objs = list(range(0, 100, 4))

    def node() -> int:
        return int(rng.integers(100, n))

    return ConstraintSet.from_lists(
        n, obj_size={o: 4 for o in objs},
        addr=[(node(), int(rng.choice(objs))) for _ in range(60)],
        copy=[(node(), node()) for _ in range(300)],
        gep=[(node(), node(), int(rng.integers(1, 4))) for _ in range(60)],
        load=[(node(), node()) for _ in range(120)],
        store=[(node(), node()) for _ in range(120)])


def test_caches_and_set_table_grow_with_their_claims():
    # every cache starts at two slots and the set table at four ids: each grows with what the
    # rounds claim (Round.fit), never past its largest size; the solution is the reference's
    from unittest.mock import patch

    from andersen_gpu.backends.gpu import sets
    cs = _busy_set()
    with patch.object(sets, "MIN_SETS", 4), patch.object(sets, "MIN_CACHE_SLOTS", 2), \
            patch.object(sets, "START_SHARE", 1 << 30):
        got = gpu_solve(cs)
    assert got == reference.solve(cs), got.diff_report(reference.solve(cs), labels=("gpu", "reference"))
    notes = got.stats.notes
    slots = notes["table_slots"]
    assert slots["set_ids"] > 4
    for name in ("update", "shift", "image", "elements", "stores"):
        assert slots[name] > 2, (name, slots)
    assert slots["update"] <= sets.pow2_at_least(4 * notes["representatives"], 2)
    assert slots["stores"] <= sets.pow2_at_least(4 * int(cs.store_dst.size), 2)


@pytest.mark.parametrize("base", [0, 31, 32, 33, 958, 959, 960, 961, 1023, 1024, 1025, 1919, 1920])
def test_element_and_word_boundaries(base):
    # objects straddling 32-bit words and 960-bit elements; geps crossing them
    n = base + 2100
    sizes = {base: 5, base + 3: 2, base + 1000: 1100}
    cs = ConstraintSet.from_lists(
        n, obj_size=sizes,
        addr=[(n - 1, base), (n - 1, base + 3), (n - 2, base + 1000), (n - 3, n - 2)],
        copy=[(n - 4, n - 1), (n - 5, n - 4), (n - 1, n - 5)],           # a copy cycle
        gep=[(n - 6, n - 1, 1), (n - 7, n - 1, 4), (n - 8, n - 2, 961), (n - 9, n - 2, 1099),
             (n - 10, n - 2, 1100)],                                    # the last is past the size
        store=[(n - 3, n - 6)], load=[(n - 11, n - 3), (n - 12, n - 8)])
    assert_same(cs)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 31, 32, 33, 1000, 1024, 1025, 4095, 4096, 4097, 8192, 8193,
                               3 * 4096 + 5, 100_000, 1 << 19, (1 << 19) + 1])
@pytest.mark.parametrize("spread", ["wide", "few"])
def test_sort_keys_small_and_large(n, spread):
    # the one-block bitonic sort up to 4,096 keys, chunks and merge passes up to 2^19, CuPy's
    # beyond; repeats (within and across the merged runs: "few" draws from 7 values), the
    # all-ones key (the padding value), and a prefix of a larger buffer whose tail must stay
    # untouched
    import cupy
    from andersen_gpu.backends.gpu.sort import sort_keys
    rng = np.random.default_rng(n)
    high = 2**63 if spread == "wide" else 7
    host = rng.integers(0, high, n + 50, dtype=np.uint64) * np.uint64(2)
    host[: n // 3] = host[n // 3: 2 * (n // 3)]
    if n:
        host[n // 2] = np.uint64(2**64 - 1)
    buf = cupy.asarray(host)
    sort_keys(buf[:n])
    got = buf.get()
    assert np.array_equal(got[:n], np.sort(host[:n]))
    assert np.array_equal(got[n:], host[n:])


@pytest.mark.parametrize("cap", [0, 1, 2, 33, 4096, 4097, 3 * 4096 + 5, 100_000])
def test_sort_counted_sorts_the_counted_prefix(cap):
    # the count is read on the device: none, one, a part of one block's chunk, of several chunks
    # (merge passes), all of the capacity, and a count past it (the capacity is sorted)
    import cupy
    from andersen_gpu.backends.gpu.sort import sort_counted
    rng = np.random.default_rng(cap)
    for count in sorted({0, 1, cap // 3, max(cap - 1, 0), cap, cap + 5}):
        host = rng.integers(0, 2**63, cap + 50, dtype=np.uint64)
        buf = cupy.asarray(host)
        sort_counted(buf[:cap], cupy.asarray(np.array([count], np.uint64)))
        got = buf.get()
        k = min(count, cap)
        assert np.array_equal(got[:k], np.sort(host[:k])), (cap, count)
        assert np.array_equal(got[cap:], host[cap:])    # past the capacity: untouched


def test_sort_counted_refuses_more_than_the_merge_sort_holds():
    import cupy
    from andersen_gpu.backends.gpu.sort import MERGE_SORT_MAX, sort_counted
    with pytest.raises(ValueError, match="capacity"):
        sort_counted(cupy.zeros(MERGE_SORT_MAX + 1, cupy.uint64), cupy.zeros(1, cupy.uint64))


def _stores_that_expand() -> ConstraintSet:
    """Stores whose pointer sets hold several objects, each written again over rounds."""
    n = 50
    addr = [(i, 20 + i) for i in range(10)] + [(10 + i, 30 + i) for i in range(10)]
    copy = [(i + 1, i) for i in range(9)] + [(11 + i, 10 + i) for i in range(9)]
    store = [(9, 19), (5, 12), (3, 17)]
    load = [(40, 20), (41, 25)]
    return ConstraintSet.from_lists(n, addr=addr, copy=copy, store=store, load=load)


def _forced_rooms(ge: int, expand: int):
    """The speculative rounds' rooms set to ``ge`` and ``expand`` after every round (Round.fit)."""
    from unittest.mock import patch

    from andersen_gpu.backends.gpu import rounds
    real_fit = rounds.Round.fit

    def fit(self, c):
        real_fit(self, c)
        self.ge_room, self.expand_room = ge, expand
    return patch.object(rounds.Round, "fit", fit)


def test_speculative_rounds_missed_and_read():
    # no room for the stores' pairs: every round whose stores expand misses and runs again reading
    # its counts; the others speculate. Then no round speculates. Both the reference's solution.
    from unittest.mock import patch

    from andersen_gpu.backends.gpu import rounds
    cs = _stores_that_expand()
    want = reference.solve(cs)
    with patch.object(rounds, "ROOM_MIN", 0), patch.object(rounds, "ROOM_GROWTH", 0):
        got = gpu_solve(cs, preprocess=False)
    assert got == want, got.diff_report(want, labels=("gpu", "reference"))
    notes = got.stats.notes
    assert notes["speculation_misses"] > 0 and notes["speculative_rounds"] > 0
    # room for the stores' element pairs but none for their expansions: C runs out in expand_elems
    with _forced_rooms(1 << 16, 0):
        got = gpu_solve(cs, preprocess=False)
    assert got == want, got.diff_report(want, labels=("gpu", "reference"))
    assert got.stats.notes["speculation_misses"] > 0
    with patch.object(rounds, "SPECULATE_MAX", 0):
        got = gpu_solve(cs, preprocess=False)
    assert got == want, got.diff_report(want, labels=("gpu", "reference"))
    assert got.stats.notes["speculative_rounds"] == 0 and got.stats.notes["speculation_misses"] == 0
    got = gpu_solve(cs, preprocess=False)
    assert got == want and got.stats.notes["speculative_rounds"] == got.stats.iterations


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=120, max_constraints=200, with_i2p=True, with_merges=True))
def test_random_sets_speculation_missed_or_off(cs):
    # the rounds without room for the stores' pairs (each that expands misses and runs again), and
    # with no round speculative (the two synchronisations of a large round)
    from unittest.mock import patch

    from andersen_gpu.backends.gpu import rounds
    with patch.object(rounds, "ROOM_MIN", 0), patch.object(rounds, "ROOM_GROWTH", 0):
        assert_same(cs)
        assert_same(cs, capacity=1)
    # rooms apart: none for the expansions only, and a little of each (some rounds fit, some miss)
    for ge, expand in ((1 << 16, 0), (2, 3)):
        with _forced_rooms(ge, expand):
            assert_same(cs)
    with patch.object(rounds, "SPECULATE_MAX", 0):
        assert_same(cs)


def test_fill_many_sets_each_region_and_nothing_else():
    """fill_many: eleven regions (two launches of fill_words, one of 3), one empty, one past
    FILL_KERNEL_MAX_BYTES (a memset), uint32 and uint64 views into one buffer, bytes 0 and 0xFF:
    every region gets its value, the words between and after them keep theirs."""
    import cupy
    from andersen_gpu.backends.gpu import device
    big = device.FILL_KERNEL_MAX_BYTES // 4 + 3
    buf = cupy.arange(2 * big + 4000, dtype=cupy.uint32)
    u64 = buf[big + 1000:big + 3000].view(cupy.uint64)
    regions = [(buf[:big], 0xFF), (buf[big + 5:big + 5], 0xFF), (u64[100:300], 0)]
    spans = [(0, big, 0xFFFFFFFF), (big + 1000 + 200, big + 1000 + 600, 0)]
    for k in range(9):   # eight more small regions of 1 to 65 words, alternating values
        lo = big + 3100 + 100 * k
        regions.append((buf[lo:lo + 1 + 8 * k], 0xFF if k % 2 else 0))
        spans.append((lo, lo + 1 + 8 * k, 0xFFFFFFFF if k % 2 else 0))
    want = np.arange(int(buf.size), dtype=np.uint32)
    for lo, hi, v in spans:
        want[lo:hi] = v
    device.fill_many(regions)
    assert np.array_equal(buf.get(), want)


def cycle_pass_every_round():
    """A context in which the online cycle collapse runs after every round from the first."""
    from contextlib import ExitStack
    from unittest.mock import patch

    from andersen_gpu.backends.gpu import cycles
    stack = ExitStack()
    stack.enter_context(patch.object(cycles, "FIRST_ROUND", 1))
    stack.enter_context(patch.object(cycles, "MIN_ROUNDS_MS", 0.0))
    stack.enter_context(patch.object(cycles, "RATIO", 0.0))
    return stack


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=60, max_constraints=160, with_i2p=True, with_merges=True))
def test_random_sets_cycle_pass_every_round(cs):
    # a pass after every round merges each cycle as soon as the sets close it; the solution is
    # the reference's whatever the pool, numbering or offline collapse
    from unittest.mock import patch

    from andersen_gpu.backends.gpu import sets
    with cycle_pass_every_round():
        assert_same(cs)
        assert_same(cs, capacity=1, compact_fill=0.01)
        assert_same(cs, pointee_order=False, preprocess=False)
        # a pass's unions run out of set ids and intern slots too (SetStore.make_room)
        with patch.object(sets, "MIN_SETS", 4), patch.object(sets, "MIN_CACHE_SLOTS", 2):
            assert_same(cs, capacity=1)


def test_long_walks_cross_elements():
    # walks of 64 to 100 slots cross the kernel's 960-bit elements' words; a +1 cycle over 101 slots
    from tests.strategies import long_walk_set

    cs, expected = long_walk_set()
    for options in ({}, {"pointee_order": False, "preprocess": False}):
        sol = gpu_solve(cs, **options)
        assert {v: sol.points_to(v).tolist() for v in expected} == expected
        assert sol == reference.solve(cs)


def test_cycle_policy_puts_off_a_pass_whose_graph_grew():
    # the cost of the next pass is predicted from the last one's per graph edge: a graph twice as
    # large as the rounds since then can pay for (at RATIO) waits for more rounds
    from andersen_gpu.backends.gpu.cycles import RATIO, CyclePolicy

    p = CyclePolicy()
    assert p.affordable(10 ** 12)          # no pass yet: nothing to predict from
    p.ran(dict(merged=100, edges=1_000_000, graph_ms=1.0, trim_ms=1.0, scc_ms=8.0, merge_ms=2.0, ms=12.0),
          representatives=1000)
    assert abs(p.ns_per_edge - 10.0) < 1e-9
    p.due(10, RATIO * 10.0)                # rounds worth RATIO passes of 10 ms since the last one
    assert p.affordable(1_000_000)         # predicted 10 ms
    assert not p.affordable(2_000_000)     # predicted 20 ms
    assert p.skipped == 1


def test_load_store_cycle_is_merged():
    # p = &o, x = &t, *p = x, y = *p, x = y, and a chain w_i = w_(i-1) hung off y: the store and
    # the load close the cycle x -> o -> y -> x only once P(p) = {o}, which the offline
    # collapse cannot see; a pass merges o, x and y (two merges) and the answer is unchanged
    o, t, p, x, y = range(5)
    chain = [(5, y)] + [(5 + i, 4 + i) for i in range(1, 12)]
    cs = ConstraintSet.from_lists(17, obj_size={o: 1, t: 1}, addr=[(p, o), (x, t)],
                                  store=[(p, x)], load=[(y, p)], copy=[(x, y)] + chain)
    want = reference.solve(cs)
    assert want.points_to(y).tolist() == [t] and want.points_to(o).tolist() == [t]
    with cycle_pass_every_round():
        got = gpu_solve(cs, preprocess=False)
    assert got == want, got.diff_report(want, labels=("gpu", "reference"))
    assert got.stats.notes["cycle_merges"] == 2 and got.stats.notes["cycle_passes"] >= 1
    off = gpu_solve(cs, preprocess=False, online_cycles=False)
    assert off == want and off.stats.notes["cycle_merges"] == 0


def test_int_to_pointer_loads_and_stores_do_nothing():
    cs = ConstraintSet.from_lists(8, obj_size={1: 1, 2: 1, 3: 1}, int_to_pointer=1,
                                  addr=[(4, 1), (4, 2), (5, 3), (1, 3)],
                                  store=[(4, 5)], load=[(6, 4)])
    got = gpu_solve(cs)
    assert got == reference.solve(cs)
    assert got.points_to(2).tolist() == [3]      # *4 = 5 reached object 2 ...
    assert got.points_to(1).tolist() == [3]      # ... but not the i2p object beyond its own addr
    assert got.points_to(6).tolist() == [3]      # x = *4 reads 2 only


def test_store_and_successor_pairs_of_one_round_stay_apart():
    # found by hypothesis on the H200 (issue 3, 2026-11-30): in a round emitting one store
    # pair and one successor pair before any pair buffer had grown, both went to one array
    assert_same(ConstraintSet.from_lists(5, addr=[(0, 0)] * 15 + [(1, 4)], copy=[(1, 4)],
                                         store=[(1, 0)], gep=[(0, 0, 0), (0, 0, 0)]))
    sizes = {0: 1, 1: 1, 2: 1, 3: 1, 4: 4, 6: 1, 7: 1}
    assert_same(ConstraintSet.from_lists(23, obj_size=sizes, addr=[(0, 1)] + [(2, 0)] * 4,
                                         copy=[(0, 0)] * 3 + [(1, 0), (3, 0)] + [(0, 0)] * 3,
                                         load=[(0, 1), (2, 1), (0, 1), (0, 0), (0, 1), (0, 1), (0, 1)],
                                         store=[(0, 0), (0, 0), (0, 0), (1, 2), (0, 0)]))


def test_heavy_gep_chunks_cover_every_edge_after_the_first_chunk():
    # rows of 16, 1, 33, 0 and 33 gep edges: rows of more than GEP_CHUNK = 16 edges get one item
    # per further chunk, at the chunk's first edge
    import cupy

    from andersen_gpu.backends.gpu.graph import GEP_CHUNK, heavy_gep_chunks

    assert GEP_CHUNK == 16
    g_ptr = cupy.asarray(np.array([0, 16, 17, 50, 50, 83], np.uint32))
    got = cupy.asnumpy(heavy_gep_chunks(g_ptr, 5)).tolist()
    assert got == [2 << 32 | 33, 2 << 32 | 49, 4 << 32 | 66, 4 << 32 | 82]
    assert cupy.asnumpy(heavy_gep_chunks(g_ptr[:3], 2)).size == 0


def test_node_with_many_geps_pushes_every_offset_each_round():
    # y = &o0, then o1 and o2 arrive two and five rounds later down copy chains; x_i = y + i for 50
    # offsets (four chunks: the node's own item and three heavy ones, each run in every round y
    # changes): P(x_i) = {o0 + i, o1 + i, o2 + i}
    size, k = 64, 50
    y, xs = 3 * size, 3 * size + 1
    a, b = xs + k, xs + k + 2
    chain1 = [(a + 1, a), (y, a + 1)]
    chain2 = [(b + j + 1, b + j) for j in range(4)] + [(y, b + 4)]
    cs = ConstraintSet.from_lists(b + 5, obj_size={0: size, size: size, 2 * size: size},
                                  addr=[(y, 0), (a, size), (b, 2 * size)], copy=chain1 + chain2,
                                  gep=[(xs + i, y, i) for i in range(k)])
    want = reference.solve(cs)
    for i in (0, 1, 15, 16, 17, 31, 32, 48, 49):
        assert want.points_to(xs + i).tolist() == [i, size + i, 2 * size + i]
    for options in ({}, {"preprocess": False, "pointee_order": False}, {"capacity": 1}):
        got = gpu_solve(cs, **options)
        assert got == want, got.diff_report(want, labels=(f"gpu {options}", "reference"))


@st.composite
def _fan_out_sets(draw):
    # a random set plus one pointer with 17 to 60 gep edges (more than emit's GEP_CHUNK = 16, so
    # that heavy items push most of them), to random targets at random offsets
    import dataclasses

    cs = draw(constraint_sets(max_nodes=60, max_constraints=80, with_merges=True))
    n = cs.n_nodes
    src = draw(st.integers(0, n - 1))
    k = draw(st.integers(17, 60))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k))
    off = draw(st.lists(st.integers(0, min(5, n - 1)), min_size=k, max_size=k))   # offsets < n
    more = {"gep_src": [src] * k, "gep_dst": dst, "gep_offset": off}
    return dataclasses.replace(cs, **{c: np.concatenate([getattr(cs, c), np.asarray(v, np.int32)])
                                      for c, v in more.items()})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_fan_out_sets())
def test_random_gep_fan_out_matches_reference(cs):
    assert_same(cs)
    assert_same(cs, pointee_order=False, preprocess=False, capacity=1)


def test_long_run_of_one_target():
    # b_i = a_i = &o_(i//2) and x = b_i for 3,000 i: in round 2 x receives 3,000 deltas at once
    # (pairs of equal sets: 1,500 distinct sids), one run of the union kernel
    k = 3000
    a, b, x = k, 2 * k, 3 * k
    addr = [(a + i, i // 2) for i in range(k)] + [(x, 5)]
    copy = ([(b + i, a + i) for i in range(k)] + [(x, b + i) for i in range(k)]
            + [(x + 1, b + i) for i in range(100)] + [(x + 2, b + i) for i in range(0, k, 7)])
    cs = ConstraintSet.from_lists(3 * k + 3, obj_size={j: 1 for j in range(k)}, addr=addr, copy=copy)
    want = reference.solve(cs)
    assert want.points_to(x).tolist() == list(range(k // 2))
    for capacity in (None, 1):
        got = gpu_solve(cs, preprocess=False, capacity=capacity, trace=True)
        assert got == want, got.diff_report(want, labels=(f"gpu capacity={capacity}", "reference"))
        assert max(r["pairs_bound"] for r in got.stats.notes["trace"]) >= k


def test_images_of_sets_that_share_an_element():
    # k load pointers p_i -> {o_0..o_9, q_i}: their sets differ (q_i, one element each, 960 ids
    # apart) and share the element of o_0..o_9, so the warps imaging them in one round look up
    # that element's part at once: one claims it, the others find it pending and wait for it
    # (image()'s lanes publish their own claims before waiting). The copies p_i -> p_(i-1) bring
    # Ldelta images in the rounds after. o_j -> {a_j, b_j}, q_i -> {c_(i % 10)}.
    k = 64
    objs = 960 * (k + 1)
    p = objs
    addr = [(j, 20 + j) for j in range(10)] + [(j, 40 + j) for j in range(10)]
    load, copy = [], []
    for i in range(k):
        q = 960 * (1 + i)
        addr += [(p + 2 * i, j) for j in range(10)] + [(p + 2 * i, q), (q, 30 + i % 10)]
        load.append((p + 2 * i + 1, p + 2 * i))
        if i:
            copy.append((p + 2 * i, p + 2 * (i - 1)))
    sizes = {j: 1 for j in range(60)} | {960 * (1 + i): 1 for i in range(k)}
    cs = ConstraintSet.from_lists(objs + 2 * k, obj_size=sizes, addr=addr, load=load, copy=copy)
    want = reference.solve(cs)
    assert want.points_to(p + 1).tolist() == sorted(list(range(20, 30)) + list(range(40, 50)) + [30])
    for capacity in (None, 1):   # capacity 1: rounds given up midway, their claims published as aborted
        got = gpu_solve(cs, preprocess=False, pointee_order=False, capacity=capacity)
        assert got == want, got.diff_report(want, labels=(f"gpu capacity={capacity}", "reference"))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=80, max_constraints=160, with_i2p=True, with_merges=True))
def test_random_sets_every_image_in_chunks(cs):
    # every image's parts listed as chunk items first (IMAGE_CHUNK_MIN 1), with a buffer of 3
    # chunks (most rounds list more), then chunks of 3 elements and a one-element pool (rounds
    # given up midway)
    from unittest.mock import patch

    from andersen_gpu.backends.gpu import rounds
    with patch.object(rounds, "IMAGE_CHUNK_MIN", 1), patch.object(rounds, "IMAGE_CHUNK_CAP", 3):
        assert_same(cs)
        with patch.object(rounds, "IMAGE_CHUNK_ELEMS", 3):
            assert_same(cs, pointee_order=False, preprocess=False, capacity=1)


def _large_images(k: int = 100, chain: int = 5) -> ConstraintSet:
    """x = *y with y -> {o_0..o_(k-1)}, the o_i 960 ids apart (a set of k elements, imaged by
    Lfull in round 1), o_i -> {a_i}, and o_i = h_chain, a copy chain from h_0 -> {b} that reaches
    every o_i `chain` rounds later (then Ldelta images of y's old set of k elements)."""
    o, a = 0, 1                      # o_i = 960 i, a_i = 960 i + 1
    h = 960 * k                      # h_0 .. h_chain, then b, y, x
    b, y, x = h + chain + 1, h + chain + 2, h + chain + 3
    addr = [(y, 960 * i + o) for i in range(k)] + [(960 * i + o, 960 * i + a) for i in range(k)] + [(h, b)]
    copy = [(h + j + 1, h + j) for j in range(chain)] + [(960 * i + o, h + chain) for i in range(k)]
    sizes = {960 * i + d: 1 for i in range(k) for d in (o, a)} | {b: 1}
    return ConstraintSet.from_lists(x + 1, obj_size=sizes, addr=addr, copy=copy, load=[(x, y)])


@pytest.mark.parametrize("least, cap, elems", [(None, None, None), (10**9, None, None), (1, None, None), (1, 2, None),
                                               (1, None, 1), (2, None, 7)])
def test_large_images_in_chunks(monkeypatch, least, cap, elems):
    # None: the defaults (y's 100-element set is imaged by Lfull, then by Ldelta, each time in
    # chunks first); 10**9: no chunks (the imaging warp computes every part); 1: every image in
    # chunks; cap 2: more chunks than the buffer holds (the imaging warp computes the rest);
    # elems: chunks of 1 and of 7 elements (the last chunk of y's set then has 2)
    from andersen_gpu.backends.gpu import rounds
    if least is not None:
        monkeypatch.setattr(rounds, "IMAGE_CHUNK_MIN", least)
    if cap is not None:
        monkeypatch.setattr(rounds, "IMAGE_CHUNK_CAP", cap)
    if elems is not None:
        monkeypatch.setattr(rounds, "IMAGE_CHUNK_ELEMS", elems)
    cs = _large_images()
    want = reference.solve(cs)
    assert len(want.points_to(960 * 100 + 5 + 3)) == 101
    for capacity in (None, 1):   # capacity 1: rounds given up midway, chunk claims published as aborted
        got = gpu_solve(cs, preprocess=False, pointee_order=False, capacity=capacity)
        assert got == want, got.diff_report(want, labels=(f"gpu least={least} cap={cap} elems={elems} capacity={capacity}",
                                                          "reference"))
        listed = got.stats.notes["image_chunks"]
        assert listed == 0 if least == 10**9 else listed >= 2 * -(-100 // (elems or rounds.IMAGE_CHUNK_ELEMS)), listed


def test_equal_sets_are_stored_once():
    # 2,000 pointers copy one set of 500 objects: one list of 500 ids (a single 960-bit element
    # once ordered), not 2,000 copies; and they all receive the same contribution, so the
    # unions are memoized
    k, m = 2000, 500
    src = m + k
    addr = [(src, j) for j in range(m)]
    copy = [(m + i, src) for i in range(k)]
    cs = ConstraintSet.from_lists(src + 1, obj_size={j: 1 for j in range(m)}, addr=addr, copy=copy)
    got = gpu_solve(cs, preprocess=False)
    assert got == reference.solve(cs)
    notes = got.stats.notes
    assert notes["distinct_sets"] == 2            # the empty set and the shared one
    assert notes["final_edges"] == (k + 1) * m
    assert notes["pool_elements_used"] < 64       # not one list per pointer
    assert notes["memo_hits"] >= k - 1            # (P = ∅, N = the set): computed once


def test_unknown_option_is_refused():
    cs = ConstraintSet.from_lists(2, addr=[(0, 1)])
    with pytest.raises(TypeError, match="copy_chunk"):
        gpu_solve(cs, copy_chunk=32)
    with pytest.raises(ValueError, match="compact_fill"):
        gpu_solve(cs, compact_fill=0)


def test_empty_and_trivial_inputs():
    assert_same(ConstraintSet.from_lists(1))
    assert_same(ConstraintSet.from_lists(5, copy=[(0, 1), (1, 0), (2, 2)]))


def test_stats_are_filled():
    cs = ConstraintSet.from_lists(6, obj_size={0: 1, 1: 1}, addr=[(2, 0), (3, 1)], copy=[(4, 2), (4, 3)],
                                  store=[(2, 3)], load=[(5, 2)])
    assert gpu_solve(cs).stats.kernel_ms == {}   # CUDA events only when asked for
    st = gpu_solve(cs, timing=True).stats
    assert st.backend == "gpu" and st.iterations >= 1 and st.solve_ms > 0
    assert {"emit", "union", "commit"} <= set(st.kernel_ms)
    assert st.pool_bytes > 0 and st.peak_device_bytes > 0
    assert st.notes["final_edges"] == 1 + 1 + 2 + 1 + 1  # 2,3,4(x2),0→{1},5→{1}
    assert st.notes["distinct_sets"] == 4                 # ∅, {0}, {1}, {0, 1}
    assert st.notes["bytes_per_fact"] == round(st.peak_device_bytes / 6, 4)


def test_trace_has_one_entry_per_round():
    cs = ConstraintSet.from_lists(6, obj_size={0: 1, 1: 1}, addr=[(2, 0), (3, 1)], copy=[(4, 2), (4, 3)],
                                  store=[(2, 3)], load=[(5, 2)])
    got = gpu_solve(cs, trace=True, timing=True)
    assert got == reference.solve(cs)
    trace = got.stats.notes["trace"]
    assert len(trace) == got.stats.iterations
    assert all(r["changed"] > 0 for r in trace)
    # with timing, each round's kernels are timed, and the rounds add up to no more than the
    # solve's totals (which also hold the initial sets' kernels)
    assert all(r["kernel_ms"] and "emit" in r["kernel_ms"] for r in trace)
    per_round = sum(sum(r["kernel_ms"].values()) for r in trace)
    assert per_round <= sum(got.stats.kernel_ms.values()) + 1e-3 * len(trace)


def _dump(name: str):
    if emulator_requested() and name in TOO_BIG_TO_EMULATE:
        pytest.skip(f"{name}: minutes a solve on the SIMT emulator")
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.gpu_paper_inputs import load_dump
    path, ref = DUMPS / f"{name}.npz", DUMPS / f"{name}_soln.npz"
    if not path.is_file():
        pytest.skip(f"no dump {path} (make it with bench/gpu_paper_inputs.py dump)")
    return load_dump(path), (Solution.load(ref) if ref.is_file() else None)


@pytest.mark.slow
@pytest.mark.parametrize("options", [dict(), dict(pointee_order=False), dict(preprocess=False),
                                     dict(capacity=1 << 12, compact_fill=0.25)],
                         ids=["defaults", "no_pointee_order", "no_preprocess", "small_pool"])
@pytest.mark.parametrize("name", ["ex", "gcc", "perl", "vim"])
def test_paper_reference_solutions(name, options):
    cs, ref = _dump(name)
    if ref is None:
        pytest.skip("no reference solution")
    got = gpu_solve(cs, **options)
    assert got == ref, got.diff_report(ref, labels=("gpu", "reference file"))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["linux", "pine", "gimp"])  # the most nodes
def test_deterministic_on_largest_inputs(name):
    cs, _ = _dump(name)
    first = gpu_solve(cs)
    for _ in range(4):
        again = gpu_solve(cs)
        assert again == first, again.diff_report(first, labels=("run", "first run"))
    assert first.stats.notes["final_edges"] == first.n_edges


def test_field_insensitive_pairs_are_counted():
    # y holds a field-insensitive z and a two-slot object; 3000 geps x = y + 1 each push two
    # pairs (a + 1 and z). The round's pair buffer is sized for both, so no round runs twice.
    k, n0 = 3000, 4
    cs = ConstraintSet.from_lists(n0 + k, obj_size={1: 1, 2: 2, 3: 1}, addr=[(0, 1), (0, 2)],
                                  gep=[(n0 + i, 0, 1) for i in range(k)], field_insensitive=[1])
    sol = gpu_solve(cs, preprocess=False)
    assert sol == reference.solve(cs)
    assert sorted(sol.points_to(n0 + k - 1).tolist()) == [1, 3]
    assert sol.stats.notes["round_retries"] == 0


def test_profile_counters_name_the_longest_emit_item():
    # ANDERSEN_GPU_PROFILE=1 (read at import: a process of its own) compiles the kernels with their
    # cycle counters; the longest single item of emit is at most all of emit's items together
    import json
    import os
    import subprocess
    import sys

    from tests import emu

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, ANDERSEN_GPU_PROFILE="1", PYTHONPATH=str(root))
    if emu.active():   # (tests/test_gpu_emulated.py runs this in a process with the emulator installed)
        env[emu.ENV] = "1"
    script = ("from tests.emu import requested, install\n"
              "if requested():\n    install()\n"
              "import json, andersen_gpu\nfrom andersen_gpu import warmup\n"
              "sol = andersen_gpu.solve(warmup.gpu_sample_set(values=1500, seed=2), backend='gpu')\n"
              "print(json.dumps(sol.stats.notes['profile']))\n")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=root, timeout=1800,
                         env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    prof = json.loads(res.stdout.strip().splitlines()[-1])
    assert 0 < prof["emit_item_max_cycles"] <= prof["emit_changed_cycles"] + prof["emit_loads_cycles"]
    # the longest item's kind rides on its cycles; each part's longest is inside an item, and an
    # image's parts inside an image, which is inside a load's Lfull or Ldelta
    longest = prof["emit_item_max_cycles"]
    assert prof["item_max_cycles_x4_plus_kind"] >> 2 == longest
    for part in ("copy", "geps", "lfull", "stores", "ldelta", "elem_image"):   # (a part: in an image or a chunk)
        assert prof[f"max_{part}_cycles"] <= longest, part
    assert 0 < prof["max_image_cycles"] <= max(prof["max_lfull_cycles"], prof["max_ldelta_cycles"])
    for part in ("image_wait", "image_parts", "image_finish"):
        assert prof[f"max_{part}_cycles"] <= prof["max_image_cycles"], part
    assert prof["max_shift_cycles"] <= prof["max_geps_cycles"]
    assert 0 < prof["max_image_computed"] <= prof["max_image_elems"] and prof["max_elem_sids"] > 0
    assert prof["images_full"] > 0 and prof["elem_images"] > 0
    # the longest warps of the run kernels (the stores' expansions: at most all of their warps together)
    assert prof["union_warp_max_cycles"] > 0 and prof["store_warp_max_cycles"] > 0
    assert 0 < prof["expand_warp_max_cycles"] <= prof["expand_cycles"]
