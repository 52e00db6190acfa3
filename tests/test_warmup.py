"""The one-time compile before a solve (issue 21, item 3): announced, timed apart from the solve,
and complete (a real solve after it compiles nothing more).

(``andersen_gpu.warmup`` is imported inside the tests, so that the subprocess test also runs
against a checkout without it.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import andersen_gpu
from constraints import io
from constraints.model import ConstraintSet

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "linked_list.acs"


def _compiled_signatures() -> int:
    from andersen_gpu import warmup

    return sum(len(d.overloads) for d in warmup.dispatchers())


def _inputs(paper_dir: Path) -> list[ConstraintSet]:
    from andersen_gpu import warmup

    found = [io.load(EXAMPLE), warmup.sample_set(),
             ConstraintSet.from_lists(3, obj_size={2: 1}, addr=[(0, 2)], copy=[(1, 0)])]
    for name in ("ex", "gcc"):
        if (paper_dir / f"{name}_nodes.txt.gz").is_file():
            found.append(io.load(paper_dir / f"{name}_nodes.txt.gz"))
            found.append(io.load(paper_dir / f"{name}_nodes.txt.gz", use_hcd=False))
    return found


def test_the_sample_set_is_solved_exactly() -> None:
    from andersen_gpu import warmup

    cs = warmup.sample_set()
    assert andersen_gpu.solve(cs, backend="cpu") == andersen_gpu.solve(cs, backend="reference")
    assert all(cs.count(k) for k in ("addr", "copy", "load", "store", "gep")) and len(cs.hcd_ptr)


@pytest.mark.parametrize("backend", ["cpu", "host side of gpu"], ids=["cpu", "host-side-of-the-gpu-backend"])
def test_after_the_warm_up_a_real_solve_compiles_nothing(backend: str) -> None:
    # (the gpu backend's own kernels are CuPy's; its host side is the preprocessing)
    from andersen_gpu import warmup
    from conftest import PAPER_INPUTS

    warmup.compile_backend("cpu" if backend == "cpu" else "gpu")
    before = _compiled_signatures()
    for cs in _inputs(PAPER_INPUTS):
        if backend == "cpu":
            from andersen_gpu.backends import cpu

            cpu.solve(cs)
        else:  # what the gpu backend runs on the host
            from andersen_gpu.preprocess import collapse
            from andersen_gpu.preprocess.order import pointee_order

            pointee_order(cs)
            collapse(cs)
    assert _compiled_signatures() == before


def test_the_compile_is_announced_and_timed_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    from andersen_gpu import warmup

    warmup.compile_backend("cpu")  # the real one, so that the solve below compiles nothing
    monkeypatch.setattr(warmup, "_done", set())
    monkeypatch.setattr(warmup, "_run", lambda backend, threads: time.sleep(1.3))
    lines: list[str] = []
    sol = andersen_gpu.solve(io.load(EXAMPLE), backend="cpu", announce=lines.append)
    assert sol.stats.compile_ms >= 1300 and sol.stats.solve_ms < 1000
    assert lines[0].startswith("preparing the cpu solver: numba compiles it on first use")
    assert re.fullmatch(r"loaded the cpu solver in 1\.\d s", lines[1])
    lines.clear()
    again = andersen_gpu.solve(io.load(EXAMPLE), backend="cpu", announce=lines.append)
    assert again.stats.compile_ms == 0 and lines == []  # once per process
    assert andersen_gpu.solve(io.load(EXAMPLE), backend="reference").stats.compile_ms == 0


@pytest.mark.slow
def test_a_first_run_says_what_it_compiles_and_times_it_apart(tmp_path: Path) -> None:
    # a fresh numba cache: the compile happens, is announced, and is not solve time
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "andersen_gpu", "solve", str(EXAMPLE), "--backend", "cpu"],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert res.returncode == 0, res.stderr
    err = res.stderr.splitlines()
    assert err[0].startswith("andersen-gpu: preparing the cpu solver: numba compiles it on first use"), err
    assert re.fullmatch(r"andersen-gpu: compiled the cpu solver in \d+\.\d s", err[1]), err
    m = re.search(r"\(cpu, ([\d,.]+) ms; before it, the one-time compile: ([\d,]+) ms\)", res.stdout)
    assert m, res.stdout
    solve_ms, compile_ms = (float(g.replace(",", "")) for g in m.groups())
    assert solve_ms < 1000 < compile_ms


@pytest.mark.parametrize("argv, steps", [
    ([], [("cpu", 1), ("gpu", 1)]),
    (["--backend", "cpu", "--threads", "3"], [("cpu", 1), ("cpu", 3)]),
    (["--backend", "gpu", "--threads", "3"], [("gpu", 1)]),
])
def test_the_warmup_command_compiles_each_part_asked_for(argv, steps, monkeypatch, capsys) -> None:
    # what it compiles is compile_backend's business (the tests above); here: which parts, and the lines
    from andersen_gpu import warmup
    from andersen_gpu.cli import main

    called = []

    def fake(backend, threads, announce):
        called.append((backend, threads))
        return warmup.CompileStep(1234.0, compiled=backend == "cpu")

    monkeypatch.setattr(warmup, "compile_backend", fake)
    assert main(["warmup", *argv]) == 0
    assert called == steps
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(steps)
    for (backend, threads), line in zip(steps, out):
        verb = "compiled" if backend == "cpu" else "loaded from the cache"
        assert line.endswith(f": {verb} in 1.2 s") and (f"({threads} threads)" in line) == (threads > 1), line


@pytest.mark.slow
def test_after_the_warmup_command_the_first_solve_does_not_compile(tmp_path: Path) -> None:
    # what the README's install step promises: the compile happens in `warmup`, once per machine
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=str(ROOT))
    warm = subprocess.run([sys.executable, "-m", "andersen_gpu", "warmup", "--backend", "cpu"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert warm.returncode == 0, warm.stderr
    assert re.match(r"the cpu solver: compiled in \d+\.\d s$", warm.stdout.splitlines()[0]), warm.stdout
    res = subprocess.run([sys.executable, "-m", "andersen_gpu", "solve", str(EXAMPLE), "--backend", "cpu"],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert res.returncode == 0, res.stderr
    assert "compiled the cpu solver" not in res.stderr, res.stderr  # (loading it may be announced)


# -- the GPU backend's kernels (CuPy compiles them on first use) --------------------------------

def test_the_gpu_sample_set_has_every_feature() -> None:
    from andersen_gpu import warmup
    from constraints.model import NodeKind

    cs = warmup.gpu_sample_set()
    assert all(cs.count(k) > 100 for k in ("addr", "copy", "load", "store", "gep"))
    assert len(cs.walk_dst) and len(cs.call_dst) and cs.call_geps and len(cs.hcd_ptr)
    assert len(cs.field_insensitive) and cs.int_to_pointer == 0
    assert (cs.kind == NodeKind.FUNCTION).any() and (cs.kind == NodeKind.FIELD).any()
    again = warmup.gpu_sample_set()
    assert all(np.array_equal(getattr(cs, k), getattr(again, k))
               for k in ("addr_dst", "addr_src", "load_src", "gep_offset", "call_offset", "obj_size"))


def _gpu_lines_run(fn) -> set[tuple[str, int]]:
    """(file name, line) of the GPU backend's modules that ``fn()`` runs."""
    from andersen_gpu.backends import gpu

    folder = str(Path(gpu.__file__).resolve().parent)
    hits: set[tuple[str, int]] = set()

    def local(frame, event, arg):
        if event == "line":
            hits.add((Path(frame.f_code.co_filename).name, frame.f_lineno))
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(folder) else None

    sys.settrace(calls)
    try:
        fn()
    finally:
        sys.settrace(None)
    return hits


def _functions_not_run(hits: set[tuple[str, int]]) -> set[tuple[str, str]]:
    """(file name, function) of the GPU backend's modules none of whose body's lines is in ``hits``
    (the ``def`` line runs when the module is imported)."""
    import ast

    from andersen_gpu.backends import gpu

    out = set()
    for path in sorted(Path(gpu.__file__).resolve().parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and not any(
                    (path.name, line) in hits for line in range(node.body[0].lineno, node.end_lineno + 1)):
                out.add((path.name, node.name))
    return out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the emulated kernels")
def test_the_gpu_warm_up_runs_every_line_that_solves_run() -> None:
    # On the SIMT emulator: every line of the GPU backend's modules that solving some inputs runs
    # (each CuPy operation on such a line is a kernel CuPy compiles on first use), the warm-up
    # runs; and every function of those modules but the public wrapper and the options' check.
    # Where CuPy picks a kernel by the input's size too (its nonzero family: the fake CuPy's
    # KERNEL_CLASSES), the warm-up reaches each size class the solves reach (at b6dd89d on an
    # H100 the shipped example compiled the small nonzero kernel after the warm-up).
    # The corpus dumps, where present (not in CI), bring the cycle passes of real programs.
    from andersen_gpu.backends import cpu
    from andersen_gpu.preprocess.objects import collapse_reached
    from tests.emu import emulated

    with emulated():
        from andersen_gpu import warmup
        from andersen_gpu.backends.gpu import GpuOptions
        from andersen_gpu.backends.gpu.solver import solve_gpu

        classes = sys.modules["cupy"].KERNEL_CLASSES
        classes.clear()
        warm = _gpu_lines_run(warmup.warm_gpu_kernels)
        warm_classes = set(classes)
        classes.clear()
        inputs = [io.load(EXAMPLE), warmup.sample_set(), warmup.gpu_sample_set(values=400, seed=1)]
        for p in (ROOT / ".corpus-dumps" / f"{name}.npz" for name in ("gzip", "bash")):
            if p.is_file():   # their objects collapsed as andersen_gpu.solve does (on the cpu backend here)
                inputs.append(collapse_reached(io.load(p), cpu.solve)[0])
        solved: set[tuple[str, int]] = set()
        for i, cs in enumerate(inputs):
            solved |= _gpu_lines_run(lambda: solve_gpu(cs, GpuOptions()))
            if i < 3:
                solved |= _gpu_lines_run(lambda: solve_gpu(cs, GpuOptions(preprocess=False, pointee_order=False)))
        missing = sorted(solved - warm)
        assert not missing, f"lines the solves ran and the warm-up did not: {missing}"
        assert classes and not classes - warm_classes, \
            f"kernels by size the solves reached and the warm-up did not: {sorted(classes - warm_classes)}"
        not_run = _functions_not_run(warm) - set(NOT_RUN_BY_THE_WARM_UP)
        assert not not_run, f"functions of the GPU backend the warm-up never runs: {sorted(not_run)}"


#: Functions of the GPU backend the warm-up may leave out, and why none of them compiles a kernel.
NOT_RUN_BY_THE_WARM_UP = {
    ("__init__.py", "solve"): "the public wrapper: applies the options and calls solve_gpu, which it runs",
    ("options.py", "with_overrides"): "the options' check, on the host",
    ("options.py", "object_level_options"): "a dict of options for the object-level solve, on the host",
    ("pool.py", "release"): "a staged compaction (both pools do not fit the device): frees the pool",
    ("rounds.py", "release_buffers"): "a staged compaction: frees a round's buffers",
    ("sets.py", "no_room"): "the error message of a compaction that cannot fit",
    ("sets.py", "grow"): "the set table's growth: slice copies of uint32 and uint64 arrays, as the rounds' buffers' growth and the sort make",
    ("sets.py", "nbytes"): "host arithmetic for the stats",
    ("sets.py", "slots"): "a cache's size, on the host",
    ("solver.py", "_pointee_order"): "runs in the order thread (not traced here): numba, the host side's warm-up",
    ("solver.py", "__init__"): "_Profile, only with ANDERSEN_GPU_PROFILE=1 (a diagnostic build): host arrays",
    ("solver.py", "_read"): "_Profile: a slice of the control block already on the host",
    ("solver.py", "add"): "_Profile: NumPy on the host and one memset (no kernel to compile)",
    ("solver.py", "totals"): "_Profile: NumPy on the host",
    ("timing.py", "_event"): "CUDA events, with timing=True: no kernel",
}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the emulated kernels")
def test_the_gpu_sample_set_solves_alike_on_the_emulated_gpu() -> None:
    # the warm-up's solves are real ones: with its options, the gpu backend equals the cpu backend
    from andersen_gpu.backends import cpu
    from tests.emu import emulated

    with emulated():
        from andersen_gpu import warmup
        from andersen_gpu.backends.gpu import GpuOptions
        from andersen_gpu.backends.gpu.cycles import CyclePolicy
        from andersen_gpu.backends.gpu.solver import solve_gpu

        cs = warmup.gpu_sample_set(values=1500)
        sol = solve_gpu(cs, GpuOptions(capacity=1), CyclePolicy(first_round=1, min_rounds_ms=0.0))
        assert sol.stats.notes["cycle_passes"] >= 1 and sol.stats.notes["compactions"] >= 1
        assert sol == cpu.solve(cs)


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the emulated kernels")
def test_the_gpu_warm_up_runs_once_per_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the stamp in CuPy's cache folder: absent, the warm-up runs and leaves it; present, nothing runs
    from tests.emu import emulated

    with emulated():
        import importlib

        from andersen_gpu import warmup
        solve_module = importlib.import_module("andersen_gpu.solve")

        stamp = warmup.gpu_stamp()
        assert stamp.parent == Path(sys.modules["cupy"].cuda.compiler.get_cache_dir())
        assert stamp.name.startswith("andersen-gpu-kernels-") and stamp == warmup.gpu_stamp()
        monkeypatch.setattr(warmup, "gpu_stamp", lambda: tmp_path / "cache" / stamp.name)
        runs, lines = [], []
        monkeypatch.setattr(warmup, "warm_gpu_kernels", lambda: runs.append(1))
        assert warmup._warm_gpu_once(lines.append) and runs == [1]
        assert (tmp_path / "cache" / stamp.name).is_file()
        assert lines and lines[0].startswith("compiling the GPU kernels: CuPy compiles them on first use")
        assert not warmup._warm_gpu_once(lines.append) and runs == [1]
        def broken():
            raise RuntimeError("a kernel failed\nmore")
        (tmp_path / "cache" / stamp.name).unlink()
        monkeypatch.setattr(warmup, "warm_gpu_kernels", broken)
        lines.clear()
        assert not warmup._warm_gpu_once(lines.append)   # said, no stamp, and the solve goes on
        assert lines[-1] == ("the GPU warm-up stopped (RuntimeError: a kernel failed); kernels compile on first "
                             "use instead") and not (tmp_path / "cache" / stamp.name).exists()
        monkeypatch.setattr(warmup, "warm_gpu_kernels", lambda: runs.append(1))
        (tmp_path / "cache" / stamp.name).write_text("")
        monkeypatch.setattr(solve_module, "gpu_available", lambda: (False, "no CUDA device"))
        (tmp_path / "cache" / stamp.name).unlink()
        assert not warmup._warm_gpu_once(lines.append) and runs == [1]   # no device: nothing to warm


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the emulated kernels")
def test_the_gpu_stamp_changes_with_the_kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kernels_cu
    from tests.emu import emulated

    with emulated():
        from andersen_gpu import warmup

        assert warmup.gpu_stamp() == warmup.gpu_stamp()
        copy = tmp_path / "kernels_cu"
        shutil.copytree(kernels_cu.DIRECTORY, copy)
        monkeypatch.setattr(kernels_cu, "DIRECTORY", copy)
        before = warmup.gpu_stamp()   # (the include folder is a compile option: it changed too)
        (copy / "emit.cu").write_text((copy / "emit.cu").read_text() + "\n// changed\n")
        assert warmup.gpu_stamp() != before


@pytest.mark.gpu
def test_after_the_gpu_warm_up_a_solve_compiles_no_kernel(tmp_path: Path) -> None:
    # on a device: `warmup --backend gpu` into an empty CuPy cache, then solves in another process
    # add no file to that cache (CuPy writes one per kernel it compiles)
    from tests.emu import requested

    if requested():
        pytest.skip("the emulator has no CuPy kernel cache")
    cache = tmp_path / "cupy"
    env = dict(os.environ, CUPY_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    warm = subprocess.run([sys.executable, "-m", "andersen_gpu", "warmup", "--backend", "gpu"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert warm.returncode == 0, warm.stderr
    assert re.fullmatch(r"the gpu backend \(host side and kernels\): compiled in \d+\.\d s", warm.stdout.strip()), warm.stdout
    assert "compiling the GPU kernels" in warm.stderr, warm.stderr
    before = {p.name for p in cache.rglob("*")}
    # the example, the two sample sets, then bash and sqlite3 where their dumps are here: a file
    # CuPy adds to its cache folder meanwhile prints the input and the kernel's names and source
    dumps = [str(d) for d in (ROOT / ".corpus-dumps" / f"{p}.npz" for p in ("bash", "sqlite3")) if d.is_file()]
    res = subprocess.run([sys.executable, str(ROOT / "bench" / "kernel_compiles.py"), "--samples", *dumps],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert res.returncode == 0, res.stderr
    assert "compiling the GPU kernels" not in res.stderr, res.stderr
    compiled = [line for line in res.stdout.splitlines() if '"kernels"' in line]
    assert not compiled, "\n".join(compiled)
    assert {p.name for p in cache.rglob("*")} == before
    again = subprocess.run([sys.executable, "-m", "andersen_gpu", "warmup", "--backend", "gpu"],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert again.returncode == 0 and "loaded from the cache" in again.stdout, again.stdout + again.stderr
