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


merged = constraint_sets(max_nodes=60, max_constraints=120, with_i2p=True, with_merges=True)
test_random_sets_match_reference = _emulated("test_random_sets_match_reference", constraint_sets(), 100)
test_random_sets_pool_compaction = _emulated("test_random_sets_pool_compaction", merged, 40)
test_random_sets_tiny_tables = _emulated(
    "test_random_sets_tiny_tables",
    constraint_sets(max_nodes=2500, max_constraints=200, with_i2p=True, with_merges=True), 30)


@pytest.mark.parametrize("base", [0, 959, 1919])
def test_element_and_word_boundaries(gpu, base):
    on_gpu.test_element_and_word_boundaries(base)


@pytest.mark.parametrize("case", ["test_int_to_pointer_loads_and_stores_do_nothing",
                                  "test_store_and_successor_pairs_of_one_round_stay_apart",
                                  "test_long_run_of_one_target", "test_equal_sets_are_stored_once",
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


# Deliberate breakages of emit.cu, each of which the emulator must turn into a wrong answer:
# an off-by-one lane bound (the Copy rule drops the last successor of every 32), and a missing
# __syncwarp between the lanes' atomicOr into shared memory and their reads of it (shift, the
# AddPtr rule: lane 2 reads a word that lane 29's bit moves into, across an element boundary,
# before lane 29 has run). When the kernel file changes so that one no longer applies, the case
# is skipped, naming it (the mechanisms stay covered by tests/test_emulator.py).
BREAKAGES = {
    "copy_lane_bound": ("emit.cu", "u32 x = j + lane < end ? g.c_dst[j + lane] : y;",
                        "u32 x = j + lane + 1 < end ? g.c_dst[j + lane] : y;"),
    "gep_missing_syncwarp": ("emit.cu", "        __syncwarp();\n        u32 b0 = bits_lane(lane) ? sh[lane] : 0u;",
                             "        u32 b0 = bits_lane(lane) ? sh[lane] : 0u;"),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_kernel_is_caught(gpu, monkeypatch, breakage):
    import cupy
    import kernels_cu
    monkeypatch.delenv("ANDERSEN_GPU_EMULATOR_SEED", raising=False)   # the round-robin schedule
    original = kernels_cu.source
    file, old, new = BREAKAGES[breakage]
    text = original(file)
    if text.count(old) != 1:
        pytest.skip(f"{file} changed: breakage {breakage} no longer applies (update BREAKAGES)")
    broken = text.replace(old, new)
    # o (ids 900..1099) = &t, p = &o, q = p, y = p + 100 (id 1000: the next 960-bit element)
    cs = ConstraintSet.from_lists(1200, obj_size={900: 200, 5: 1}, addr=[(1100, 900), (900, 5)],
                                  copy=[(1101, 1100)], gep=[(1102, 1100, 100)])
    want = reference.solve(cs)
    assert want.points_to(1101).tolist() == [900] and want.points_to(1102).tolist() == [1000]
    assert gpu.solve(cs, preprocess=False, pointee_order=False) == want
    monkeypatch.setattr(kernels_cu, "source", lambda name: broken if name == file else original(name))
    cupy.clear_memo()   # the compiled modules are memoized
    try:
        got = gpu.solve(cs, preprocess=False, pointee_order=False)
    finally:
        monkeypatch.setattr(kernels_cu, "source", original)
        cupy.clear_memo()
    assert got != want
