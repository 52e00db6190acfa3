"""read_bitcode (constraints/llvm/reader/): reading, linking and extracting in one helper.

The helper reads one .bc as it is, or .ll/.bc files it links as llvm-link-19
links them, and writes the constraints (and, asked, the access sites) that
constraints/llvm/fast_extract.py loads. What it extracts is checked by the
alias-assertion programs (tests/test_llvm_aliases.py) and the alias facts
(tests/test_alias_facts.py, tests/test_annotate.py); here: the inputs it
takes, and how it fails.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

from constraints.errors import InputError
from constraints.llvm import extract_text, extract_with_stats, fast_extract, inputs
from constraints.llvm.inputs import compile_source, read_module

LLVM_DIR = Path(__file__).parent / "llvm"
needs_tools = pytest.mark.skipif(any(shutil.which(t) is None for t in ("clang-19", "opt-19", "llvm-dis-19")),
                                 reason="clang-19/opt-19/llvm-dis-19 not installed")


def _same(a, b) -> bool:
    return a == b and a.names == b.names and a.locations == b.locations


def _bench():
    bench_file = LLVM_DIR.parent.parent / "bench" / "extract_speed.py"  # its generate(), not a package
    spec = importlib.util.spec_from_file_location("extract_speed", bench_file)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


@needs_tools
def test_ir_text_is_the_same_program_as_its_bitcode(reader, tmp_path):
    """One .bc read as it is and its llvm-dis-19 text, parsed and linked: the same constraints
    and access sites (nothing of a lone module is renamed or dropped by linking it)."""
    bc = compile_source(LLVM_DIR / "linked_list_recursion.c", tmp_path, ["-I", str(LLVM_DIR)])
    ll = tmp_path / "prog.ll"
    subprocess.run(["llvm-dis-19", str(bc), "-o", str(ll)], check=True)
    (cs1, st1), (cs2, st2) = extract_with_stats([bc], record_sites=True), extract_with_stats([ll], record_sites=True)
    assert _same(cs1, cs2) and st1.instructions == st2.instructions
    assert st1.access_sites == st2.access_sites and len(st1.access_sites) > 0
    cs3, _ = extract_text(ll.read_text())
    assert _same(cs1, cs3)


@needs_tools
def test_several_files_are_linked_into_one_program(reader, tmp_path):
    """A program cut into three modules (llvm-split-19), one of them as IR text, linked back:
    every function and instruction is there once, and pointers flow across the modules."""
    if shutil.which("llvm-split-19") is None:
        pytest.skip("llvm-split-19 not installed")
    src = tmp_path / "generated.c"
    src.write_text(_bench().generate(40))
    bc = compile_source(src, tmp_path)
    subprocess.run(["llvm-split-19", "-j", "3", str(bc), "-o", str(tmp_path / "part")], check=True)
    parts = [(tmp_path / f"part{k}").rename(tmp_path / f"part{k}.bc") for k in range(3)]
    subprocess.run(["llvm-dis-19", str(parts[1]), "-o", str(parts[1].with_suffix(".ll"))], check=True)
    parts[1] = parts[1].with_suffix(".ll")
    (cs, stats), (whole, whole_stats) = extract_with_stats(parts), extract_with_stats([bc])
    assert stats.instructions == whole_stats.instructions and stats.functions_defined == whole_stats.functions_defined
    assert sorted(cs.names) == sorted(whole.names) and cs.n_constraints == whole.n_constraints


def test_duplicate_definitions_are_a_link_error(reader, tmp_path):
    a, b = tmp_path / "a.ll", tmp_path / "b.ll"
    a.write_text("define i32 @f() {\n  ret i32 0\n}\n")
    b.write_text("define i32 @f() {\n  ret i32 1\n}\n")
    with pytest.raises(InputError, match=r"b\.ll: cannot link: .*@f|b\.ll: cannot link: .*'f'"):
        extract_with_stats([a, b])


GPU_TARGETS = ("amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda")


@needs_tools
@pytest.mark.parametrize("target", GPU_TARGETS)
def test_gpu_target_builds_keep_their_pointers(target, reader, tmp_path):
    """Compiled for a GPU target (allocas in addrspace(5), globals in 1, generic pointers
    cast in between): every alias assertion of the program still holds."""
    from andersen_gpu.commands.check_aliases import check_extracted

    raw, bc = tmp_path / "p.O0.bc", tmp_path / "p.bc"
    res = subprocess.run(["clang-19", f"--target={target}", "-nogpulib", "-O0", "-g", "-fno-discard-value-names",
                          "-Xclang", "-disable-O0-optnone", "-emit-llvm", "-c", "-I", str(LLVM_DIR),
                          str(LLVM_DIR / "addrspace_pointers.c"), "-o", str(raw)], capture_output=True, text=True)
    if res.returncode != 0 and "target" in res.stderr and ("unknown" in res.stderr or "no available" in res.stderr):
        pytest.skip(f"clang-19 has no {target} target here")
    assert res.returncode == 0, res.stderr
    subprocess.run(["opt-19", "-passes=mem2reg", str(raw), "-o", str(bc)], check=True)
    cs, stats = extract_with_stats([bc])
    results = check_extracted(str(bc), cs, stats, "reference")
    assert len(results) == 6 and all(r["passed"] for r in results), results


def test_truncated_bitcode_is_bad_input(reader, tmp_path):
    bc = tmp_path / "t.bc"
    bc.write_bytes(b"BC\xc0\xde" + bytes(range(256)) * 4)
    with pytest.raises(InputError, match=r"t\.bc: cannot read LLVM bitcode .*newer than 19"):
        read_module([bc])


@needs_tools
def test_without_the_helper_llvm_inputs_are_bad_input_naming_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("ANDERSEN_CXX", "g++-that-is-not-installed")
    monkeypatch.setenv("ANDERSEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(inputs.build_reader, "installed", lambda *args: None)  # as if the install had not built it
    bc = compile_source(LLVM_DIR / "call_indirect.c", tmp_path)
    assert inputs.reader() == (None, "no C++ compiler (g++-that-is-not-installed)")
    with pytest.raises(InputError) as err:
        extract_with_stats([bc])
    message = str(err.value)
    assert "\n" not in message and str(bc) in message and "apt-get install g++ llvm-19-dev" in message


@needs_tools
def test_access_sites_only_when_asked(reader, tmp_path):
    bc = compile_source(LLVM_DIR / "call_indirect.c", tmp_path)
    cs, stats = extract_with_stats([bc])
    assert stats.access_sites is None
    cs2, with_sites = extract_with_stats([bc], record_sites=True)
    assert _same(cs, cs2)  # recording sites makes no nodes here: every operand had one
    assert len(with_sites.access_sites) > 0 and with_sites.access_sites.function_class["main"] == "defined"


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
    assert _same(cs, extract_with_stats([bc])[0])  # the bar changes nothing else
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
        fast_extract.load(fast_extract.ExtractedModule(fast_extract.MAGIC + b"\0" * 96))   # 8 bytes past an empty module
