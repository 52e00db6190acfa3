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


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80))
def test_random_sets_with_set_classes(cs):
    assert_same(cs, set_classes=True, ptr_eq_min_changed=0)
    # the hash-sort classes instead of the class table
    assert_same(cs, set_classes=True, ptr_eq_min_changed=0, class_table=False)
    # every run of more than 32 active copy edges cut into chunks, with and without the
    # known-bits filter in the copy kernel
    assert_same(cs, copy_chunk=32)
    assert_same(cs, copy_chunk=32, copy_filter=True)
    # the constraint set's own numbering (no pointee order)
    assert_same(cs, pointee_order=False)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=2500, max_constraints=200, with_i2p=True, with_merges=True))
def test_random_sets_with_insert_records(cs):
    # every pair batch through pack_records + insert_records (ids past one element's 960 bits
    # among them), once with a one-element pool so that insert_records overflows and reruns
    from unittest.mock import patch

    from andersen_gpu.backends import _gpu_insert_pairs
    with patch.object(_gpu_insert_pairs, "RECORDS_MIN_PAIRS", 1), \
            patch.object(_gpu_insert_pairs, "RECORD_MIN_FILL", 0):
        assert_same(cs)
        assert_same(cs, capacity=1, set_classes=False)
        assert_same(cs, hcd=False, cycles=True, cycle_period=1)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=60, max_constraints=120, with_i2p=True, with_merges=True))
def test_random_sets_pool_growth_and_no_ptr_eq(cs):
    # a one-element pool forces every kernel through the grow-and-run-again path
    # (the update then also resumes after folding the rule kernel's lists NR into N)
    assert_same(cs, capacity=1, pointer_equivalence=False, filter_known=False)
    assert_same(cs, capacity=1, ptr_eq_min_changed=0)
    assert_same(cs, capacity=1, overlap=False)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=60, max_constraints=120, with_i2p=True, with_merges=True))
def test_random_sets_pool_growth_through_host(cs):
    # every growth copies the pool out to host memory, frees it, and copies it back: the path
    # taken when the old and the new pool do not fit on the device side by side
    from unittest import mock

    from andersen_gpu.backends import _gpu_pool
    grow = _gpu_pool.DevicePool.grow
    with mock.patch.object(_gpu_pool.DevicePool, "grow",
                           lambda self, top: grow(self, top, stage_through_host=True)):
        assert_same(cs, capacity=1, ptr_eq_min_changed=0)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80, with_i2p=None, with_merges=None))
def test_random_sets_with_online_cycles(cs):
    # a cycle scan every round; once with a one-element pool (merge_parts grows it)
    assert_same(cs, cycles=True, cycle_period=1, ptr_eq_min_changed=0)
    assert_same(cs, cycles=True, cycle_period=1, capacity=1, set_classes=False)


def with_sound_hcd(cs: ConstraintSet, rng: np.random.Generator) -> ConstraintSet:
    """``cs`` with an HCD table that is sound by construction: (p, t) wherever every pointee
    of p (but the int-to-pointer object) has the final set of t in the reference solution."""
    import dataclasses
    sol = reference.solve(cs)
    sets = [tuple(sol.points_to(v).tolist()) for v in range(cs.n_nodes)]
    by_set: dict[tuple, list[int]] = {}
    for v, s in enumerate(sets):
        by_set.setdefault(s, []).append(v)
    hp, ht = [], []
    for p in range(cs.n_nodes):
        zs = [z for z in sets[p] if z != cs.int_to_pointer]
        if zs and len({sets[z] for z in zs}) == 1:
            hp.append(p)
            ht.append(int(rng.choice(by_set[sets[zs[0]]])))
    return dataclasses.replace(cs, hcd_ptr=np.array(hp, np.int32),
                               hcd_target=np.array(ht, np.int32))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80))
def test_random_sets_with_online_hcd(cs):
    cs = with_sound_hcd(cs, np.random.default_rng(cs.n_nodes))
    assert_same(cs, hcd=True)
    assert_same(cs, hcd=True, cycles=True, cycle_period=1, capacity=1, ptr_eq_min_changed=0)
    # pairs waiting two rounds before their batch is merged; and with cycle scans in between
    assert_same(cs, hcd=True, merge_period=2)
    assert_same(cs, hcd=True, merge_period=3, cycles=True, cycle_period=2, capacity=1)
    # paced by cost: a factor of 0 (with one round's median and no minimum batch) merges
    # whenever pairs wait, a huge one never does
    from unittest.mock import patch

    from andersen_gpu.backends import _gpu_merge
    with patch.object(_gpu_merge, "AUTO_MIN_PAIRS", 1), patch.object(_gpu_merge, "AUTO_ROUNDS", 1):
        assert_same(cs, hcd="auto", merge_cost_factor=0.0)
    with patch.object(_gpu_merge, "AUTO_MIN_PAIRS", 2):
        assert_same(cs, hcd="auto", merge_cost_factor=0.0)
    assert_same(cs, hcd="auto", merge_cost_factor=1e9)
    # the pairs of the rounds before paced merging started, collected at once from P when it
    # starts (here at round 3), over a one-pair buffer that they overrun
    with patch.object(_gpu_merge, "AUTO_MIN_PAIRS", 1), patch.object(_gpu_merge, "INITIAL_PAIR_BUFFER", 1):
        assert_same(cs, hcd="auto", merge_cost_factor=0.0)
    # a one-pair buffer: every round's pairs overrun it, so it grows and emits them again
    with patch.object(_gpu_merge, "INITIAL_PAIR_BUFFER", 1):
        assert_same(cs, hcd=True, merge_period=2)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=60, max_constraints=120, with_i2p=True, with_merges=True))
def test_random_sets_through_work_lists(cs):
    # every per-node kernel walks the frontier's work list (graphs below FRONTIER_MIN_NODES
    # representatives skip it): with pool growth (the update resumed over the same list),
    # online HCD merges (the list of a smaller graph) and cycle scans
    from unittest.mock import patch

    from andersen_gpu.backends import _gpu_pool
    with patch.object(_gpu_pool, "FRONTIER_MIN_NODES", 0):
        assert_same(cs)
        assert_same(cs, capacity=1, ptr_eq_min_changed=0)
        assert_same(with_sound_hcd(cs, np.random.default_rng(cs.n_nodes)), hcd=True, capacity=1)
        assert_same(cs, cycles=True, cycle_period=1, set_classes=False)


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
    from andersen_gpu.backends._gpu_sort import sort_keys
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


def test_long_runs_of_one_target_cut_into_chunks():
    # b_i = a_i = &o_(i//2) and x = b_i for 3,000 i: in round 2 the 3,000 old edges b_i → x
    # are active at once (pairs of equal ΔP, hence equal classes, repeat), more than a chunk
    k = 3000
    a, b, x = k, 2 * k, 3 * k
    addr = [(a + i, i // 2) for i in range(k)] + [(x, 5)]
    copy = ([(b + i, a + i) for i in range(k)] + [(x, b + i) for i in range(k)]
            + [(x + 1, b + i) for i in range(100)] + [(x + 2, b + i) for i in range(0, k, 7)])
    cs = ConstraintSet.from_lists(3 * k + 3, obj_size={j: 1 for j in range(k)}, addr=addr, copy=copy)
    want = reference.solve(cs)
    assert want.points_to(x).tolist() == list(range(k // 2))
    for chunk, filt in ((32, False), (32, True), (64, False), (1024, True), (0, False), (0, True)):
        got = gpu_solve(cs, preprocess=False, hcd=False, copy_chunk=chunk, copy_filter=filt, trace=True)
        assert got == want, got.diff_report(want, labels=(f"gpu chunk={chunk} filter={filt}", "reference"))
        longest = max(r.get("active_run", [0])[0] for r in got.stats.notes["trace"])
        assert longest >= k   # the run did go through the copy kernel
    with pytest.raises(ValueError, match="copy_chunk"):
        gpu_solve(cs, copy_chunk=48)


def test_empty_and_trivial_inputs():
    assert_same(ConstraintSet.from_lists(1))
    assert_same(ConstraintSet.from_lists(5, copy=[(0, 1), (1, 0), (2, 2)]))


def test_stats_are_filled():
    cs = ConstraintSet.from_lists(6, obj_size={0: 1, 1: 1}, addr=[(2, 0), (3, 1)], copy=[(4, 2), (4, 3)],
                                  store=[(2, 3)], load=[(5, 2)])
    assert gpu_solve(cs).stats.kernel_ms == {}   # CUDA events only when asked for
    st = gpu_solve(cs, timing=True).stats
    assert st.backend == "gpu" and st.iterations >= 1 and st.solve_ms > 0
    assert {"rules", "update"} <= set(st.kernel_ms)
    assert st.pool_bytes > 0 and st.peak_device_bytes > 0
    assert st.notes["final_edges"] == 1 + 1 + 2 + 1 + 1  # 2,3,4(x2),0→{1},5→{1}


def test_trace_has_one_entry_per_round():
    cs = ConstraintSet.from_lists(6, obj_size={0: 1, 1: 1}, addr=[(2, 0), (3, 1)], copy=[(4, 2), (4, 3)],
                                  store=[(2, 3)], load=[(5, 2)])
    got = gpu_solve(cs, trace=True, timing=True)
    assert got == reference.solve(cs)
    trace = got.stats.notes["trace"]
    assert len(trace) == got.stats.iterations
    assert all(r["changed"] > 0 and "rules" in r for r in trace)


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
@pytest.mark.parametrize("options", [dict(set_classes=False), dict(), dict(device_graph=False),
                                     dict(hcd=True), dict(hcd=True, merge_period=4),
                                     dict(hcd=True, cycles=True, cycle_period=1),
                                     dict(class_table=False, ptr_eq_min_changed=0),
                                     dict(copy_chunk=32), dict(copy_chunk=0, copy_filter=True),
                                     dict(pointee_order=False), dict(overlap=False)],
                         ids=["plain", "set_classes", "host_graph", "hcd", "hcd_batched", "hcd_cycles",
                              "sort_classes", "chunk32", "no_chunks_copy_filter", "no_pointee_order",
                              "one_stream"])
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
