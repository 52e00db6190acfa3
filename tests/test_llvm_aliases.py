"""Alias assertions of the C/C++/IR programs under tests/llvm, checked end to end.

Each program is compiled once per session (clang-19 -O0 -g, then mem2reg),
extracted, solved, and every MAYALIAS/NOALIAS/... call is checked with the
reference backend, and with the cpu backend where it exists.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from andersen_gpu.commands.check_aliases import check_program

HERE = Path(__file__).resolve().parent / "llvm"
PROGRAMS = sorted(p for p in HERE.iterdir() if p.suffix in (".c", ".cc", ".ll"))
BACKENDS = ["reference"] + (["cpu"] if importlib.util.find_spec("andersen_gpu.backends.cpu") else [])

needs_clang = pytest.mark.skipif(shutil.which("clang-19") is None or shutil.which("opt-19") is None,
                                 reason="clang-19/opt-19 not installed")


@pytest.fixture(scope="session")
def compiled(tmp_path_factory):
    """Path of each program's bitcode, compiled on first use and kept for the session."""
    from constraints.llvm.inputs import compile_source

    out = tmp_path_factory.mktemp("llvm-tests")
    cache: dict[Path, Path] = {}

    def get(src: Path) -> Path:
        if src.suffix == ".ll":
            return src
        if src not in cache:
            sub = out / src.name
            sub.mkdir()
            cache[src] = compile_source(src, sub, ["-I", str(HERE)])
        return cache[src]
    return get


def test_at_least_sixty_programs():
    assert len(PROGRAMS) >= 60


@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.name)
def test_program_names_its_items(src):
    head = src.read_text()[:600]
    assert re.search(r"Items?: \S", head), f"{src.name}: the opening comment must name the items it covers"


@needs_clang
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.name)
def test_alias_assertions(src, backend, compiled):
    results = check_program(str(compiled(src)), backend)
    assert results, f"{src.name} has no alias assertions"
    failed = [f"{r['location']}: {r['kind']}({r['a']}, {r['b']}) got {'alias' if r['alias'] else 'no alias'}"
              for r in results if not r["passed"]]
    assert not failed, "\n".join(failed)
    if src.suffix != ".ll":  # debug info names the source line of every call
        assert all(re.search(rf"{re.escape(src.name)}:\d+$", r["location"]) for r in results)
