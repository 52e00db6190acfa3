"""The one-time compile before a solve (issue 21, item 3): announced, timed apart from the solve,
and complete (a real solve after it compiles nothing more).

(``andersen_gpu.warmup`` is imported inside the tests, so that the subprocess test also runs
against a checkout without it.)"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

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
