"""Run the PTX builds of bench/cuda_transforms.py on a GPU: same outputs, run times, BBV, branch efficiency.

Usage (on the GPU machine; needs Python 3, numpy and CuPy, and ncu for ``--ncu``; no clang)::

    python3 bench/cuda_device_run.py [--ptx .cuda-ptx] [--out DIR] [--repeat 5] [--ncu] [PROGRAM ...]
    python3 bench/cuda_device_run.py --dry-run [--ptx .cuda-ptx]    # no GPU: check files and arguments

``.cuda-ptx/`` (made here by ``python3 bench/cuda_transforms.py``) holds, per program, the
PTX of four device builds (``plain-O3``, ``annotated-O3``, ``plain-merge``,
``annotated-merge``), each also with per-thread block counters (``.bbv.ptx``), and
``manifest.json``: the kernels, fixed inputs and launch plans. For every program and build
this script

1. loads the PTX with ``cupy.RawModule``, makes the inputs (seeded per buffer, the same for
   every build), runs the plan and compares every buffer afterwards, byte for byte, with
   the ``plain-O3`` build's (``same_output``), and an annotated build's with those of the
   same pipeline without our metadata (``same_as_unannotated``: ``annotated-merge`` against
   ``plain-merge``);
2. times the plan ``--repeat`` times after one warm-up: the sum of each kernel's launches
   by CUDA events (``kernel_ms``, the median), fresh inputs each time;
3. runs the ``.bbv.ptx`` build once (its outputs are checked too) and computes seed 003's
   metrics per kernel from the counts: ``bbv`` (over warps of 32 consecutive threads of a
   block, the sum over blocks of the largest count in the warp), ``bbv_weighted`` (each
   block's term times its instruction count) and ``simd_efficiency`` (thread-level weighted
   work over 32 x ``bbv_weighted``: 1.0 when no warp diverges);
4. with ``--ncu``: profiles the first ``--ncu-launches`` launches of each build under Nsight
   Compute (``smsp__sass_average_branch_targets_threads_uniform.pct``, its Branch
   Efficiency, and ``smsp__thread_inst_executed_per_inst_executed.ratio``).

Writes ``DIR/cuda-device-run.csv``, ``.json`` and ``.md`` (DIR: ``--out``, else ``$OUT``, else
``bench/results``). Exit status 1 when an annotated build's outputs differ from its
unannotated counterpart's (a build that differs from ``plain-O3`` is reported, not failed: the
merging transforms may round differently, with or without our facts).
``--dry-run`` needs neither GPU nor CuPy: it checks that every PTX file exists and defines
every kernel and variable the plans use, and packs every launch's arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
NCU_METRICS = ("smsp__sass_average_branch_targets_threads_uniform.pct",
               "smsp__thread_inst_executed_per_inst_executed.ratio")
WARP = 32


class PlanError(Exception):
    """A manifest entry that does not fit its PTX or its own buffers."""


# ------------------------------------------------------------------ inputs
def make_inputs(program: str, buffers: list[dict]) -> dict[str, np.ndarray]:
    """The host arrays of a plan's buffers (seeded by program and buffer name)."""
    out = {}
    for b in buffers:
        rng = np.random.default_rng(zlib.crc32(f"{program}/{b['name']}".encode()))
        dtype, n, init = np.dtype(b["dtype"]), int(b["count"]), b["init"]
        if init == "zeros":
            a = np.zeros(n, dtype)
        elif init == "arange":
            a = np.arange(n).astype(dtype)
        elif init == "const":
            a = np.full(n, b["value"], dtype)
        elif init == "int":
            a = rng.integers(b["low"], b["high"], n, dtype=np.int64).astype(dtype)
        elif init == "float":
            a = rng.uniform(b["low"], b["high"], n).astype(dtype)
        else:
            raise PlanError(f"{program}: buffer {b['name']}: unknown init {init!r}")
        for i, v in b.get("set", ()):
            a[i] = v
        out[b["name"]] = a
    return out


def pack(program: str, args: list, buffers: dict, variables: dict) -> list:
    """A launch's arguments: buffers (device arrays) by name, then numpy scalars."""
    out = []
    for a in args:
        if isinstance(a, str):
            if a not in buffers:
                raise PlanError(f"{program}: launch argument {a!r} is no buffer")
            out.append(buffers[a])
        elif "i32" in a:
            out.append(np.int32(a["i32"]))
        elif "u32" in a:
            out.append(np.uint32(a["u32"]))
        elif "f32" in a:
            out.append(np.float32(a["f32"]))
        elif "var" in a:
            if a["var"] not in variables:
                raise PlanError(f"{program}: variable {a['var']!r} used before a step sets it")
            out.append(np.int32(variables[a["var"]]))
        else:
            raise PlanError(f"{program}: bad launch argument {a!r}")
    return out


def launches(steps: list):
    """Every launch step of a plan, nested ones included."""
    for s in steps:
        if "launch" in s:
            yield s
        elif "until_zero" in s:
            yield from launches(s["steps"])


# ------------------------------------------------------------------ running
class Runner:
    """One build of one program: its module, buffers and the plan's interpreter."""

    def __init__(self, program: str, entry: dict, ptx: Path, counters: dict | None = None):
        import cupy

        self.cp = cupy
        self.program, self.entry = program, entry
        self.module = cupy.RawModule(path=str(ptx))
        self.functions = {k: self.module.get_function(k) for k in entry["kernels"]}
        self.counters = counters or {}          # kernel -> BBV info (a .bbv.ptx build)
        self.bbv: dict[str, dict] = {}
        self.times: dict[str, float] = {}

    def run(self, timed: bool = False) -> dict[str, np.ndarray]:
        """Run the plan on fresh inputs; return every buffer afterwards (host copies)."""
        cp = self.cp
        self.buffers = {k: cp.asarray(v) for k, v in make_inputs(self.program, self.entry["buffers"]).items()}
        self.variables: dict[str, int] = {}
        self.events: list = []
        self._steps(self.entry["steps"], timed)
        cp.cuda.get_current_stream().synchronize()
        self.times = {}
        for kernel, start, end in self.events:
            self.times[kernel] = self.times.get(kernel, 0.0) + cp.cuda.get_elapsed_time(start, end)
        return {k: cp.asnumpy(v) for k, v in self.buffers.items()}

    def _steps(self, steps, timed):
        cp = self.cp
        for s in steps:
            if "launch" in s:
                self._launch(s, timed)
            elif "fill" in s:
                self.buffers[s["fill"]].fill(s["value"])
            elif "symbol" in s:
                ptr = self.module.get_global(s["symbol"])
                if "pointer_to" in s:
                    values = np.asarray([self.buffers[s["pointer_to"]].data.ptr], np.uint64)
                else:
                    values = np.asarray(s["values"], s["dtype"])
                cp.ndarray(values.shape, values.dtype, memptr=ptr)[...] = cp.asarray(values)
            elif "scan" in s:
                flags = cp.asnumpy(self.buffers[s["scan"]]).astype(np.int64)
                prefix = np.concatenate([[0], np.cumsum(flags)[:-1]]).astype(self.buffers[s["into"]].dtype)
                self.buffers[s["into"]][...] = cp.asarray(prefix)
                self.variables[s["total"]] = int(flags.sum())
            elif "until_zero" in s:
                for _ in range(int(s["max"])):
                    self._steps(s["steps"], timed)
                    if int(cp.asnumpy(self.buffers[s["until_zero"]][:1])[0]) == 0:
                        break
            else:
                raise PlanError(f"{self.program}: unknown step {s!r}")

    def _launch(self, s, timed):
        cp = self.cp
        kernel = s["launch"]
        args = pack(self.program, s["args"], self.buffers, self.variables)
        grid, block = tuple(s["grid"]), tuple(s["block"])
        info = self.counters.get(kernel)
        counts = None
        if info is not None:
            threads = int(np.prod(grid)) * int(np.prod(block))
            counts = cp.zeros((threads, info["blocks"]), np.int32)
            cp.ndarray((1,), np.uint64, memptr=self.module.get_global(info["counter"]))[...] = counts.data.ptr
        if timed:
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            self.functions[kernel](grid, block, tuple(args))
            end.record()
            self.events.append((kernel, start, end))
        else:
            self.functions[kernel](grid, block, tuple(args))
        if counts is not None:
            self._add_bbv(kernel, cp.asnumpy(counts), info, int(np.prod(block)))

    def _add_bbv(self, kernel, counts: np.ndarray, info: dict, per_block: int):
        t = self.bbv.setdefault(kernel, {"bbv": 0, "bbv_weighted": 0, "thread_work": 0, "launches": 0})
        for key, value in bbv_terms(counts, info["block_instructions"], per_block).items():
            t[key] += value
        t["launches"] += 1


def bbv_terms(counts: np.ndarray, block_instructions, per_block: int) -> dict[str, int]:
    """Seed 003's BBV terms of one launch.

    Parameters
    ----------
    counts : int[threads, blocks]: how often each thread (linear id in the grid, thread
        blocks one after another) entered each basic block
    block_instructions : the instruction count of each basic block
    per_block : threads per thread block (warps are 32 consecutive threads of one)

    Returns
    -------
    ``bbv``: the sum over warps and basic blocks of the warp's largest count (the times the
    warp issues the block); ``bbv_weighted``: each term times the block's instructions;
    ``thread_work``: the instructions the threads execute (no divergence: ``32 *
    bbv_weighted``)
    """
    weights = np.asarray(block_instructions, np.int64)
    peaks = []
    for start in range(0, counts.shape[0], per_block):
        cta = counts[start:start + per_block]
        pad = (-cta.shape[0]) % WARP
        if pad:
            cta = np.vstack([cta, np.zeros((pad, cta.shape[1]), cta.dtype)])
        peaks.append(cta.reshape(-1, WARP, cta.shape[1]).max(axis=1))
    peak = np.vstack(peaks).astype(np.int64)
    return {"bbv": int(peak.sum()), "bbv_weighted": int((peak * weights).sum()),
            "thread_work": int((counts.astype(np.int64) * weights).sum())}


def same(a: dict, b: dict) -> str:
    """"" when every buffer is byte-identical, else the first that differs."""
    for k in a:
        if a[k].tobytes() != b[k].tobytes():
            return k
    return ""


# ------------------------------------------------------------------ dry run
PARAM_OF = {"buffer": "u64", "i32": "b32", "u32": "b32", "var": "b32", "f32": "f32"}
PARAM_TYPES = {"u32": "b32", "s32": "b32", "b32": "b32", "u64": "u64", "b64": "u64", "f32": "f32"}


def entry_params(ptx: Path) -> dict[str, list[str]]:
    """The parameter types of every ``.entry`` of a PTX file (``u64``, ``u32``, ``f32``, ...)."""
    out = {}
    if not ptx.is_file():
        return out
    for m in re.finditer(r"^\.visible \.entry ([\w$.]+)\(\s*(.*?)\)", ptx.read_text(), re.M | re.S):
        out[m.group(1)] = re.findall(r"\.param \.(\w+)(?: \.ptr[^\n]*?)? [\w$.]+_param_\d+", m.group(2))
    return out


def dry_run(ptx_dir: Path, manifest: dict, names: list[str]) -> int:
    """Check files, kernels, symbols and argument packing without a GPU."""
    problems, launches_seen = [], 0
    for name in names:
        entry = manifest["programs"][name]
        host = make_inputs(name, entry["buffers"])
        variables = {s["total"]: 0 for s in entry["steps"] if "scan" in s}
        for s in launches(entry["steps"]):
            if s["launch"] not in entry["kernels"]:
                problems.append(f"{name}: launches {s['launch']}, not a kernel of the module")
            try:
                pack(name, s["args"], host, variables)
            except PlanError as exc:
                problems.append(str(exc))
            if np.prod(s["block"]) > 1024 or len(s["grid"]) > 3 or len(s["block"]) > 3:
                problems.append(f"{name}: {s['launch']}: bad grid {s['grid']} or block {s['block']}")
            launches_seen += 1
        params = entry_params(ptx_dir / entry["builds"][manifest.get("reference_build", "plain-O3")]["ptx"])
        for s in launches(entry["steps"]):
            want = [PARAM_OF.get(next(iter(a)) if isinstance(a, dict) else "buffer") for a in s["args"]]
            have = params.get(s["launch"])
            if have is not None and [PARAM_TYPES.get(t, t) for t in have] != want:
                problems.append(f"{name}: {s['launch']} takes {have} in its PTX, the plan passes {want}")
        symbols = [s["symbol"] for s in entry["steps"] if "symbol" in s]
        for build, files in entry["builds"].items():
            for key in ("ptx", "bbv_ptx"):
                path = ptx_dir / files[key]
                if not path.is_file():
                    problems.append(f"{name}/{build}: no {path}")
                    continue
                text = path.read_text()
                wanted = list(entry["kernels"]) + symbols
                if key == "bbv_ptx":
                    wanted += [info["counter"] for info in files["kernels"].values()]
                for sym in wanted:
                    if not re.search(rf"^\.visible \.(entry|global|const)\b[^\n]*[ .]{re.escape(sym)}\b", text, re.M):
                        problems.append(f"{name}/{build}: {path.name} does not define {sym}")
    for p in problems:
        print(f"problem: {p}")
    print(f"dry run: {len(names)} programs, {launches_seen} launches, "
          f"{sum(len(manifest['programs'][n]['builds']) for n in names) * 2} PTX files, {len(problems)} problems")
    return 1 if problems else 0


# ------------------------------------------------------------------ ncu
def ncu_single(ptx_dir: Path, manifest: dict, program: str, build: str) -> None:
    """``--single``: run one build's plan once (the process ncu profiles)."""
    entry = manifest["programs"][program]
    Runner(program, entry, ptx_dir / entry["builds"][build]["ptx"]).run()


def ncu_metrics(ptx_dir: Path, program: str, build: str, launches_max: int) -> dict[str, dict]:
    """Mean of each NCU metric per kernel over the profiled launches (empty when ncu fails)."""
    import csv
    import io
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "ncu.csv"
        cmd = ["ncu", "--csv", "--clock-control", "none", "--print-kernel-base", "mangled", "--metrics",
               ",".join(NCU_METRICS), "-c", str(launches_max), "--log-file", str(log), sys.executable,
               str(Path(__file__).resolve()), "--single", program, build, "--ptx", str(ptx_dir)]
        res = subprocess.run(cmd, capture_output=True, text=True)
        text = log.read_text() if log.exists() else ""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    out: dict[str, dict] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        try:
            value = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
        kernel = row.get("Kernel Name", "?")
        out.setdefault(kernel, {}).setdefault(row["Metric Name"], []).append(value)
    if not out:
        print(f"ncu gave no metrics for {program}/{build}: {(res.stderr.strip().splitlines() or ['?'])[-1]}",
              file=sys.stderr)
    return {k: {m: statistics.mean(v) for m, v in ms.items()} for k, ms in out.items()}


# ------------------------------------------------------------------ main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="*", help="programs of the manifest (default: all)")
    ap.add_argument("--ptx", default=str(ROOT / ".cuda-ptx"))
    ap.add_argument("--out", default=None, help="results folder (default: $OUT, else bench/results)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ncu", action="store_true", help="also profile each build with Nsight Compute")
    ap.add_argument("--ncu-launches", type=int, default=64)
    ap.add_argument("--dry-run", action="store_true", help="no GPU: check files, kernels and argument packing")
    ap.add_argument("--single", nargs=2, metavar=("PROGRAM", "BUILD"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    ptx_dir = Path(args.ptx)
    try:
        manifest = json.loads((ptx_dir / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        print(f"cuda_device_run: error: {ptx_dir / 'manifest.json'}: {exc}", file=sys.stderr)
        return 2
    if args.single:
        ncu_single(ptx_dir, manifest, *args.single)
        return 0
    names = args.programs or list(manifest["programs"])
    unknown = [n for n in names if n not in manifest["programs"]]
    if unknown:
        print(f"cuda_device_run: error: not in the manifest: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.dry_run:
        return dry_run(ptx_dir, manifest, names)
    import cupy

    device = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"].decode()
    out = Path(args.out or os.environ.get("OUT") or ROOT / "bench/results")
    out.mkdir(parents=True, exist_ok=True)
    rows, differs = [], 0
    for name in names:
        entry = manifest["programs"][name]
        ref_build = manifest.get("reference_build", "plain-O3")
        reference = Runner(name, entry, ptx_dir / entry["builds"][ref_build]["ptx"]).run()
        outputs, first_row = {}, len(rows)
        for build, files in entry["builds"].items():
            runner = Runner(name, entry, ptx_dir / files["ptx"])
            got = outputs[build] = runner.run()
            mismatch = same(reference, got)
            runner.run(timed=True)                       # warm-up
            totals, per_kernel = [], {}
            for _ in range(args.repeat):
                runner.run(timed=True)
                totals.append(sum(runner.times.values()))
                for k, v in runner.times.items():
                    per_kernel.setdefault(k, []).append(v)
            counted = Runner(name, entry, ptx_dir / files["bbv_ptx"], counters=files["kernels"])
            bbv_mismatch = same(reference, counted.run())
            ncu = ncu_metrics(ptx_dir, name, build, args.ncu_launches) if args.ncu else {}
            for kernel in entry["kernels"]:
                b = counted.bbv.get(kernel, {})
                m = ncu.get(kernel, {})
                rows.append({"program": name, "build": build, "kernel": kernel,
                             "same_output": not mismatch, "first_difference": mismatch,
                             "bbv_build_same_output": not bbv_mismatch,
                             "kernel_ms": round(statistics.median(per_kernel.get(kernel, [0.0])), 4),
                             "plan_kernel_ms": round(statistics.median(totals), 4),
                             "launches": b.get("launches", 0), "bbv": b.get("bbv"), "bbv_weighted": b.get("bbv_weighted"),
                             "simd_efficiency": round(b["thread_work"] / (WARP * b["bbv_weighted"]), 4)
                             if b.get("bbv_weighted") else None,
                             "ncu_branch_efficiency_pct": m.get(NCU_METRICS[0]),
                             "ncu_threads_per_inst": m.get(NCU_METRICS[1])})
            print(f"{name}/{build}: {'same output' if not mismatch else 'DIFFERS in ' + mismatch}, "
                  f"{statistics.median(totals):.3f} ms", flush=True)
        # our metadata's contract: an annotated build computes what the same pipeline computes
        # without it (a transform may itself change floating-point results against plain-O3)
        for row in rows[first_row:]:
            plain = counterpart(row["build"])
            row["same_as_unannotated"] = (None if plain not in outputs
                                          else not same(outputs[plain], outputs[row["build"]]))
            differs += row["same_as_unannotated"] is False
        # after every program, so that a run cut by its time limit keeps the programs it finished
        write(rows, out, device, manifest, args, argv if argv is not None else sys.argv[1:])
    return 1 if differs else 0


def counterpart(build: str) -> str | None:
    """The unannotated build of the same pipeline (``annotated-merge`` -> ``plain-merge``)."""
    return "plain" + build[len("annotated"):] if build.startswith("annotated") else None


def write(rows: list[dict], out: Path, device: str, manifest: dict, args, argv) -> None:
    import csv

    stem = out / "cuda-device-run"
    with open(stem.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    meta = {"command": f"python3 bench/cuda_device_run.py {' '.join(argv)}", "device": device,
            "host": f"{platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}",
            "date": time.strftime("%Y-%m-%dT%H:%M%z"), "ptx_commit": manifest.get("commit"),
            "ptx_date": manifest.get("date"), "repeat": args.repeat, "rows": rows}
    stem.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    cols = list(rows[0])
    md = ["# CUDA kernels on the GPU: our facts, LLVM's transforms, same outputs", "",
          f"- command: `{meta['command']}`", f"- device: {device}; host {meta['host']}; {meta['date']}",
          f"- PTX from `bench/cuda_transforms.py` at commit {meta['ptx_commit']} ({meta['ptx_date']}); "
          f"reference build `{manifest.get('reference_build', 'plain-O3')}`; median of {args.repeat} runs",
          "", "| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    md += ["| " + " | ".join("" if r[c] is None else str(r[c]) for c in cols) + " |" for r in rows]
    stem.with_suffix(".md").write_text("\n".join(md) + "\n")
    print(f"wrote {stem}.csv, .json, .md")


if __name__ == "__main__":
    sys.exit(main())
