"""What LLVM's hoisting, sinking and merging transforms do to CUDA kernels with and without our facts.

Usage::

    python3 bench/cuda_transforms.py [PROGRAM ...] [--out bench/results/cuda-transforms] [--ptx .cuda-ptx]

For each program of ``tests/cuda`` (default: all), compiled without its alias assertions
(``-DANDERSEN_NO_ALIAS_ASSERTIONS``):

1. the device module's IR as clang-19 gives it (``plain``) and the same IR with our
   scoped-noalias metadata (``annotated``: ``annotate``, host and device analysed together);
   clang's ``-O0`` marks every function ``noinline``, which is dropped so that the
   optimisation pipelines inline as they would from ``-O3``;
2. each transform that hoists, sinks or merges memory operations across branches (the
   public relatives of PCFM's merging step), run alone on both after the same clean-up
   (``sroa,early-cse,simplifycfg,instcombine``), and the full ``default<O3>`` pipeline:
   the change in the kernels' instructions, loads, stores, blocks and conditional branches,
   and the optimisation remarks of licm and gvn (Debian's LLVM 19 is built without
   ``-stats``, so the counts come from the IR before and after);
3. four device builds per program, each compiled to PTX with ``llc-19 -march=nvptx64
   -mcpu=sm_90``: ``plain-O3``, ``annotated-O3``, and with the merging transforms run before
   O3 (``plain-merge``, ``annotated-merge``: ``simplifycfg`` with hoisting and sinking of
   common instructions, ``mldst-motion``, ``gvn-hoist``, ``gvn-sink``); and each build again
   with per-thread basic-block counters (``.bbv.ptx``) for seed 003's BBV metric;
4. aa-eval on the device IR, kernels only: how many of their (load, store) and (store, store)
   pairs are NoAlias under ``basic-aa``, and with our metadata;
5. ``manifest.json`` beside the PTX: the kernels, their launch plans with fixed inputs, and
   the blocks' instruction counts, for ``bench/cuda_device_run.py`` on a GPU machine.

Writes ``OUT.csv`` and ``OUT.md`` (machine, date, commit) and the PTX folder (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PROGRAMS_DIR = ROOT / "tests" / "cuda"
OPT, LLC = "opt-19", "llc-19"
CLEANUP = "function(sroa,early-cse,simplifycfg,instcombine)"
#: the transforms measured one at a time (after CLEANUP), and the full pipeline
TRANSFORMS = {
    "simplifycfg-hoist": "function(simplifycfg<hoist-common-insts>)",
    "simplifycfg-sink": "function(simplifycfg<sink-common-insts>)",
    "mldst-motion": "function(mldst-motion)",
    "gvn-hoist": "function(gvn-hoist)",
    "gvn-sink": "function(gvn-sink)",
    "licm": "function(loop-mssa(licm))",
    "dse": "function(dse)",
    "gvn": "function(gvn)",
    "O3": "default<O3>",
}
MERGE = ("function(sroa,early-cse,simplifycfg,instcombine,simplifycfg<hoist-common-insts;sink-common-insts>,"
         "mldst-motion,gvn-hoist,gvn-sink),default<O3>")
BUILDS = {"plain-O3": ("plain", "default<O3>"), "annotated-O3": ("annotated", "default<O3>"),
          "plain-merge": ("plain", MERGE), "annotated-merge": ("annotated", MERGE)}
#: before every pipeline: only the kernels and the variables the host sets stay visible,
#: so that the device functions of the CUDA headers that nothing calls are dropped
INTERNALIZE = "internalize,globaldce"
REMARKS = "licm|gvn"
_KERNEL = re.compile(r'^!\d+ = !\{ptr @("[^"]+"|[-\w$.]+), !"kernel", i32 1\}$', re.M)


# ------------------------------------------------------------------ launch plans
def _buf(name, dtype, count, init="zeros", **kw):
    return {"name": name, "dtype": dtype, "count": count, "init": init, **kw}


def _launch(kernel, grid, block, *args):
    return {"launch": kernel, "grid": list(grid), "block": list(block), "args": list(args)}


def _i32(v):
    return {"i32": int(v)}


def _u32(v):
    return {"u32": int(v)}


def _f32(v):
    return {"f32": float(v)}


def plans() -> dict[str, dict]:
    """Fixed inputs and the launches of every program (the host code of tests/cuda, in data).

    Buffers: ``init`` is ``zeros``, ``arange``, ``const`` (``value``), ``int`` (uniform in
    [``low``, ``high``)) or ``float`` (uniform in [``low``, ``high``)), each from its own
    seeded generator, then ``set``: ``[index, value]`` pairs. Steps: ``launch`` (arguments are
    buffer names, ``{"i32": v}``/``{"u32": v}``/``{"f32": v}`` or ``{"var": name}``), ``fill``,
    ``symbol`` (copy values, or a buffer's address with ``pointer_to``, into a ``__device__`` or
    ``__constant__`` variable), ``scan`` (exclusive prefix sum of one buffer into another on the
    host; ``total`` names a variable) and ``until_zero`` (repeat ``steps`` until a one-element
    buffer reads 0, at most ``max`` times).
    """
    out = {}
    n = 4096
    out["bfs"] = {
        "buffers": [_buf("start", "int32", n, "arange"), _buf("degree", "int32", n, "int", low=0, high=5),
                    _buf("edges", "int32", 4 * n, "int", low=0, high=n),
                    _buf("mask", "int8", n, set=[[0, 1]]), _buf("updating", "int8", n),
                    _buf("visited", "int8", n, set=[[0, 1]]), _buf("cost", "int32", n, "const", value=-1, set=[[0, 0]]),
                    _buf("revisits", "int32", n), _buf("over", "int32", 1)],
        "steps": [{"until_zero": "over", "max": 200, "steps": [
            {"fill": "over", "value": 0},
            _launch("bfs_expand", (n // 256,), (256,), "start", "degree", "edges", "mask", "updating", "visited",
                    "cost", "revisits", _i32(n)),
            _launch("bfs_mark", (n // 256,), (256,), "mask", "updating", "visited", "over", "cost", _i32(n))]}]}
    rows = cols = 256
    steps, src, dst = [], "t0", "t1"
    for _ in range(10):
        steps.append(_launch("hotspot", (cols // 16, rows // 16), (16, 16), "power", src, dst, _i32(rows), _i32(cols),
                             _f32(0.5), _f32(1.0), _f32(1.0), _f32(4.0), _f32(0.01)))
        src, dst = dst, src
    out["hotspot"] = {"buffers": [_buf("power", "float32", rows * cols, "float", low=0, high=1),
                                  _buf("t0", "float32", rows * cols, "float", low=320, high=330),
                                  _buf("t1", "float32", rows * cols)], "steps": steps}
    rows, cols = 64, 4096
    steps, src, dst = [], "r0", "r1"
    for r in range(1, rows):
        steps.append(_launch("pathfinder_row", (cols // 256,), (256,), "wall", src, dst, _i32(cols), _i32(r)))
        src, dst = dst, src
    out["pathfinder"] = {"buffers": [_buf("wall", "int32", rows * cols, "int", low=0, high=10),
                                     _buf("r0", "int32", cols, "int", low=0, high=10), _buf("r1", "int32", cols)],
                         "steps": steps}
    n, penalty = 1024, 2
    w = n + 1
    border = sorted({(k, -(k % w if k < w else k // w) * penalty) for i in range(w) for k in (i, i * w)})
    out["needle"] = {
        "buffers": [_buf("score", "int32", w * w, set=[list(b) for b in border]),
                    _buf("a", "int32", n, "int", low=0, high=1 << 24), _buf("b", "int32", n, "int", low=0, high=1 << 24)],
        "steps": [{"symbol": "c_blosum", "dtype": "int32",
                   "values": [5 if a == b else 1 + (a + b) % 3 for a in range(4) for b in range(4)]}]
        + [_launch("_Z15needle_diagonalPiPKiS1_iii", (n // 128,), (128,), "score", "a", "b", _i32(n), _i32(d),
                   _i32(penalty)) for d in range(2, 2 * n + 1)]}
    rows = cols = 256
    srad_args = ("J", "N", "S", "W", "E", "C", _i32(rows), _i32(cols))
    out["srad"] = {
        "buffers": [_buf("J", "float32", rows * cols, "float", low=1, high=2)]
        + [_buf(x, "float32", rows * cols) for x in "NSWEC"],
        "steps": [{"symbol": "c_q0sqr", "dtype": "float32", "values": [0.05]},
                  {"symbol": "c_lambda", "dtype": "float32", "values": [0.5]}]
        + [_launch(k, (rows * cols // 256,), (256,), *srad_args)
           for _ in range(4) for k in ("srad_coefficients", "srad_update")]}
    inputs, hidden = 256, 16
    out["backprop"] = {
        "buffers": [_buf("input", "float32", inputs, "float", low=0, high=1),
                    _buf("weights", "float32", inputs * hidden, "float", low=-1, high=1),
                    _buf("old", "float32", inputs * hidden), _buf("partial", "float32", inputs),
                    _buf("delta", "float32", hidden, "float", low=0, high=0.1)],
        "steps": [{"symbol": "d_hidden_delta", "pointer_to": "delta"},
                  _launch("layer_forward", (1, inputs // hidden), (hidden, hidden), "input", "weights", "partial"),
                  _launch("adjust_weights", (1, inputs // hidden), (hidden, hidden), "delta", "input", "weights", "old",
                          _f32(0.3), _f32(0.3))]}
    n, tile = 1 << 14, 512
    steps = [_launch("_Z12bitonic_tileIjEvPT_", (n // tile,), (tile // 2,), "keys")]
    k = 2 * tile
    while k <= n:
        j = k >> 1
        while j > 0:
            steps.append(_launch("_Z12bitonic_stepIjEvPT_Pjjj", (n // 256,), (256,), "keys", "swaps", _u32(j), _u32(k)))
            j >>= 1
        k <<= 1
    out["bitonic"] = {"buffers": [_buf("keys", "uint32", n, "int", low=0, high=1 << 24), _buf("swaps", "uint32", n)],
                      "steps": steps}
    n = 1 << 14
    steps, src, dst = [], 0, 1
    for bit in range(16):
        steps += [_launch("radix_flags", (n // 256,), (256,), f"keys{src}", "flags", _i32(bit), _i32(n)),
                  {"scan": "flags", "into": "scan", "total": "zeros"},
                  _launch("radix_scatter", (n // 256,), (256,), f"keys{src}", f"keys{dst}", f"vals{src}", f"vals{dst}",
                          "scan", {"var": "zeros"}, _i32(bit), _i32(n))]
        src, dst = dst, src
    out["radix"] = {"buffers": [_buf("keys0", "uint32", n, "int", low=0, high=1 << 16), _buf("keys1", "uint32", n),
                                _buf("vals0", "uint32", n, "arange"), _buf("vals1", "uint32", n),
                                _buf("flags", "uint32", n), _buf("scan", "uint32", n)], "steps": steps}
    return out


# ------------------------------------------------------------------ IR helpers
def kernel_names(text: str) -> list[str]:
    """The kernels of a device module (its ``nvvm.annotations`` entries), in order."""
    return [n.strip('"') for n in _KERNEL.findall(text)]


def allow_inlining(text: str) -> str:
    """``text`` without the ``noinline`` clang's -O0 puts on every function (attribute groups only)."""
    return re.sub(r"^(attributes #\d+ = \{.*?) noinline(.*)$", r"\1\2", text, flags=re.M)


def host_visible(text: str) -> list[str]:
    """The kernels and the ``__device__``/``__constant__`` variables of a device module: what
    the host refers to by name."""
    names = kernel_names(text)
    names += [m.strip('"') for m in re.findall(r"^@(\S+) = (?:dso_local )?addrspace\([14]\) externally_initialized ",
                                                text, re.M)]
    return names


def prepare_for_pipelines(text: str, work: Path, tag: str) -> str:
    """``text`` ready for the pipelines: inlinable, without debug information, and with everything
    but :func:`host_visible` internal."""
    keep = ",".join(host_visible(text))
    return run_opt(allow_inlining(text), INTERNALIZE, work, f"{tag}.internalize",
                   [f"-internalize-public-api-list={keep}", "-strip-debug"])[0]


def kernel_counts(text: str, kernels) -> dict[str, Counter]:
    """Per kernel: instructions, loads, stores, blocks and conditional branches of its body."""
    from constraints.llvm.access_sites import function_bodies, opcode_of, walk_function

    lines = text.split("\n")
    out = {}
    for fname, start, end, entry in function_bodies(lines):
        if fname.strip('"') not in kernels:
            continue
        c: Counter = Counter()
        blocks = set()
        for block, _, li in walk_function(lines, start, end, entry):
            op = opcode_of(lines[li])
            blocks.add(block)
            c["instructions"] += 1
            if op in ("load", "store"):
                c[op + "s"] += 1
            elif op == "br" and lines[li].lstrip().startswith("br i1"):
                c["cond_branches"] += 1
        c["blocks"] = len(blocks)
        out[fname.strip('"')] = c
    return out


def block_sizes(text: str, kernel: str) -> list[int]:
    """The instruction count of each block of ``kernel``, in block order (BBV's weights)."""
    from constraints.llvm.access_sites import function_bodies, walk_function

    lines = text.split("\n")
    for fname, start, end, entry in function_bodies(lines):
        if fname.strip('"') == kernel:
            sizes: dict[str, int] = {}
            for block, _, _ in walk_function(lines, start, end, entry):
                sizes[block] = sizes.get(block, 0) + 1
            return list(sizes.values())
    raise KeyError(kernel)


def run_opt(text: str, passes: str, work: Path, tag: str, extra=()) -> tuple[str, Counter]:
    """``opt-19 -passes=PASSES`` on ``text``: the result and the counts of licm/gvn remarks by name."""
    src, dst, yaml = work / f"{tag}.in.ll", work / f"{tag}.out.ll", work / f"{tag}.remarks.yaml"
    src.write_text(text)
    subprocess.run([OPT, f"-passes={passes}", f"-pass-remarks-output={yaml}", f"-pass-remarks-filter={REMARKS}",
                    *extra, "-S", str(src), "-o", str(dst)], check=True, capture_output=True, text=True)
    remarks = Counter()
    if yaml.exists():
        for m in re.finditer(r"^--- !Passed\nPass:\s+(\S+)\nName:\s+(\S+)", yaml.read_text(), re.M):
            remarks[f"{m.group(1)}:{m.group(2)}"] += 1
    return dst.read_text(), remarks


def instrument_bbv(text: str, kernels: list[str]) -> tuple[str, dict[str, dict]]:
    """``text`` (optimised IR) with a per-thread counter of every block of every kernel.

    Kernel ``k`` (k-th in ``kernels``) gets ``@__bbv_k``, a device pointer the host sets to an
    int32 array ``[threads of the launch][blocks of the kernel]``; each block's first
    non-phi instruction is preceded by ``row[block] += 1``, ``row`` being the thread's row
    (linear thread id of the grid, block-major). Returns the text and, per kernel, its
    counter variable, block count and the blocks' instruction counts (without the counters).
    """
    from constraints.llvm.access_sites import function_bodies

    lines = text.split("\n")
    info = {}
    inserts: dict[int, list[str]] = {}
    globals_ = []
    for fname, start, end, _ in function_bodies(lines):
        name = fname.strip('"')
        if name not in kernels:
            continue
        k = kernels.index(name)
        sizes = block_sizes(text, name)
        var = f"__bbv_{k}"
        info[name] = {"counter": var, "blocks": len(sizes), "block_instructions": sizes}
        globals_.append(f"@{var} = addrspace(1) externally_initialized global ptr addrspace(1) null, align 8")
        sreg = [f"  %bbv.{r} = call i32 @llvm.nvvm.read.ptx.sreg.{r.replace('_', '.')}()"
                for r in ("tid_x", "tid_y", "tid_z", "ntid_x", "ntid_y", "ntid_z", "ctaid_x", "ctaid_y", "ctaid_z",
                          "nctaid_x", "nctaid_y")]
        setup = sreg + [
            "  %bbv.t0 = mul i32 %bbv.tid_z, %bbv.ntid_y", "  %bbv.t1 = add i32 %bbv.t0, %bbv.tid_y",
            "  %bbv.t2 = mul i32 %bbv.t1, %bbv.ntid_x", "  %bbv.t = add i32 %bbv.t2, %bbv.tid_x",
            "  %bbv.b0 = mul i32 %bbv.ctaid_z, %bbv.nctaid_y", "  %bbv.b1 = add i32 %bbv.b0, %bbv.ctaid_y",
            "  %bbv.b2 = mul i32 %bbv.b1, %bbv.nctaid_x", "  %bbv.b = add i32 %bbv.b2, %bbv.ctaid_x",
            "  %bbv.s0 = mul i32 %bbv.ntid_x, %bbv.ntid_y", "  %bbv.s = mul i32 %bbv.s0, %bbv.ntid_z",
            "  %bbv.bw = zext i32 %bbv.b to i64", "  %bbv.sw = zext i32 %bbv.s to i64", "  %bbv.tw = zext i32 %bbv.t to i64",
            "  %bbv.g0 = mul i64 %bbv.bw, %bbv.sw", "  %bbv.g = add i64 %bbv.g0, %bbv.tw",
            f"  %bbv.o = mul i64 %bbv.g, {len(sizes)}",
            f"  %bbv.base = load ptr addrspace(1), ptr addrspace(1) @{var}, align 8",
            "  %bbv.row = getelementptr inbounds i32, ptr addrspace(1) %bbv.base, i64 %bbv.o"]
        block, first = -1, True
        li = start
        while li < end:
            line = lines[li]
            is_label = line[:2] != "  " and re.match(r'("(?:[^"\\]|\\.)*"|[-\w$.]+):', line)
            if is_label or li == start:
                block += 1
                j = li + 1 if is_label else li
                while j < end and (re.match(r"\s+%\S+ = phi ", lines[j]) or not lines[j].strip()
                                   or lines[j].lstrip().startswith(";")):
                    j += 1
                code = (setup if first else []) + [
                    f"  %bbv.p{block} = getelementptr inbounds i32, ptr addrspace(1) %bbv.row, i64 {block}",
                    f"  %bbv.v{block} = load i32, ptr addrspace(1) %bbv.p{block}, align 4",
                    f"  %bbv.n{block} = add i32 %bbv.v{block}, 1",
                    f"  store i32 %bbv.n{block}, ptr addrspace(1) %bbv.p{block}, align 4"]
                inserts.setdefault(j, []).extend(code)
                first = False
                li = j
                continue
            li += 1
    out = []
    for i, line in enumerate(lines):
        out.extend(inserts.get(i, ()))
        out.append(line)
    declared = set(re.findall(r"^declare [^@]*@(llvm\.nvvm\.read\.ptx\.sreg\.[\w.]+)\(", text, re.M))
    for r in ("tid", "ntid", "ctaid", "nctaid"):
        for axis in "xyz":
            name = f"llvm.nvvm.read.ptx.sreg.{r}.{axis}"
            if name not in declared:
                out.append(f"declare i32 @{name}()")
    at = next(i for i, ln in enumerate(out) if ln.startswith(("define ", "@", "declare ")))
    out[at:at] = globals_
    return "\n".join(out), info


def llc(text: str, work: Path, tag: str) -> str:
    """PTX of ``text`` (``llc-19 -march=nvptx64 -mcpu=sm_90 -O3``)."""
    src, dst = work / f"{tag}.ll", work / f"{tag}.ptx"
    src.write_text(text)
    subprocess.run([LLC, "-march=nvptx64", "-mcpu=sm_90", "-O3", str(src), "-o", str(dst)], check=True,
                   capture_output=True, text=True)
    return dst.read_text()


# ------------------------------------------------------------------ one program
def measure(src: Path, ptx_dir: Path, work: Path, backend: str) -> tuple[list[dict], dict]:
    """The rows of the table for one program, and its manifest entry (PTX files written)."""
    from constraints.llvm import cuda

    from andersen_gpu.aliasfacts import analyze
    from andersen_gpu.aliasfacts.annotate import annotate_text

    program = cuda.prepare([src], work, ["-DANDERSEN_NO_ALIAS_ASSERTIONS"])
    text = cuda.device_text(program)
    facts, _, _, _ = analyze([program.combined], backend=backend)
    annotated, stats = annotate_text(text, facts, part=True)
    kernels = kernel_names(text)
    pairs = aa_eval_pairs(text, annotated, kernels, work)
    ir = {"plain": prepare_for_pipelines(text, work, "plain"),
          "annotated": prepare_for_pipelines(annotated, work, "annotated")}
    cleaned = {k: run_opt(v, CLEANUP, work, f"{k}.cleanup")[0] for k, v in ir.items()}
    rows = []
    for tname, passes in TRANSFORMS.items():
        for variant in ("plain", "annotated"):
            before_text = ir[variant] if tname == "O3" else cleaned[variant]
            after, remarks = run_opt(before_text, passes, work, f"{variant}.{tname}")
            before, now = kernel_counts(before_text, kernels), kernel_counts(after, kernels)
            for kernel in kernels:
                row = {"program": src.stem, "kernel": kernel, "transform": tname,
                       "facts": "ours" if variant == "annotated" else "plain"}
                for key in ("instructions", "loads", "stores", "blocks", "cond_branches"):
                    row[key] = now[kernel][key]
                    row[f"d_{key}"] = now[kernel][key] - before[kernel][key]
                row["remarks"] = ";".join(f"{k}={v}" for k, v in sorted(remarks.items()))
                rows.append(row)
    folder = ptx_dir / src.stem
    folder.mkdir(parents=True, exist_ok=True)
    builds = {}
    for build, (variant, passes) in BUILDS.items():
        optimised, _ = run_opt(ir[variant], passes, work, f"build.{build}")
        (folder / f"{build}.ptx").write_text(llc(optimised, work, build))
        counted, info = instrument_bbv(optimised, kernels)
        (folder / f"{build}.bbv.ptx").write_text(llc(counted, work, f"{build}.bbv"))
        builds[build] = {"ptx": f"{src.stem}/{build}.ptx", "bbv_ptx": f"{src.stem}/{build}.bbv.ptx", "kernels": info}
    entry = {**plans()[src.stem], "kernels": kernels, "builds": builds,
             "annotated_accesses": stats.annotated, "accesses": stats.accesses}
    for row in rows:
        row.update(pairs[row["kernel"]])
    return rows, entry


def aa_eval_pairs(text: str, annotated: str, kernels: list[str], work: Path) -> dict[str, dict]:
    """Per kernel: its (load, store) and (store, store) pairs, and how many are NoAlias under
    ``basic-aa`` on the device IR and under ``basic-aa,scoped-noalias-aa`` with our metadata."""
    from andersen_gpu.aliasfacts.aaeval import load_store_pairs

    out = {k: {"aa_pairs": 0, "noalias_basic": 0, "noalias_ours": 0} for k in kernels}
    for tag, ir, pipeline in (("basic", text, "basic-aa"), ("ours", annotated, "basic-aa,scoped-noalias-aa")):
        path = work / f"aa-eval.{tag}.ll"
        path.write_text(ir)
        for p in load_store_pairs(path, pipeline):
            if p.function in out:
                out[p.function]["aa_pairs"] += tag == "basic"
                out[p.function][f"noalias_{tag}"] += p.verdict == "NoAlias"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="*", help="programs of tests/cuda (default: all)")
    ap.add_argument("--out", default=str(ROOT / "bench/results/cuda-transforms"))
    ap.add_argument("--ptx", default=str(ROOT / ".cuda-ptx"), help="folder for the PTX and manifest.json")
    ap.add_argument("--backend", default="reference", help="solver for the analysis")
    args = ap.parse_args(argv)
    from bench._env import commit

    head = commit()  # before anything is written (a rewritten results file would read as +dirty)
    names = args.programs or [p.stem for p in sorted(PROGRAMS_DIR.glob("*.cu"))]
    ptx_dir = Path(args.ptx)
    ptx_dir.mkdir(parents=True, exist_ok=True)
    rows, manifest = [], {"programs": {}}
    with tempfile.TemporaryDirectory(prefix="cuda-transforms-") as tmp:
        for name in names:
            print(f"{name} ...", file=sys.stderr, flush=True)
            work = Path(tmp) / name
            work.mkdir()
            got, entry = measure(PROGRAMS_DIR / f"{name}.cu", ptx_dir, work, args.backend)
            rows += got
            manifest["programs"][name] = entry
    from bench._env import host, today

    manifest.update(commit=head, date=today(), machine=host(), reference_build="plain-O3")
    (ptx_dir / "manifest.json").write_text(json.dumps(manifest, separators=(",", ":")))
    write(rows, args, argv if argv is not None else sys.argv[1:], head)
    return 0


def write(rows: list[dict], args, argv, head: str) -> None:
    import pandas as pd

    from bench._env import host, markdown_table, today

    df = pd.DataFrame(rows)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out.with_suffix(".csv"), index=False)
    keys = ["d_instructions", "d_loads", "d_stores", "d_blocks", "d_cond_branches"]
    summary = pd.DataFrame({"transform": list(TRANSFORMS)})
    for k in keys:
        for facts in ("plain", "ours"):
            sums = df[df.facts == facts].groupby("transform")[k].sum()
            summary[f"{k} {facts}"] = [int(sums.get(t, 0)) for t in TRANSFORMS]
    o3 = df[df["transform"] == "O3"]
    o3_rows = []
    for (p, k), g in o3.groupby(["program", "kernel"], sort=False):
        by = {f: g[g.facts == f].iloc[0] for f in ("plain", "ours")}
        o3_rows.append({"program": p, "kernel": k, **{f"{c} {f}": int(by[f][c])
                                                       for c in ("loads", "stores", "blocks", "cond_branches")
                                                       for f in ("plain", "ours")}})
    o3_rows = pd.DataFrame(o3_rows)
    differs = df.groupby(["program", "kernel", "transform"])[keys + ["remarks"]].nunique().max(axis=1) > 1
    aa = (df[(df["transform"] == "O3") & (df.facts == "plain")].groupby("program", sort=False)
          [["aa_pairs", "noalias_basic", "noalias_ours"]].sum().reset_index())
    md = ["# CUDA kernels: LLVM's hoisting, sinking and merging transforms with and without our facts", "",
          f"- command: `python3 bench/cuda_transforms.py {' '.join(argv)}`",
          f"- machine: {host()}; opt-19/llc-19 (Debian LLVM 19); analysis backend {args.backend}",
          f"- commit: {head}, {today()}",
          f"- programs: {', '.join(sorted(df.program.unique()))} (tests/cuda, without their alias assertions); "
          f"{df.kernel.nunique()} kernels",
          "- `plain`: the device IR as clang-19 -O0 (+mem2reg) gives it, without TBAA or noalias; `ours`: the same "
          "IR with our !alias.scope/!noalias. Each transform runs alone after "
          f"`{CLEANUP}`; `O3` is `default<O3>` from the IR itself. `d_*`: change over all kernels "
          "(after minus before; merged or deleted memory operations show as negative loads/stores).",
          "", "## Change per transform, summed over the kernels", "", markdown_table(summary), "",
          f"Transform runs whose result differs with our metadata: {int(differs.sum())} of {len(differs)} "
          "(kernel, transform) pairs.", "",
          "## Kernels after O3", "", markdown_table(o3_rows), "",
          "## aa-eval on the device IR, kernels only", "",
          "(load, store) and (store, store) pairs of the kernels; NoAlias under `basic-aa` on the device IR, "
          "and under `basic-aa,scoped-noalias-aa` on the annotated IR.", "", markdown_table(aa), "",
          "licm/gvn remarks per run are in the CSV (`remarks`).", ""]
    out.with_suffix(".md").write_text("\n".join(md))


if __name__ == "__main__":
    sys.exit(main())
