"""Alias assertions of the C/C++/IR programs under tests/llvm, checked end to end.

Each program is compiled once per session (clang-19 -O0 -g, then mem2reg),
extracted, solved, and every MAYALIAS/NOALIAS/... call is checked with the
reference backend, the cpu backend where it exists, and the gpu backend on a
machine with a device (``-m gpu``).

A GPU machine without clang-19 checks extractions made elsewhere: write them with
``python3 -m tests.test_llvm_aliases --write-extracts DIR`` (from the checkout's root) and point
``ANDERSEN_LLVM_EXTRACTS`` at DIR (one pickled ``(path, ConstraintSet, ExtractStats)``
per program, named after it).
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import re
import shutil
import sys
from pathlib import Path

import pytest

from andersen_gpu.commands.check_aliases import check_extracted

HERE = Path(__file__).resolve().parent / "llvm"
PROGRAMS = sorted(p for p in HERE.iterdir() if p.suffix in (".c", ".cc", ".ll"))
BACKENDS = (["reference"] + (["cpu"] if importlib.util.find_spec("andersen_gpu.backends.cpu") else [])
            + [pytest.param("gpu", marks=pytest.mark.gpu)])
EXTRACTS_ENV = "ANDERSEN_LLVM_EXTRACTS"


def _have_clang() -> bool:
    return shutil.which("clang-19") is not None and shutil.which("opt-19") is not None


def _extract(src: Path, workdir: Path) -> tuple:
    """(bitcode path, ConstraintSet, ExtractStats) of one program, compiled into ``workdir``."""
    from constraints.llvm import extract_with_stats
    from constraints.llvm.inputs import compile_source

    if src.suffix == ".ll":
        bc = src
    else:
        sub = workdir / src.name
        sub.mkdir()
        bc = compile_source(src, sub, ["-I", str(HERE)])
    cs, stats = extract_with_stats([bc])
    return str(bc), cs, stats


@pytest.fixture(scope="session")
def extracted(tmp_path_factory):
    """Each program's extraction, made on first use (or read from ``$ANDERSEN_LLVM_EXTRACTS``)
    and kept for the session."""
    out = tmp_path_factory.mktemp("llvm-tests")
    saved = os.environ.get(EXTRACTS_ENV)
    cache: dict[Path, tuple] = {}

    def get(src: Path) -> tuple:
        if src not in cache:
            if saved:
                cache[src] = pickle.loads((Path(saved) / f"{src.name}.pkl").read_bytes())
            elif _have_clang():
                cache[src] = _extract(src, out)
            else:
                pytest.skip(f"clang-19/opt-19 not installed and {EXTRACTS_ENV} not set")
        return cache[src]
    return get


def test_at_least_sixty_programs_each_naming_its_items():
    assert len(PROGRAMS) >= 60
    unnamed = [src.name for src in PROGRAMS if not re.search(r"Items?: \S", src.read_text()[:600])]
    assert not unnamed, f"the opening comment must name the items the program covers: {unnamed}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.name)
def test_alias_assertions(src, backend, extracted):
    results = check_extracted(*extracted(src), backend)
    assert results, f"{src.name} has no alias assertions"
    failed = [f"{r['location']}: {r['kind']}({r['a']}, {r['b']}) got {'alias' if r['alias'] else 'no alias'}"
              for r in results if not r["passed"]]
    assert not failed, "\n".join(failed)
    if src.suffix != ".ll":  # debug info names the source line of every call
        assert all(re.search(rf"{re.escape(src.name)}:\d+$", r["location"]) for r in results)


def write_extracts(folder: Path) -> int:
    """Pickle every program's extraction into ``folder`` (for ``$ANDERSEN_LLVM_EXTRACTS``)."""
    import tempfile

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        for src in PROGRAMS:
            (folder / f"{src.name}.pkl").write_bytes(pickle.dumps(_extract(src, Path(work))))
    return len(PROGRAMS)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--write-extracts":
        sys.exit("usage: python3 -m tests.test_llvm_aliases --write-extracts DIR")
    print(f"wrote {write_extracts(Path(sys.argv[2]))} extractions to {sys.argv[2]}")
