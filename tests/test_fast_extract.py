"""read_bitcode --extract (constraints/llvm/reader/extract.cpp): the Python extractor's result, node for node.

The helper reads the program (one .bc, or .ll/.bc files it links as llvm-link-19
does), walks the module and writes the constraints and the access sites
itself; the Python extractor reading the text llvm-dis-19/llvm-link-19 print is
the oracle. Every program of tests/llvm (as bitcode and as IR text, with the
access sites), several files linked into one, programs compiled for GPU
targets (address spaces 1, 3, 4, 5) and a small generated program
(bench/extract_speed.py's) must give the same ConstraintSet (ids, names,
locations, constraint order), the same statistics and the same access sites.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

from constraints.errors import InputError
from constraints.llvm import extract_text, extract_with_stats, fast_extract
from constraints.llvm.inputs import compile_source, module_text, read_module

LLVM_DIR = Path(__file__).parent / "llvm"
PROGRAMS = sorted(LLVM_DIR.glob("*.c")) + sorted(LLVM_DIR.glob("*.cc"))
IR_PROGRAMS = sorted(LLVM_DIR.glob("*.ll"))
STATS = ("instructions", "opcodes", "functions_defined", "functions_declared", "globals", "unmodelled_calls",
         "unknown_instructions", "inline_asm", "wrapper_calls", "alias_checks", "node_kinds", "constraints")
needs_tools = pytest.mark.skipif(any(shutil.which(t) is None for t in ("clang-19", "opt-19")),
                                 reason="clang-19/opt-19 not installed")


def assert_same_as_python(paths: list, sites: bool = True) -> None:
    """The helper's extraction of ``paths`` (with access sites) is the Python extractor's
    on the text of the same module (llvm-dis-19 of one .bc, else llvm-link-19 -S)."""
    module, names = read_module(paths, reader="fast", sites=sites)
    assert isinstance(module, fast_extract.ExtractedModule), module.extract_skipped
    text, _ = module_text(paths, reader="tools")
    cs1, st1 = extract_text(text, names, record_sites=sites)
    cs2, st2 = fast_extract.load(module, names)
    assert cs1 == cs2
    assert cs1.names == cs2.names
    assert cs1.locations == cs2.locations
    for f in STATS:
        assert getattr(st1, f) == getattr(st2, f), f
    if sites:
        for f in dataclasses.fields(st1.access_sites):
            assert getattr(st1.access_sites, f.name) == getattr(st2.access_sites, f.name), f.name
    else:
        assert st2.access_sites is None


@needs_tools
@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.name)
def test_same_as_python_extractor(src, reader, tmp_path):
    bc = compile_source(src, tmp_path, ["-I", str(src.parent)])
    assert_same_as_python([bc])
    ll = tmp_path / f"{src.stem}.ll"  # the same module as IR text: parsed and linked by the helper
    subprocess.run(["llvm-dis-19", str(bc), "-o", str(ll)], check=True)
    assert_same_as_python([ll])


@needs_tools
@pytest.mark.parametrize("src", IR_PROGRAMS, ids=lambda p: p.name)
def test_same_as_python_extractor_on_ir_text(src, reader):
    assert_same_as_python([src])
    assert_same_as_python([src], sites=False)


@needs_tools
def test_several_files_linked_as_llvm_link_links_them(reader, tmp_path):
    """A program split into three modules (llvm-split-19), one of them as IR text: the
    helper links them as llvm-link-19 does (same module, same constraints)."""
    if shutil.which("llvm-split-19") is None:
        pytest.skip("llvm-split-19 not installed")
    src = tmp_path / "generated.c"
    src.write_text(_bench().generate(40))
    bc = compile_source(src, tmp_path)
    subprocess.run(["llvm-split-19", "-j", "3", str(bc), "-o", str(tmp_path / "part")], check=True)
    parts = []
    for k in range(3):
        p = tmp_path / f"part{k}"
        parts.append(p.rename(p.with_suffix(".bc")))
    subprocess.run(["llvm-dis-19", str(parts[1]), "-o", str(parts[1].with_suffix(".ll"))], check=True)
    parts[1] = parts[1].with_suffix(".ll")
    assert_same_as_python(parts)
    cs, stats = extract_with_stats(parts)
    whole, whole_stats = extract_with_stats([bc])
    assert stats.instructions == whole_stats.instructions and cs.n_nodes == whole.n_nodes


GPU_TARGETS = ("amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda")


@needs_tools
@pytest.mark.parametrize("target", GPU_TARGETS)
@pytest.mark.parametrize("name", ["call_indirect.c", "gep_nested_struct.c", "gep_variable_byte_offset.c",
                                  "addrspace_pointers.c", "varargs_sum.c", "atomic_xchg.c",
                                  "struct_assign_llvm_memcpy.c", "global_init_constexpr.c"])
def test_gpu_targets_address_spaces(name, target, reader, tmp_path):
    """Compiled for a GPU target (allocas in addrspace(5), globals in 1, generic pointers
    cast in between): pointers of every address space are pointers, the same on both paths."""
    raw, bc = tmp_path / "p.O0.bc", tmp_path / "p.bc"
    res = subprocess.run(["clang-19", f"--target={target}", "-nogpulib", "-O0", "-g", "-fno-discard-value-names",
                          "-Xclang", "-disable-O0-optnone", "-emit-llvm", "-c", "-I", str(LLVM_DIR),
                          str(LLVM_DIR / name), "-o", str(raw)], capture_output=True, text=True)
    if res.returncode != 0 and "target" in res.stderr and ("unknown" in res.stderr or "no available" in res.stderr):
        pytest.skip(f"clang-19 has no {target} target here")
    assert res.returncode == 0, res.stderr
    subprocess.run(["opt-19", "-passes=mem2reg", str(raw), "-o", str(bc)], check=True)
    assert_same_as_python([bc])


def _bench():
    bench_file = LLVM_DIR.parent.parent / "bench" / "extract_speed.py"  # its generate(), not a package
    spec = importlib.util.spec_from_file_location("extract_speed", bench_file)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


@needs_tools
@pytest.mark.parametrize("seed", [1, 2])
def test_generated_program(seed, reader, tmp_path):
    src = tmp_path / "generated.c"
    src.write_text(_bench().generate(150, seed))
    assert_same_as_python([compile_source(src, tmp_path)])


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
    _, with_sites = extract_with_stats([bc], record_sites=True)
    assert isinstance(read_module([bc], sites=True)[0], fast_extract.ExtractedModule)
    assert with_sites.access_sites is not None and len(with_sites.access_sites) > 0


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
