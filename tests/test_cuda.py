"""CUDA programs (tests/cuda/*.cu): host and device analysed together, facts in the device IR.

Each program is compiled once per session for the host and the device (clang-19 -x cuda,
``constraints.llvm.cuda``), linked by ``cuda_link``, extracted and solved. Checked:

* the alias assertions in its device and host code, on every backend (gpu with ``-m gpu``);
* every pointer parameter of every kernel receives what the host launches it with;
* nothing is called without a model;
* the device IR annotated by ``annotate`` gives aa-eval's NoAlias exactly where our location
  sets are disjoint (as tests/test_annotate.py checks for CPU programs).

Everything here skips when clang-19 cannot compile CUDA here (no CUDA 12.x headers: ``pip
install '.[cuda]'``) or the helper cannot be built. A GPU machine without clang checks
extractions made elsewhere: ``python3 -m tests.test_cuda --write-extracts DIR`` (from the
checkout's root), then ``ANDERSEN_LLVM_EXTRACTS=DIR`` (as tests/test_llvm_aliases.py).
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import re
import sys
from pathlib import Path

import pytest

from andersen_gpu.commands.check_aliases import check_extracted

HERE = Path(__file__).resolve().parent / "cuda"
PROGRAMS = sorted(HERE.glob("*.cu"))
BACKENDS = (["reference"] + (["cpu"] if importlib.util.find_spec("andersen_gpu.backends.cpu") else [])
            + [pytest.param("gpu", marks=pytest.mark.gpu)])
EXTRACTS_ENV = "ANDERSEN_LLVM_EXTRACTS"
_KERNEL = re.compile(r'^!\d+ = !\{ptr @("[^"]+"|[-\w$.]+), !"kernel", i32 1\}$', re.M)


def _why_not() -> str | None:
    from constraints.llvm import cuda

    return cuda.available()


def _compile(src: Path, workdir: Path) -> dict:
    """Compile, link and extract one program: its paths, device text and extraction."""
    from constraints.llvm import cuda, extract_with_stats

    sub = workdir / src.stem
    sub.mkdir()
    program = cuda.prepare([src], sub)
    cs, stats = extract_with_stats([program.combined])
    return {"program": program, "device_text": cuda.device_text(program), "extract": (str(src), cs, stats)}


@pytest.fixture(scope="session")
def compiled(tmp_path_factory):
    """Each program's compile and extraction, made on first use and kept for the session
    (only the extraction when read from ``$ANDERSEN_LLVM_EXTRACTS``)."""
    out = tmp_path_factory.mktemp("cuda-tests")
    saved = os.environ.get(EXTRACTS_ENV)
    cache: dict[Path, dict] = {}

    def get(src: Path, need_ir: bool = False) -> dict:
        if src not in cache:
            if saved and not need_ir:
                cache[src] = {"extract": pickle.loads((Path(saved) / f"{src.name}.pkl").read_bytes())}
            else:
                why = _why_not()
                if why is not None:
                    pytest.skip(f"CUDA programs cannot be compiled here: {why}")
                cache[src] = _compile(src, out)
        return cache[src]
    return get


def kernels(device_text: str) -> dict[str, list[str]]:
    """Kernel name -> names of its pointer parameters (``ptr`` or ``ptr byval``)."""
    out = {}
    for name in _KERNEL.findall(device_text):
        m = re.search(rf"^define [^\n]*@{re.escape(name)}\((.*)\) [^\n]*\{{$", device_text, re.M)
        out[name] = re.findall(r"ptr [^,%]*%([-\w$.]+)", m.group(1))
    return out


def test_eight_rodinia_style_programs():
    assert {p.stem for p in PROGRAMS} >= {"bfs", "hotspot", "pathfinder", "needle", "srad", "backprop", "bitonic",
                                          "radix"}


@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.name)
def test_program_names_its_items(src):
    assert re.search(r"Items?: \S", src.read_text()[:900]), f"{src.name}: the opening comment must name its items"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.name)
def test_alias_assertions(src, backend, compiled):
    results = check_extracted(*compiled(src)["extract"], backend)
    assert len(results) >= 4, f"{src.name} has too few alias assertions"
    failed = [f"{r['location']}: {r['kind']}({r['a']}, {r['b']}) got {'alias' if r['alias'] else 'no alias'}"
              for r in results if not r["passed"]]
    assert not failed, "\n".join(failed)
    assert all(re.search(rf"{re.escape(src.name)}:\d+$", r["location"]) for r in results)
    # assertions in device code are the point: each kernel checks some
    cs = compiled(src)["extract"][1]
    in_kernels = {cs.node_label(c.a).split(":")[0] for c in compiled(src)["extract"][2].alias_checks}
    assert any(not name.startswith(("main", "@")) for name in in_kernels)


@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.name)
def test_kernel_parameters_receive_the_launch_arguments(src, compiled):
    from andersen_gpu import solve

    got = compiled(src, need_ir=True)
    _, cs, stats = got["extract"]
    assert not stats.unmodelled_calls, dict(stats.unmodelled_calls)
    sol = solve(cs, backend="reference")
    found = kernels(got["device_text"])
    assert found, "no kernels found in the device module"
    for kernel, params in found.items():
        for p in params:
            targets = [cs.names[z] for z in sol.points_to(f"{kernel}:%{p}")]
            assert targets, f"{kernel}: parameter %{p} points to nothing"
            # device pointers come from the host: heap objects of main or host stack slots (byval)
            assert all(t.startswith(("*main:", "*_Z", "*__device_stub__")) for t in targets), (kernel, p, targets)


@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.name)
def test_annotated_device_ir_matches_facts(src, compiled, tmp_path):
    from andersen_gpu.aliasfacts import analyze
    from andersen_gpu.aliasfacts.aaeval import load_store_pairs, strip_metadata
    from andersen_gpu.aliasfacts.annotate import annotate_text, site_lines

    got = compiled(src, need_ir=True)
    text = got["device_text"]
    facts, _, _, _ = analyze([got["program"].combined], backend="reference")
    annotated, stats = annotate_text(text, facts, part=True)
    assert stats.annotated > 0 and stats.unknown == 0
    path = tmp_path / f"{src.stem}.device.annotated.ll"
    path.write_text(annotated)
    lines = text.split("\n")
    by_text: dict[tuple[str, str], list[int]] = {}
    for fname, line_of in site_lines(lines, facts, part=True).items():
        for i, li in line_of.items():
            by_text.setdefault((fname, strip_metadata(lines[li])), []).append(i)
    pairs = [p for p in load_store_pairs(path) if (p.function, strip_metadata(p.a)) in by_text]
    wrong, no_alias = [], 0
    for p in pairs:
        a, b = by_text[(p.function, strip_metadata(p.a))], by_text[(p.function, strip_metadata(p.b))]
        expected = {not facts.may_alias(x, y) for x in a for y in b}
        assert len(expected) <= 1, f"identical lines with different facts: {p.a}"
        if len(expected) == 1 and (p.verdict == "NoAlias") != expected.pop():
            wrong.append(f"{p.function}: {p.verdict}: {p.a} <-> {p.b}")
        no_alias += p.verdict == "NoAlias"
    assert not wrong, "\n".join(wrong)
    assert no_alias > 0


def test_bad_cuda_source_is_one_line(tmp_path, capsys):
    from andersen_gpu.cli import main

    if _why_not() is not None:
        pytest.skip(_why_not())
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k(int *p) { p[0] = ; }\n")
    assert main(["extract", str(bad), "-o", str(tmp_path / "x.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.cu" in err[0] and "(host side) failed" in err[0], err
    assert not (tmp_path / "x.npz").exists()


def test_host_and_device_modules_give_the_cu_programs_constraints(compiled, tmp_path):
    """``extract HOST.bc DEVICE.bc`` (the device module found by its triple) is the ``.cu`` program."""
    from constraints.llvm import extract_with_stats

    got = compiled(PROGRAMS[0], need_ir=True)
    program = got["program"]
    cs, _ = extract_with_stats([*program.device, *program.host])
    ref = got["extract"][1]
    assert (cs.n_nodes, cs.n_constraints, cs.names) == (ref.n_nodes, ref.n_constraints, ref.names)


def test_device_module_alone_is_refused(compiled):
    from constraints.errors import InputError
    from constraints.llvm import cuda

    program = compiled(PROGRAMS[0], need_ir=True)["program"]
    with pytest.raises(InputError, match="only device modules"):
        cuda.prepare([program.device[0], program.device[0]], program.combined.parent)


def test_bbv_terms():
    sys.path.insert(0, str(HERE.parent.parent / "bench"))
    from cuda_device_run import bbv_terms

    import numpy as np

    # one thread block of 64 threads (two warps), three basic blocks of 2, 5 and 1 instructions:
    # every thread runs block 0 once; in warp 0 the even lanes run block 1 three times, the odd
    # lanes block 2 once; warp 1 runs block 2 twice on every lane
    counts = np.zeros((64, 3), np.int32)
    counts[:, 0] = 1
    counts[0:32:2, 1] = 3
    counts[1:32:2, 2] = 1
    counts[32:, 2] = 2
    got = bbv_terms(counts, [2, 5, 1], 64)
    assert got == {"bbv": 1 + 3 + 1 + 1 + 0 + 2, "bbv_weighted": 2 + 15 + 1 + 2 + 0 + 2,
                   "thread_work": 64 * 2 + 16 * 3 * 5 + 16 * 1 + 32 * 2}


def test_bench_builds_run_in_a_dry_run(tmp_path):
    """bench/cuda_transforms.py on one program, then the device script's --dry-run on its PTX."""
    if _why_not() is not None:
        pytest.skip(_why_not())
    sys.path.insert(0, str(HERE.parent.parent / "bench"))
    import cuda_device_run
    import cuda_transforms

    ptx = tmp_path / "ptx"
    assert cuda_transforms.main(["radix", "--out", str(tmp_path / "t"), "--ptx", str(ptx)]) == 0
    table = (tmp_path / "t.csv").read_text()
    assert "radix_scatter" in table and "mldst-motion" in table
    assert cuda_device_run.main(["--dry-run", "--ptx", str(ptx)]) == 0
    manifest = ptx / "manifest.json"
    broken = manifest.read_text().replace('"launch":"radix_flags"', '"launch":"radix_flag"', 1)
    manifest.write_text(broken)
    assert cuda_device_run.main(["--dry-run", "--ptx", str(ptx)]) == 1


def _fake_cupy(calls: list):
    """A stand-in for the parts of CuPy bench/cuda_device_run.py uses: arrays live on the host,
    kernels only record their launches, so that its code paths run without a GPU."""
    import types

    import numpy as np

    class Array(np.ndarray):
        @property
        def data(self):
            return types.SimpleNamespace(ptr=self.ctypes.data)

        def get(self):
            return np.asarray(self)

    class Function:
        def __init__(self, name):
            self.name = name

        def __call__(self, grid, block, args):
            assert all(isinstance(a, (Array, np.generic)) for a in args), (self.name, args)
            calls.append((self.name, grid, block, len(args)))

    class Module:
        def __init__(self, path):
            self.text = Path(path).read_text()
            self.globals = {}

        def get_function(self, name):
            assert f".entry {name}(" in self.text, name
            return Function(name)

        def get_global(self, name):
            assert re.search(rf"\.global\b[^\n]* {re.escape(name)}\b|\.const\b[^\n]* {re.escape(name)}\b",
                             self.text), name
            return self.globals.setdefault(name, np.zeros(64, np.uint8))

    class Event:
        def record(self):
            pass

    def ndarray(shape, dtype, memptr):
        return memptr[:int(np.prod(shape)) * np.dtype(dtype).itemsize].view(dtype).reshape(shape)

    cuda = types.SimpleNamespace(
        Event=Event, get_elapsed_time=lambda a, b: 0.5,
        get_current_stream=lambda: types.SimpleNamespace(synchronize=lambda: None),
        Device=lambda: types.SimpleNamespace(id=0),
        runtime=types.SimpleNamespace(getDeviceProperties=lambda i: {"name": b"stand-in"}))
    return types.SimpleNamespace(RawModule=lambda path: Module(path), ndarray=ndarray, cuda=cuda,
                                 asarray=lambda a: np.array(a).view(Array), asnumpy=lambda a: np.array(a),
                                 zeros=lambda shape, dtype: np.zeros(shape, dtype).view(Array))


@pytest.mark.parametrize("name", ["backprop", "bfs", "radix"])   # symbols; a loop until zero; host scans
def test_device_run_with_a_stand_in_for_cupy(name, tmp_path, monkeypatch):
    """Every step of cuda_device_run.py's real run, on one program's builds, with kernels that do
    nothing: outputs then equal the inputs for every build, and each launch of the plan happens."""
    if _why_not() is not None:
        pytest.skip(_why_not())
    sys.path.insert(0, str(HERE.parent.parent / "bench"))
    import cuda_device_run
    import cuda_transforms

    ptx = tmp_path / "ptx"
    assert cuda_transforms.main([name, "--out", str(tmp_path / "t"), "--ptx", str(ptx)]) == 0
    calls: list = []
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(calls))
    assert cuda_device_run.main(["--ptx", str(ptx), "--out", str(tmp_path / "run"), "--repeat", "2"]) == 0
    entry = cuda_transforms.plans()[name]
    kernels = {s["launch"] for s in cuda_device_run.launches(entry["steps"])}
    rows = (tmp_path / "run" / "cuda-device-run.csv").read_text().splitlines()
    assert len(rows) == 1 + 4 * len(kernels)          # 4 builds x the kernels
    assert all(",True," in r for r in rows[1:])
    import csv
    table = list(csv.DictReader(rows))
    assert {r["build"]: r["same_as_unannotated"] for r in table} == {
        "plain-O3": "", "plain-merge": "", "annotated-O3": "True", "annotated-merge": "True"}
    assert cuda_device_run.counterpart("annotated-merge") == "plain-merge"
    # per build: the reference run (once), the checked run, a warm-up, 2 timed runs, the counting run;
    # the kernels do nothing, so a loop until a flag is zero runs once
    per_run = len(list(cuda_device_run.launches(entry["steps"])))
    assert {c[0] for c in calls} == kernels and len(calls) == per_run * (1 + 4 * 5)


def test_device_run_cut_short_keeps_the_programs_it_finished(tmp_path, monkeypatch):
    """A run stopped during its second program (a time limit) leaves the first program's rows."""
    if _why_not() is not None:
        pytest.skip(_why_not())
    sys.path.insert(0, str(HERE.parent.parent / "bench"))
    import cuda_device_run
    import cuda_transforms

    ptx = tmp_path / "ptx"
    assert cuda_transforms.main(["backprop", "radix", "--out", str(tmp_path / "t"), "--ptx", str(ptx)]) == 0
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy([]))
    real_run = cuda_device_run.Runner.run

    def run(self, *a, **kw):
        if self.program == "radix":
            raise KeyboardInterrupt("the time limit")
        return real_run(self, *a, **kw)

    monkeypatch.setattr(cuda_device_run.Runner, "run", run)
    with pytest.raises(KeyboardInterrupt):
        cuda_device_run.main(["backprop", "radix", "--ptx", str(ptx), "--out", str(tmp_path / "run"),
                              "--repeat", "1"])
    import csv
    table = list(csv.DictReader((tmp_path / "run" / "cuda-device-run.csv").read_text().splitlines()))
    assert table and {r["program"] for r in table} == {"backprop"}


def write_extracts(folder: Path) -> int:
    """Pickle every program's extraction into ``folder`` (for ``$ANDERSEN_LLVM_EXTRACTS``)."""
    import tempfile

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        for src in PROGRAMS:
            (folder / f"{src.name}.pkl").write_bytes(pickle.dumps(_compile(src, Path(work))["extract"]))
    return len(PROGRAMS)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--write-extracts":
        sys.exit("usage: python3 -m tests.test_cuda --write-extracts DIR")
    print(f"wrote {write_extracts(Path(sys.argv[2]))} extractions to {sys.argv[2]}")
