"""Benchmark the cpu backend on the paper's inputs, one subprocess per input.

For every program with a nodes and a constraints file it records: read time,
offline preprocessing time and counts before/after, solve time (preprocessing
excluded; median of ``--repeat`` runs after a warm-up, one run for large
inputs), peak resident memory of the subprocess, final points-to edges, and
whether the solution equals the paper's reference solution where one exists.

    nice python3 bench/cpu_paper_inputs.py                      # all inputs
    nice python3 bench/cpu_paper_inputs.py --only ex gcc --repeat 5
    python3 bench/cpu_paper_inputs.py --out-stem bench/results/cpu-here

Writes ``<out-stem>.csv`` and ``<out-stem>.md`` (machine, date, commit).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_INPUTS = Path(os.environ.get("ANDERSEN_PAPER_INPUTS", ROOT.parent / "shared" / "paper-inputs"))
PROGRAMS = ["ex", "gcc", "perl", "vim", "svn", "python", "nh", "gs", "gdb", "php", "pine", "mplayer",
            "gimp", "linux"]
# Inputs whose solve takes well over a few seconds are timed once.
LARGE_EDGES = 1e8


def measure_one(inputs: Path, program: str, repeat: int) -> dict:
    """Everything about one program, measured in this process."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from andersen_gpu.backends import cpu
    from andersen_gpu.preprocess import collapse
    from andersen_gpu.solution import Solution
    from constraints.model import ConstraintSet
    from constraints.paper_format import read_paper

    cpu.solve(ConstraintSet.from_lists(2, obj_size={1: 1}, addr=[(0, 1)]))  # load the compiled code
    t = time.perf_counter()
    cs = read_paper(inputs / f"{program}_nodes.txt.gz")
    read_s = time.perf_counter() - t
    pre_ms = []
    solve_ms = []
    solve_cpu_ms = []
    sol = None
    work = pstats = None
    for i in range(max(1, repeat)):
        t = time.perf_counter()
        work, pstats = collapse(cs)
        pre_ms.append((time.perf_counter() - t) * 1e3)
        t, c = time.perf_counter(), time.process_time()
        sol = cpu.solve(work, preprocess=False)
        solve_cpu_ms.append((time.process_time() - c) * 1e3)
        solve_ms.append((time.perf_counter() - t) * 1e3)
        if i == 0 and sol.n_edges > LARGE_EDGES:
            break
    row = {
        "program": program, "nodes": cs.n_nodes,
        "reps_before": pstats.nodes_before, "reps_after": pstats.nodes_after,
        "constraints_before": pstats.constraints_before["total"],
        "constraints_after": pstats.constraints_after["total"],
        "read_s": round(read_s, 2),
        "preprocess_ms": round(statistics.median(pre_ms), 1),
        "solve_cpu_ms": round(statistics.median(solve_cpu_ms), 1),
        "solve_ms": round(statistics.median(solve_ms), 1),
        "runs": len(solve_ms),
        "total_ms": round(statistics.median(pre_ms) + statistics.median(solve_ms), 1),
        "rounds": sol.stats.notes["rounds"], "visits": sol.stats.iterations,
        "distinct_sets": sol.n_sets, "final_edges": sol.n_edges,
    }
    ref_path = inputs / f"{program}_correct_soln_001.txt.gz"
    row["agrees_with_reference"] = (Solution.load(ref_path) == sol) if ref_path.is_file() else ""
    row["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    del np
    return row


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _machine() -> str:
    cpu_name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu_name}, {os.cpu_count()} cores, {mem:.0f} GiB, {platform.system()} {platform.release()}"


def write_tables(rows: list[dict], stem: Path, argv: list[str]) -> None:
    import pandas as pd
    df = pd.DataFrame(rows)
    df.to_csv(stem.with_suffix(".csv"), index=False)
    head = [f"# cpu backend on the paper inputs ({stem.name})", "",
            f"- command: `python3 bench/cpu_paper_inputs.py {' '.join(argv)}`",
            f"- machine: {_machine()}",
            f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
            f"- commit: {_commit()} (plus uncommitted work in the tree)",
            "- times: solve_cpu_ms (process CPU time, the number to compare on a shared machine) and "
            "solve_ms (wall) exclude reading and preprocessing; median of `runs` runs after a warm-up",
            "- peak_rss_mib: max resident memory of the per-input subprocess (reading, preprocessing, "
            "solving, reference check)", ""]
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in df.iterrows():
        lines.append("| " + " | ".join(f"{r[c]:,}" if isinstance(r[c], (int,)) and not isinstance(r[c], bool)
                                        else str(r[c]) for c in cols) + " |")
    stem.with_suffix(".md").write_text("\n".join(head + lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=Path, default=DEFAULT_INPUTS)
    ap.add_argument("--only", nargs="*", default=None, help="programs to run (default: all with constraints)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out-stem", type=Path, default=ROOT / "bench" / "results" / "cpu-here")
    ap.add_argument("--one", help=argparse.SUPPRESS)   # internal: measure one program, print JSON
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(measure_one(args.inputs, args.one, args.repeat)))
        return 0
    programs = [p for p in (args.only or PROGRAMS)
                if (args.inputs / f"{p}_nodes.txt.gz").is_file()
                and (args.inputs / f"{p}_constraints_after_hcd.txt.gz").is_file()]
    rows = []
    for p in programs:
        proc = subprocess.run([sys.executable, __file__, "--inputs", str(args.inputs), "--repeat",
                               str(args.repeat), "--one", p], capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{p}: failed\n{proc.stderr}", file=sys.stderr)
            rows.append({"program": p, "error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"})
            continue
        row = json.loads(proc.stdout.strip().splitlines()[-1])
        print(json.dumps(row), flush=True)
        rows.append(row)
    write_tables(rows, args.out_stem, argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
