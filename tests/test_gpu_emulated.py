"""The GPU backend, kernels included, on the SIMT emulator (tests/emu) against the reference
backend: CI's cover of the kernels' logic on machines without a GPU.

The kernels of kernels_cu/ run unchanged on the CPU (built with g++ on first use and cached);
every option that picks another kernel path is switched on for some case. The full GPU test
file runs on the emulator too: ``ANDERSEN_GPU_EMULATOR=1 python3 -m pytest -m gpu
tests/test_gpu_backend.py``.
"""

from __future__ import annotations

import shutil
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

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


def same(gpu, cs: ConstraintSet, **kw) -> None:
    want = reference.solve(cs)
    got = gpu.solve(cs, **kw)
    assert got == want, got.diff_report(want, labels=(f"gpu (emulated) {kw}", "reference"))


def sound_hcd(cs: ConstraintSet) -> ConstraintSet:
    """``cs`` with an HCD table that holds in the least solution (p, t: every pointee of p but
    the int-to-pointer object has t's final set)."""
    import dataclasses
    sol = reference.solve(cs)
    sets = [tuple(sol.points_to(v).tolist()) for v in range(cs.n_nodes)]
    first: dict[tuple, int] = {}
    for v, s in enumerate(sets):
        first.setdefault(s, v)
    hp, ht = [], []
    for p in range(cs.n_nodes):
        zs = [z for z in sets[p] if z != cs.int_to_pointer]
        if zs and len({sets[z] for z in zs}) == 1:
            hp.append(p)
            ht.append(first[sets[zs[0]]])
    return dataclasses.replace(cs, hcd_ptr=np.array(hp, np.int32), hcd_target=np.array(ht, np.int32))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(constraint_sets(max_nodes=40, max_constraints=80, with_i2p=None, with_merges=None))
def test_random_sets_every_kernel_path(gpu, cs):
    from andersen_gpu.backends import _gpu_insert_pairs, _gpu_pool
    same(gpu, cs)
    # every class through the hash-sort kernels, every pair batch through the records, the
    # copy kernel's chunks and filter
    same(gpu, cs, ptr_eq_min_changed=0, class_table=False, copy_chunk=32, copy_filter=True)
    with patch.object(_gpu_insert_pairs, "RECORDS_MIN_PAIRS", 1), \
            patch.object(_gpu_insert_pairs, "RECORD_MIN_FILL", 0):
        same(gpu, cs, pointee_order=False)
    # a one-element pool: every kernel overflows, the pool grows (once through host memory),
    # the update resumes; and the frontier work lists with online HCD merges and cycle scans
    same(gpu, cs, capacity=1, ptr_eq_min_changed=0, overlap=False)
    grow = _gpu_pool.DevicePool.grow
    with patch.object(_gpu_pool.DevicePool, "grow", lambda self, top: grow(self, top, stage_through_host=True)):
        same(gpu, cs, capacity=1, filter_known=False, pointer_equivalence=False)
    with patch.object(_gpu_pool, "FRONTIER_MIN_NODES", 0):
        same(gpu, sound_hcd(cs), hcd=True, cycles=True, cycle_period=1, capacity=1)


@pytest.mark.parametrize("base", [0, 959, 1919])
def test_element_and_word_boundaries(gpu, base):
    # objects straddling 32-bit words and 960-bit elements; geps crossing them
    n = base + 2100
    cs = ConstraintSet.from_lists(
        n, obj_size={base: 5, base + 3: 2, base + 1000: 1100},
        addr=[(n - 1, base), (n - 1, base + 3), (n - 2, base + 1000), (n - 3, n - 2)],
        copy=[(n - 4, n - 1), (n - 5, n - 4), (n - 1, n - 5)],
        gep=[(n - 6, n - 1, 1), (n - 7, n - 1, 4), (n - 8, n - 2, 961), (n - 9, n - 2, 1099),
             (n - 10, n - 2, 1100)],
        store=[(n - 3, n - 6)], load=[(n - 11, n - 3), (n - 12, n - 8)])
    same(gpu, cs)


def test_int_to_pointer_and_answers_written_out(gpu):
    cs = ConstraintSet.from_lists(8, obj_size={1: 1, 2: 1, 3: 1}, int_to_pointer=1,
                                  addr=[(4, 1), (4, 2), (5, 3), (1, 3)], store=[(4, 5)], load=[(6, 4)])
    got = gpu.solve(cs)
    assert got.points_to(2).tolist() == [3]
    assert got.points_to(1).tolist() == [3]
    assert got.points_to(6).tolist() == [3]
    assert got == reference.solve(cs)
    assert got.stats.device == "SIMT emulator"


def test_a_long_run_of_one_target_in_chunks(gpu):
    # 600 old copy edges into x active in one round: runs cut at 32 and 64 pairs
    k = 600
    a, b, x = k, 2 * k, 3 * k
    copy = [(b + i, a + i) for i in range(k)] + [(x, b + i) for i in range(k)]
    cs = ConstraintSet.from_lists(3 * k + 1, obj_size={j: 1 for j in range(k)},
                                  addr=[(a + i, i // 2) for i in range(k)], copy=copy)
    want = reference.solve(cs)
    assert want.points_to(x).tolist() == list(range(k // 2))
    for chunk in (32, 64, 0):
        got = gpu.solve(cs, preprocess=False, hcd=False, copy_chunk=chunk)
        assert got == want


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
        monkeypatch.undo()
        cupy.clear_memo()
    assert got != want
