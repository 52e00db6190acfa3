"""The GPU backend, kernels included, on the SIMT emulator (tests/emu) against the reference
backend: CI's cover of the kernels' logic on machines without a GPU.

The cases are those of tests/test_gpu_backend.py (its test bodies, called here inside
``emulated()``): every hypothesis test with a quarter of its examples, every test without
parameters, some values of the parametrized ones; the kernels of kernels_cu/ run
unchanged on the CPU (built with g++ on first use and cached). The whole GPU test file runs on
the emulator too: ``ANDERSEN_GPU_EMULATOR=1 python3 -m pytest -m gpu tests/test_gpu_backend.py``.
"""

from __future__ import annotations

import inspect
import shutil

import pytest
from hypothesis import HealthCheck, given, settings

import tests.test_gpu_backend as on_gpu
from andersen_gpu.backends import reference
from constraints.model import ConstraintSet
from tests.emu import emulated

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the emulated kernels")]


@pytest.fixture(scope="module")
def gpu():
    with emulated():
        from andersen_gpu.backends import gpu as backend
        yield backend


def _emulated(name: str, test):
    """test_gpu_backend.py's hypothesis test ``test`` (its body, over its own strategies) on the
    emulator, with a quarter of its examples (10 at least)."""
    handle = test.hypothesis
    examples = max(10, test._hypothesis_internal_use_settings.max_examples // 4)

    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(**handle._given_kwargs)
    def emulated_test(gpu, **drawn):
        handle.inner_test(**drawn)
    emulated_test.__name__ = name
    return emulated_test


def _tests_of_gpu_file(kind: str) -> list[str]:
    """Names of test_gpu_backend.py's tests: "hypothesis" ones, or "plain" ones (no arguments,
    no parametrization)."""
    out = []
    for name, f in sorted(vars(on_gpu).items()):
        if not name.startswith("test_") or not callable(f):
            continue
        if kind == "hypothesis" and hasattr(f, "hypothesis"):
            out.append(name)
        elif (kind == "plain" and not hasattr(f, "hypothesis") and not getattr(f, "pytestmark", None)
              and not inspect.signature(f).parameters):
            out.append(name)
    return out


# every hypothesis test of the GPU file, under its own name here
for _name in _tests_of_gpu_file("hypothesis"):
    globals()[_name] = _emulated(_name, getattr(on_gpu, _name))
del _name


@pytest.mark.parametrize("case", _tests_of_gpu_file("plain"))
def test_hand_made_cases(gpu, case):
    getattr(on_gpu, case)()


@pytest.mark.parametrize("base", [0, 959, 1919])
def test_element_and_word_boundaries(gpu, base):
    on_gpu.test_element_and_word_boundaries(base)


@pytest.mark.parametrize("n", [0, 33, 4097, 3 * 4096 + 5])
def test_sort_keys(gpu, n):
    on_gpu.test_sort_keys_small_and_large(n, "few")


@pytest.mark.parametrize("cap", [0, 33, 4097, 3 * 4096 + 5])
def test_sort_counted(gpu, cap):
    on_gpu.test_sort_counted_sorts_the_counted_prefix(cap)


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
