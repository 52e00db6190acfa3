"""read_bitcode (constraints/llvm/reader/read_bitcode.cpp): the same constraints as llvm-dis-19's text.

The helper drops what the extractor never reads (the debug-info verifier,
``#dbg_value`` records, DILocation columns); every node, name, location and
constraint must stay what ``llvm-dis-19``'s full text gives. Where it cannot be
built (no g++, no llvm-19-dev) reading falls back to llvm-dis-19 with one note.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from constraints.errors import InputError
from constraints.llvm import extract_text
from constraints.llvm import inputs
from constraints.llvm.inputs import compile_source, fast_reader, module_text

PROGRAMS = sorted((Path(__file__).parent / "llvm").glob("*.c")) + sorted((Path(__file__).parent / "llvm").glob("*.cc"))
needs_tools = pytest.mark.skipif(any(shutil.which(t) is None for t in ("clang-19", "opt-19", "llvm-dis-19")),
                                 reason="clang-19/opt-19/llvm-dis-19 not installed")


def _same(a, b) -> bool:
    return a == b and a.names == b.names and a.locations == b.locations


@needs_tools
@pytest.mark.parametrize("src", PROGRAMS[::3], ids=lambda p: p.stem)
def test_same_constraints_as_llvm_dis(src, reader, tmp_path):
    bc = compile_source(src, tmp_path)
    full, _ = module_text([bc], reader="tools")
    fast, _ = module_text([bc], reader="fast")
    (cs1, st1), (cs2, st2) = extract_text(full, record_sites=True), extract_text(fast, record_sites=True)
    assert _same(cs1, cs2)
    assert st1.instructions == st2.instructions and st1.opcodes == st2.opcodes
    assert st1.access_sites.location == st2.access_sites.location
    assert "#dbg_value(" not in fast


@needs_tools
def test_full_prints_what_llvm_dis_prints(reader, tmp_path):
    import subprocess

    bc = compile_source(PROGRAMS[0], tmp_path)
    ours = subprocess.run([reader, "--full", str(bc)], capture_output=True, text=True, check=True).stdout
    theirs = subprocess.run(["llvm-dis-19", "-o", "-", str(bc)], capture_output=True, text=True, check=True).stdout
    assert ours.split("\n", 1)[1] == theirs.split("\n", 1)[1]  # all but the "; ModuleID" line


def test_truncated_bitcode_is_bad_input(reader, tmp_path):
    bc = tmp_path / "t.bc"
    bc.write_bytes(b"BC\xc0\xde" + bytes(range(256)) * 4)
    with pytest.raises(InputError, match="cannot read"):
        module_text([bc], reader="fast")
    with pytest.raises(InputError):
        module_text([bc])


@needs_tools
def test_without_a_compiler_reads_with_llvm_dis_and_says_so_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ANDERSEN_CXX", "g++-that-is-not-installed")
    monkeypatch.setattr(inputs.build_reader, "installed", lambda: None)  # as if the install had not built it
    monkeypatch.setattr(inputs, "_noted", [])
    monkeypatch.setenv("ANDERSEN_CACHE_DIR", str(tmp_path / "cache"))
    bc = compile_source(PROGRAMS[0], tmp_path)
    assert fast_reader() == (None, "no C++ compiler (g++-that-is-not-installed)")
    text1, _ = module_text([bc])
    text2, _ = module_text([bc])
    assert text1 == text2 == module_text([bc], reader="tools")[0]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "llvm-dis-19" in err[0] and "no C++ compiler" in err[0]
    with pytest.raises(InputError, match="read_bitcode unavailable"):
        module_text([bc], reader="fast")
