"""Per-kernel time and active lanes of one GPU solve, read by Nsight Compute (ncu).

Issue 3 measured the paper's CUDA code this way on the H200: on vim, 2.1 s of its 2.4 s is
one kernel, the copy/load rule (``copyInv_loadInv_store2storeInv``), at 31 of 32 active
lanes. This script measures this project's kernels the same way, on any paper input.

Usage (on the GPU machine, with ``ncu`` on the PATH and the dumps of
``gpu_paper_inputs.py dump`` in ``.inputs/``)::

    PYTHONPATH=. python3 bench/ncu_kernels.py run vim          # writes bench/results/ncu-vim.{csv,md}

``run`` starts ``ncu`` on ``ncu_kernels.py solve vim``, which solves once outside the
profiled range (compiling and warming up) and once inside it
(``cudaProfilerStart``/``Stop``); every kernel launch of that second solve is profiled with
``--clock-control none`` (the clocks left as the device sets them, as the device notes ask)
and ncu's default cache control (caches flushed before each launch, so a kernel's time is a
little above its time in an unprofiled run). Then ``summarize`` sums the launches of each
kernel:

* ``ms``: the sum of ``gpu__time_duration.sum`` over its launches;
* ``active_lanes``: ``smsp__thread_inst_executed.sum / smsp__inst_executed.sum`` over all its
  launches, the mean number of the 32 lanes that executed each warp instruction (ncu's
  ``smsp__thread_inst_executed_per_inst_executed.ratio``, weighted by instructions);
* ``warps_active_pct``: the mean over launches of
  ``smsp__warps_active.avg.pct_of_peak_sustained_active`` (achieved occupancy).
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._env import ROOT, commit, gpu_name, host, markdown_table, today  # noqa: E402

METRICS = ("gpu__time_duration.sum", "smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
           "smsp__warps_active.avg.pct_of_peak_sustained_active")

#: What each of the project's kernels does (the rest are CuPy's or thrust's).
ROLES = {
    "emit": "copy, gep and load rules of the changed nodes and their store pairs; Ldelta of the load pointers",
    "union_update": "one union per target: N(t), then (P, N) -> (P ∪ N, N \\ P) memoized",
    "store_runs": "store rule: one union per pointer set T, expanded over T's members",
    "commit_new": "installs the new sets; counts the next round's pairs",
    "commit_prev": "resets the deltas of the last round's changed nodes",
    "mark_changed": "bitmap of the pointees whose set changed",
    "intern_heads": "interns the initial sets",
    "insert_pairs": "initial lists: sorted (key, id) pairs into lists",
    "insert_records": "insert_pairs for long runs, one 32-word record per element",
    "record_starts": "insert_pairs: where the records of long runs begin",
    "pack_records": "insert_pairs: the bits of each record",
    "mark_elems": "compaction: marks the elements of the live sets",
    "copy_elems": "compaction: copies them into the new pool",
    "block_sort_u64": "sort of a pair batch, 4,096-key blocks (bitonic, shared memory)",
    "merge_runs_u64": "sort of a pair batch: one merge pass over sorted runs",
    "csr_keys": "graph build on the device: CSR keys",
    "csr_first": "graph build on the device: first entry of each row",
    "csr_fill": "graph build on the device: columns and row pointers",
}
#: What issue 3 measured of the paper's CUDA code on vim, the same way.
ORIGINAL_VIM = (" The paper's CUDA code on the same H200 (issue 3): one kernel, `copyInv_loadInv_store2storeInv`, "
                "2.1 s of its 2.4 s, at 31 of 32.")
#: Kernels that together do the work of the original's copyInv_loadInv_store2storeInv.
COPY_LOAD_STORE = ("emit", "union_update", "store_runs")


def cmd_solve(args) -> int:
    """The profiled program: a warm-up solve, then one solve between profiler start and stop."""
    import cupy

    from andersen_gpu.backends import gpu
    from bench.gpu_paper_inputs import load_dump

    cs = load_dump(Path(args.inputs) / f"{args.input}.npz")
    gpu.solve(cs)
    cupy.cuda.runtime.deviceSynchronize()
    cupy.cuda.runtime.profilerStart()
    sol = gpu.solve(cs)
    cupy.cuda.runtime.deviceSynchronize()
    cupy.cuda.runtime.profilerStop()
    print(f"{args.input}: {sol.stats.iterations} rounds", file=sys.stderr)
    return 0


def read_raw(path: Path):
    """ncu's ``--csv`` output (one row per launch and metric) as one row per launch.

    Returns a DataFrame with columns ``id, kernel`` and one float column per metric.
    """
    import io

    import pandas as pd

    text = "\n".join(line for line in Path(path).read_text().splitlines() if line.startswith('"'))
    if not text:
        raise SystemExit(f"ncu_kernels: no profiled launches in {path}")
    raw = pd.read_csv(io.StringIO(text), dtype=str)
    raw["value"] = raw["Metric Value"].str.replace(",", "", regex=False).astype(float)
    wide = raw.pivot_table(index=["ID", "Kernel Name"], columns="Metric Name", values="value").reset_index()
    return wide.rename(columns={"ID": "id", "Kernel Name": "kernel"})


def per_kernel(wide):
    """One row per kernel, most time first: launches, ms, share, instructions, active lanes."""
    g = wide.groupby("kernel").agg(launches=("id", "count"), ms=("gpu__time_duration.sum", "sum"),
                                   warp_inst=("smsp__inst_executed.sum", "sum"),
                                   thread_inst=("smsp__thread_inst_executed.sum", "sum"),
                                   warps_active_pct=("smsp__warps_active.avg.pct_of_peak_sustained_active",
                                                     "mean"))
    g["ms"] /= 1e6
    g["share_pct"] = 100 * g.ms / g.ms.sum()
    g["active_lanes"] = g.thread_inst / g.warp_inst
    g = g.sort_values("ms", ascending=False).reset_index()
    g["role"] = [ROLES.get(k, "") for k in g.kernel]
    return g[["kernel", "launches", "ms", "share_pct", "active_lanes", "warps_active_pct", "warp_inst",
              "thread_inst", "role"]]


def write_summary(table, out: Path, meta: dict) -> None:
    """``out``.csv (the table) and ``out``.md (header, the copy/load/store total, the table)."""
    table.to_csv(out.with_suffix(".csv"), index=False)
    rule = table[table.kernel.isin(COPY_LOAD_STORE)]
    rule_ms = rule.ms.sum()
    rule_lanes = rule.thread_inst.sum() / max(rule.warp_inst.sum(), 1)
    shown = table.assign(ms=table.ms.round(2), share_pct=table.share_pct.round(1),
                         active_lanes=table.active_lanes.round(2), warps_active_pct=table.warps_active_pct.round(1),
                         warp_inst=table.warp_inst.map("{:,.0f}".format),
                         thread_inst=table.thread_inst.map("{:,.0f}".format))
    lines = [f"# Kernels of one GPU solve of {meta['input']}, read by Nsight Compute\n",
             f"- command: `{meta['command']}`",
             f"- ncu: `{meta['ncu_command']}` ({meta['ncu_version']})",
             f"- machine: {meta['gpu']}; host {meta['host']}",
             f"- date: {meta['date']}; commit: {meta['commit']}",
             f"- {int(table.launches.sum())} launches, {table.ms.sum():.1f} ms of kernel time in all",
             "",
             f"**The copy, load and store rules** ({', '.join(COPY_LOAD_STORE)}): "
             f"**{rule_ms:.1f} ms** over {int(rule.launches.sum())} launches, at **{rule_lanes:.2f} of 32 "
             "active lanes** (thread instructions per warp instruction)." + (ORIGINAL_VIM if meta["input"] == "vim" else ""),
             "",
             "`ms`: sum of `gpu__time_duration.sum`; `active_lanes`: `smsp__thread_inst_executed.sum` / "
             "`smsp__inst_executed.sum` over all launches; `warps_active_pct`: mean of "
             "`smsp__warps_active.avg.pct_of_peak_sustained_active` over launches.",
             "", markdown_table(shown), ""]
    out.with_suffix(".md").write_text("\n".join(lines))


def cmd_summarize(args) -> int:
    table = per_kernel(read_raw(Path(args.raw)))
    meta = dict(input=args.input, command=args.command or "", ncu_command=args.ncu_command or "",
                ncu_version=args.ncu_version or "", gpu=gpu_name() or "?", host=host(), date=today(),
                commit=commit())
    write_summary(table, Path(args.out), meta)
    print(markdown_table(table[["kernel", "launches", "ms", "active_lanes"]].round(2)))
    return 0


def cmd_run(args) -> int:
    """ncu over ``solve``, then ``summarize`` into bench/results/ncu-<input>.{csv,md}."""
    try:
        version = subprocess.run(["ncu", "--version"], capture_output=True, text=True,
                                 check=True).stdout.strip().splitlines()[-1]
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"ncu_kernels: ncu is not available here ({exc})", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else ROOT / "bench" / "results" / f"ncu-{args.input}"
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.csv"
        ncu = ["ncu", "--clock-control", "none", "--profile-from-start", "off", "--print-kernel-base", "function",
               "--metrics", ",".join(METRICS), "--csv"]
        if args.kernels:
            ncu += ["-k", f"regex:{args.kernels}"]
        target = [sys.executable, str(Path(__file__).resolve()), "solve", args.input, "--inputs", args.inputs]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        done = subprocess.run(ncu + ["--log-file", str(raw)] + target, env=env)
        if done.returncode:
            print(f"ncu_kernels: ncu exited with {done.returncode}", file=sys.stderr)
            return 1
        shown_ncu = " ".join(shlex.quote(a) for a in ncu) + " python3 bench/ncu_kernels.py solve " + args.input
        summary = argparse.Namespace(raw=raw, input=args.input, out=out, ncu_version=version, ncu_command=shown_ncu,
                                     command="PYTHONPATH=. python3 bench/ncu_kernels.py run " + args.input +
                                     (f" --kernels '{args.kernels}'" if args.kernels else ""))
        status = cmd_summarize(summary)
        if args.keep_raw:
            Path(args.keep_raw).write_bytes(raw.read_bytes())
        return status


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="profile one solve with ncu and write bench/results/ncu-<input>.{csv,md}")
    r.add_argument("input", help="paper input name (a dump .inputs/<name>.npz)")
    r.add_argument("--inputs", default=".inputs")
    r.add_argument("--kernels", help="only kernels whose names match this regular expression")
    r.add_argument("--out", help="output path without suffix (default bench/results/ncu-<input>)")
    r.add_argument("--keep-raw", help="also keep ncu's own CSV (one row per launch and metric) at this path")
    s = sub.add_parser("solve", help="the profiled program (run starts it under ncu)")
    s.add_argument("input")
    s.add_argument("--inputs", default=".inputs")
    m = sub.add_parser("summarize", help="per-kernel table of a saved ncu --csv output")
    m.add_argument("raw")
    m.add_argument("input")
    m.add_argument("--out", required=True)
    for flag in ("--command", "--ncu-command", "--ncu-version"):
        m.add_argument(flag)
    args = ap.parse_args(argv)
    return {"run": cmd_run, "solve": cmd_solve, "summarize": cmd_summarize}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
