"""The GPU backend, kernels included, on the SIMT emulator (tests/emu) against the reference
backend: CI's cover of the kernels' logic on machines without a GPU.

The cases are those of tests/test_gpu_backend.py (its test bodies, called here inside
``emulated()``), the hypothesis ones with fewer examples; the kernels of kernels_cu/ run
unchanged on the CPU (built with g++ on first use and cached). The whole GPU test file runs on
the emulator too: ``ANDERSEN_GPU_EMULATOR=1 python3 -m pytest -m gpu tests/test_gpu_backend.py``.
"""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings

import tests.test_gpu_backend as on_gpu
from andersen_gpu.backends import reference
from constraints.model import ConstraintSet
from tests.emu import emulated
from tests.strategies import constraint_sets

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the emulated kernels")]


@pytest.fixture(scope="module")
def gpu():
    with emulated():
        from andersen_gpu.backends import gpu as backend
        yield backend


def _emulated(name: str, strategy, examples: int):
    """test_gpu_backend.py's hypothesis test ``name`` (its body, over ``strategy``, which must
    be the one it draws from) with ``examples`` examples, on the emulator."""
    body = getattr(on_gpu, name).hypothesis.inner_test

    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cs=strategy)
    def test(gpu, cs):
        body(cs)
    test.__name__ = name
    return test


small = constraint_sets(max_nodes=40, max_constraints=80)
merged = constraint_sets(max_nodes=60, max_constraints=120, with_i2p=True, with_merges=True)
test_random_sets_match_reference = _emulated("test_random_sets_match_reference", constraint_sets(), 40)
test_random_sets_with_set_classes = _emulated("test_random_sets_with_set_classes", small, 10)
test_random_sets_with_insert_records = _emulated(
    "test_random_sets_with_insert_records",
    constraint_sets(max_nodes=2500, max_constraints=200, with_i2p=True, with_merges=True), 10)
test_random_sets_pool_growth_and_no_ptr_eq = _emulated("test_random_sets_pool_growth_and_no_ptr_eq", merged, 10)
test_random_sets_pool_growth_through_host = _emulated("test_random_sets_pool_growth_through_host", merged, 10)
test_random_sets_with_online_cycles = _emulated(
    "test_random_sets_with_online_cycles",
    constraint_sets(max_nodes=40, max_constraints=80, with_i2p=None, with_merges=None), 10)
test_random_sets_with_online_hcd = _emulated("test_random_sets_with_online_hcd", small, 8)
test_random_sets_through_work_lists = _emulated("test_random_sets_through_work_lists", merged, 10)


@pytest.mark.parametrize("base", [0, 959, 1919])
def test_element_and_word_boundaries(gpu, base):
    on_gpu.test_element_and_word_boundaries(base)


@pytest.mark.parametrize("case", ["test_int_to_pointer_loads_and_stores_do_nothing",
                                  "test_store_and_successor_pairs_of_one_round_stay_apart",
                                  "test_long_runs_of_one_target_cut_into_chunks",
                                  "test_empty_and_trivial_inputs", "test_stats_are_filled",
                                  "test_trace_has_one_entry_per_round"])
def test_hand_made_cases(gpu, case):
    getattr(on_gpu, case)()


@pytest.mark.parametrize("n", [0, 33, 4097, 3 * 4096 + 5])
def test_sort_keys(gpu, n):
    on_gpu.test_sort_keys_small_and_large(n, "few")


def test_the_device_is_the_emulator(gpu):
    cs = ConstraintSet.from_lists(3, obj_size={2: 1}, addr=[(0, 2)], copy=[(1, 0)])
    got = gpu.solve(cs)
    assert got.stats.device == "SIMT emulator" and got.points_to(1).tolist() == [2]


# Deliberate breakages of rules.cu, each of which the emulator must turn into a wrong answer:
# an off-by-one lane bound (the Load rule drops the last source of every 32), and a missing
# __syncwarp between the lanes' atomicOr into shared memory and their reads of it (gep_union:
# lane 2 reads a word that lane 29's bit moves into, across an element boundary, before
# lane 29 has run)
BREAKAGES = {
    "load_lane_bound": ("u32 src = j + lane < end ? h.D[l_src[j + lane]] : NIL;",
                        "u32 src = j + lane + 1 < end ? h.D[l_src[j + lane]] : NIL;"),
    "gep_missing_syncwarp": ("        __syncwarp();\n        u32 b0 = bits_lane(lane) ? sh[lane] : 0u;",
                             "        u32 b0 = bits_lane(lane) ? sh[lane] : 0u;"),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_kernel_is_caught(gpu, monkeypatch, breakage):
    import cupy
    import kernels_cu
    monkeypatch.delenv("ANDERSEN_GPU_EMULATOR_SEED", raising=False)   # the round-robin schedule
    original = kernels_cu.source
    old, new = BREAKAGES[breakage]
    text = original("rules.cu")
    assert text.count(old) == 1
    broken = text.replace(old, new)
    # o (ids 900..1099) = &t, p = &o, x = *p, y = p + 100 (id 1000: the next 960-bit element)
    cs = ConstraintSet.from_lists(1200, obj_size={900: 200, 5: 1}, addr=[(1100, 900), (900, 5)],
                                  load=[(1101, 1100)], gep=[(1102, 1100, 100)])
    want = reference.solve(cs)
    assert want.points_to(1101).tolist() == [5] and want.points_to(1102).tolist() == [1000]
    assert gpu.solve(cs, preprocess=False, pointee_order=False) == want
    monkeypatch.setattr(kernels_cu, "source", lambda name: broken if name == "rules.cu" else original(name))
    cupy.clear_memo()   # the compiled modules are memoized
    try:
        got = gpu.solve(cs, preprocess=False, pointee_order=False)
    finally:
        monkeypatch.setattr(kernels_cu, "source", original)
        cupy.clear_memo()
    assert got != want
