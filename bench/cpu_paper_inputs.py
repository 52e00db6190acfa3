"""Benchmark the cpu backend on the paper's inputs, one subprocess per input.

For every program it records: read time, offline preprocessing time and counts
before/after, solve time (preprocessing excluded; median of ``--repeat`` runs
after a warm-up, one run for large inputs), peak resident memory of the
subprocess, final points-to edges, and whether the solution equals the paper's
reference solution where one exists.

With ``--threads 1 16`` it does that once per thread count (``threads=1`` is
the serial solver, N > 1 the multi-core one, see ``cpu.solve``): one row per
(program, threads), with the speed-up over the first count listed and whether
each solution equals the first one's (``agrees_with_first``).

Inputs: the text dumps in ``--inputs`` (default ``../shared/paper-inputs``), or
where those are absent (the GPU machine) the compact ``.inputs/B.npz`` dumps
(see ``bench/_inputs.py``; carry ``.inputs``).

    nice python3 bench/cpu_paper_inputs.py                      # all inputs
    nice python3 bench/cpu_paper_inputs.py --only ex gcc --repeat 5
    python3 bench/cpu_paper_inputs.py --out-stem bench/results/cpu-here
    python3 bench/cpu_paper_inputs.py --threads 1 2 4 8 16 --out-stem bench/results/cpu-threads-h200

Writes ``<out-stem>.csv`` and ``<out-stem>.md`` (machine, date, commit, numba
threading layer) and prints the table.
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


def _find(inputs: Path, program: str):
    """The program's :class:`bench._inputs.BenchInput` (text dumps, else ``.inputs`` npz), or None."""
    sys.path.insert(0, str(ROOT))
    from bench._inputs import DEFAULT_PAPER_DUMPS, find_paper

    return find_paper(program, inputs, DEFAULT_PAPER_DUMPS)


def measure_one(inputs: Path, program: str, repeat: int, threads: list[int]) -> list[dict]:
    """Everything about one program, measured in this process: one row per thread count."""
    sys.path.insert(0, str(ROOT))
    import numba

    from andersen_gpu.backends import cpu
    from andersen_gpu.preprocess import collapse
    from bench._inputs import load_constraints, load_solution
    from constraints.model import ConstraintSet

    inp = _find(inputs, program)
    for n in threads:   # load the compiled code (both solvers)
        cpu.solve(ConstraintSet.from_lists(2, obj_size={1: 1}, addr=[(0, 1)]), threads=n)
    t = time.perf_counter()
    cs = load_constraints(inp)
    read_s = time.perf_counter() - t
    expected = load_solution(inp.solution) if inp.solution is not None else None
    rows = []
    first = None
    for n in threads:
        pre_ms, solve_ms, solve_cpu_ms = [], [], []
        sol = work = pstats = None
        for i in range(max(1, repeat)):
            t = time.perf_counter()
            work, pstats = collapse(cs)
            pre_ms.append((time.perf_counter() - t) * 1e3)
            t, c = time.perf_counter(), time.process_time()
            sol = cpu.solve(work, preprocess=False, threads=n)
            solve_cpu_ms.append((time.process_time() - c) * 1e3)
            solve_ms.append((time.perf_counter() - t) * 1e3)
            if i == 0 and sol.n_edges > LARGE_EDGES:
                break
        full = cpu.solve(cs, threads=n) if expected is not None else None
        if first is None:
            first = sol
        notes = sol.stats.notes
        row = {
            "program": program, "threads": notes.get("threads", 1), "nodes": cs.n_nodes,
            "reps_before": pstats.nodes_before, "reps_after": pstats.nodes_after,
            "constraints_before": pstats.constraints_before["total"],
            "constraints_after": pstats.constraints_after["total"],
            "read_s": round(read_s, 2),
            "preprocess_ms": round(statistics.median(pre_ms), 1),
            "solve_cpu_ms": round(statistics.median(solve_cpu_ms), 1),
            "solve_ms": round(statistics.median(solve_ms), 1),
            "runs": len(solve_ms),
            "speedup": round(statistics.median(rows[0]["_solve_ms"]) / statistics.median(solve_ms), 2) if rows else 1.0,
            "total_ms": round(statistics.median(pre_ms) + statistics.median(solve_ms), 1),
            "rounds": notes["rounds"], "visits": sol.stats.iterations,
            "distinct_sets": sol.n_sets, "final_edges": sol.n_edges,
            "agrees_with_first": sol == first,
            "agrees_with_reference": (expected == full) if expected is not None else "",
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "step_ms": notes.get("step ms", ""),
            "_solve_ms": solve_ms,
        }
        rows.append(row)
    for row in rows:
        del row["_solve_ms"]
    del numba
    return rows


def _commit() -> str:
    sys.path.insert(0, str(ROOT))
    from bench._env import commit

    return commit()


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


def _threading_layer() -> str:
    """The numba threading layer a parallel region gets here (run in a child: it is fixed at first use)."""
    code = ("import numba, numpy as np\n@numba.njit(parallel=True)\ndef f(a):\n    for i in numba.prange(len(a)):\n"
            "        a[i] += 1\nf(np.zeros(4)); print(numba.threading_layer())")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def _numba_threads() -> str:
    proc = subprocess.run([sys.executable, "-c", "import numba; print(numba.config.NUMBA_NUM_THREADS)"],
                          capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def write_tables(rows: list[dict], stem: Path, argv: list[str]) -> None:
    import pandas as pd
    df = pd.DataFrame(rows)
    df.to_csv(stem.with_suffix(".csv"), index=False)
    head = [f"# cpu backend on the paper inputs ({stem.name})", "",
            f"- command: `python3 bench/cpu_paper_inputs.py {' '.join(argv)}`",
            f"- machine: {_machine()}",
            f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
            f"- commit: {_commit()}",
            "- times: solve_cpu_ms (process CPU time, the number to compare on a shared machine) and "
            "solve_ms (wall) exclude reading and preprocessing; median of `runs` runs after a warm-up",
            "- peak_rss_mib: max resident memory of the per-input subprocess (reading, preprocessing, "
            "solving, reference check)",
            f"- threads: `threads` > 1 is the multi-core solver; numba threading layer {_threading_layer()}, "
            f"NUMBA_NUM_THREADS {_numba_threads()}; speedup = first thread count's solve_ms / this one's; "
            "step_ms: the multi-core solver's wall time per step", ""]
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
    ap.add_argument("--threads", type=int, nargs="+", default=[1], metavar="N",
                    help="thread counts to time, each in turn (1 = the serial solver; default: 1)")
    ap.add_argument("--out-stem", type=Path, default=ROOT / "bench" / "results" / "cpu-here")
    ap.add_argument("--one", help=argparse.SUPPRESS)   # internal: measure one program, print JSON
    args = ap.parse_args(argv)
    if any(n < 1 for n in args.threads):
        ap.error("--threads: each count must be at least 1")
    if args.one:
        print(json.dumps(measure_one(args.inputs, args.one, args.repeat, args.threads)))
        return 0
    programs = [p for p in (args.only or PROGRAMS) if _find(args.inputs, p) is not None]
    rows = []
    for p in programs:
        proc = subprocess.run([sys.executable, __file__, "--inputs", str(args.inputs), "--repeat",
                               str(args.repeat), "--threads", *map(str, args.threads), "--one", p],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{p}: failed\n{proc.stderr}", file=sys.stderr)
            rows.append({"program": p, "error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"})
            continue
        for row in json.loads(proc.stdout.strip().splitlines()[-1]):
            print(json.dumps(row), flush=True)
            rows.append(row)
    write_tables(rows, args.out_stem, argv)
    print(args.out_stem.with_suffix(".md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
