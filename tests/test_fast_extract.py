"""read_bitcode --extract (constraints/llvm/reader/extract.cpp): the Python extractor's result, node for node.

The helper walks the module LLVM has read and writes the constraints itself;
the Python extractor reading the module's text is the oracle. Every program of
tests/llvm and a small generated program (bench/extract_speed.py's) must give
the same ConstraintSet (ids, names, locations, constraint order) and the same
statistics; a module the helper does not cover must come back as text, read by
the Python extractor.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from constraints.errors import InputError
from constraints.llvm import extract_text, extract_with_stats, fast_extract
from constraints.llvm.inputs import compile_source, module_text, read_module

LLVM_DIR = Path(__file__).parent / "llvm"
PROGRAMS = sorted(LLVM_DIR.glob("*.c")) + sorted(LLVM_DIR.glob("*.cc"))
# programs extract.cpp leaves to the text path (none today; aliases would be one)
TEXT_PATH: tuple[str, ...] = ()
STATS = ("instructions", "opcodes", "functions_defined", "functions_declared", "globals", "unmodelled_calls",
         "unknown_instructions", "inline_asm", "wrapper_calls", "alias_checks", "node_kinds", "constraints", "callbacks")
needs_tools = pytest.mark.skipif(any(shutil.which(t) is None for t in ("clang-19", "opt-19")),
                                 reason="clang-19/opt-19 not installed")


def assert_same_as_python(bc) -> bool:
    """Both paths on ``bc``; True when the helper extracted (False: it gave the text)."""
    module, names = read_module([bc], reader="fast")
    text, _ = module_text([bc], reader="fast")
    cs1, st1 = extract_text(text, names)
    if not isinstance(module, fast_extract.ExtractedModule):
        assert module == text and module.extract_skipped
        return False
    cs2, st2 = fast_extract.load(module, names)
    assert cs1 == cs2
    assert cs1.names == cs2.names
    assert cs1.locations == cs2.locations
    for f in STATS:
        assert getattr(st1, f) == getattr(st2, f), f
    return True


@needs_tools
@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.name)
def test_same_as_python_extractor(src, reader, tmp_path):
    bc = compile_source(src, tmp_path, ["-I", str(src.parent)])
    assert assert_same_as_python(bc) != (src.name in TEXT_PATH)


@needs_tools
def test_generated_program(reader, tmp_path):
    bench_file = LLVM_DIR.parent.parent / "bench" / "extract_speed.py"  # its generate(), not a package
    spec = importlib.util.spec_from_file_location("extract_speed", bench_file)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    src = tmp_path / "generated.c"
    src.write_text(bench.generate(150))
    assert assert_same_as_python(compile_source(src, tmp_path))


ALIAS_PROGRAM = """
static int x;
int *get(void) { return &x; }
int *get_alias(void) __attribute__((alias("get")));
int main(void) { int *p = get_alias(); return p != 0; }
"""


@needs_tools
def test_uncovered_module_is_read_as_text(reader, tmp_path):
    src = tmp_path / "alias.c"
    src.write_text(ALIAS_PROGRAM)
    bc = compile_source(src, tmp_path)
    module, _ = read_module([bc], reader="fast")
    assert isinstance(module, str) and module.extract_skipped == "aliases or ifuncs"
    cs, _ = extract_with_stats([bc])
    assert cs == extract_text(module_text([bc], reader="fast")[0])[0]


@needs_tools
def test_switches(reader, tmp_path, monkeypatch):
    bc = compile_source(LLVM_DIR / "call_indirect.c", tmp_path)
    fast, stats = extract_with_stats([bc])
    assert isinstance(read_module([bc])[0], fast_extract.ExtractedModule)
    assert stats.access_sites is None
    monkeypatch.setenv("ANDERSEN_FAST_EXTRACT", "0")
    module, _ = read_module([bc])
    assert isinstance(module, str) and module.extract_skipped == ""
    text_cs, _ = extract_with_stats([bc])
    assert text_cs == fast and text_cs.names == fast.names and text_cs.locations == fast.locations
    monkeypatch.delenv("ANDERSEN_FAST_EXTRACT")
    _, with_sites = extract_with_stats([bc], record_sites=True)  # access sites: the Python extractor
    assert with_sites.access_sites is not None


class _Bar:
    """A tqdm stand-in that records what it was told."""

    made: list["_Bar"] = []

    def __init__(self, total):
        self.total, self.n, self.updates, self.closed = total, 0, 0, False
        _Bar.made.append(self)

    def update(self, k):
        self.n += k
        self.updates += 1

    def close(self):
        self.closed = True


@needs_tools
def test_progress_bar_over_the_helpers_instructions(reader, tmp_path):
    _Bar.made.clear()
    bc = compile_source(LLVM_DIR / "call_indirect.c", tmp_path)
    cs, stats = extract_with_stats([bc], progress=_Bar)
    assert cs == extract_with_stats([bc])[0]  # the bar changes nothing else
    assert len(_Bar.made) == 1
    bar = _Bar.made[0]
    # every instruction of a defined function, once; the bar is closed at the end
    assert bar.total == stats.instructions > 0 and bar.n == bar.total and bar.closed and bar.updates >= 1


def test_models_text_lists_every_model():
    lines = fast_extract.models_text().splitlines()
    assert len([ln for ln in lines if ln.startswith("M\t")]) == len(fast_extract.externals.MODELS)
    assert "M\tpthread_atfork\tscall,i0,t;scall,i1,t;scall,i2,t" in lines
    assert "A\tcalloc\t0,1" in lines and "R\tgetenv\t" not in lines and "C\tMAYALIAS" in lines


def test_truncated_payload_is_an_error():
    with pytest.raises(InputError, match="malformed|expected"):
        fast_extract.load(fast_extract.ExtractedModule(fast_extract.MAGIC + b"\0" * 88))
