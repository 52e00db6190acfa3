"""Benchmark the cpu backend on the paper's inputs (or the corpus dumps), one subprocess per input.

For every program it records: read time, offline preprocessing time and counts
before/after, solve time (preprocessing excluded; median of ``--repeat`` runs
after a warm-up, one run for large inputs), peak resident memory of the
subprocess, final points-to edges, a digest of the solution (``bench._measure``),
the set table's peak bytes, bytes per final fact, live sets and memo hits (where
the backend reports them), and whether the solution equals the paper's
reference solution where one exists.

With ``--corpus-dumps DIR`` the inputs are the corpus programs' dumps
(``DIR/P.npz``, made by ``python -m bench dump``) instead. ``--timeout-s`` and
``--max-rss-gib`` stop one input's subprocess (a row with ``error`` says which).

With ``--threads 1 16`` it does that once per thread count (``threads=1`` is
the serial solver, N > 1 the multi-core one, see ``cpu.solve``): one row per
(program, threads), with the speed-up over the first count listed and whether
each solution equals the first one's (``agrees_with_first``).

Inputs: the text dumps in ``--inputs`` (default ``../shared/paper-inputs``), or
where those are absent (the GPU machine) the compact ``.inputs/B.npz`` dumps
(see ``bench/_inputs.py``; carry ``.inputs``).

    nice python3 bench/cpu_paper_inputs.py                      # all inputs
    nice python3 bench/cpu_paper_inputs.py --only ex gcc --repeat 5
    python3 bench/cpu_paper_inputs.py --corpus-dumps .corpus-dumps --timeout-s 1800 --max-rss-gib 14
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


def _find(inputs: Path, program: str, corpus_dumps: Path | None = None):
    """The program's :class:`bench._inputs.BenchInput` (paper: text dumps, else ``.inputs`` npz;
    corpus: its dump in ``corpus_dumps``), or None."""
    sys.path.insert(0, str(ROOT))
    from bench._inputs import DEFAULT_CORPUS_DIR, DEFAULT_PAPER_DUMPS, find_corpus, find_paper

    if corpus_dumps is not None:
        inp = find_corpus(program, corpus_dumps, DEFAULT_CORPUS_DIR)
        return inp if inp is not None and inp.kind == "npz" else None
    return find_paper(program, inputs, DEFAULT_PAPER_DUMPS)


def _table_columns(notes: dict) -> dict:
    """The set table's figures from a solve's notes (empty where the backend has no set table)."""
    peak = notes.get("set table table bytes (peak)")
    return {"table_mib": round(peak / 2**20, 1) if peak is not None else "",
            "bytes_per_fact": notes.get("set table bytes per final fact", ""),
            "live_sets_peak": notes.get("set table live sets (peak)", ""),
            "memo_hits": notes.get("set table memo hits", "")}


def measure_one(inputs: Path, program: str, repeat: int, threads: list[int],
                corpus_dumps: Path | None = None) -> list[dict]:
    """Everything about one program, measured in this process: one row per thread count."""
    sys.path.insert(0, str(ROOT))
    import numba

    from andersen_gpu.backends import cpu
    from andersen_gpu.preprocess import collapse
    from bench._inputs import load_constraints, load_solution
    from bench._measure import solution_digest
    from constraints.model import ConstraintSet

    inp = _find(inputs, program, corpus_dumps)
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
            **_table_columns(notes),
            "digest": solution_digest(sol),
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


def _run_watched(cmd: list[str], timeout_s: float | None, max_rss_gib: float | None) -> tuple[str, str, str]:
    """Run ``cmd``, stopping it past ``timeout_s`` or ``max_rss_gib`` of resident memory.

    Returns ``(stdout, stderr, why it was stopped or "")``.
    """
    import tempfile
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        t0, peak, why = time.monotonic(), 0, ""
        while proc.poll() is None:
            try:
                with open(f"/proc/{proc.pid}/status") as f:
                    rss = next((int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS")), 0)
            except OSError:
                rss = 0
            peak = max(peak, rss)
            elapsed = time.monotonic() - t0
            if max_rss_gib is not None and rss > max_rss_gib * 2**30:
                why = f"stopped at {rss / 2**30:.1f} GiB resident after {elapsed:.0f} s"
            elif timeout_s is not None and elapsed > timeout_s:
                why = f"stopped after {elapsed:.0f} s (timeout; {peak / 2**30:.1f} GiB resident at most)"
            if why:
                proc.kill()
                break
            time.sleep(0.5)
        proc.wait()
        out.seek(0)
        err.seek(0)
        return out.read(), err.read(), why


def write_tables(rows: list[dict], stem: Path, argv: list[str]) -> None:
    import pandas as pd
    df = pd.DataFrame(rows)
    df.to_csv(stem.with_suffix(".csv"), index=False)
    what = "the corpus dumps" if "--corpus-dumps" in argv else "the paper inputs"
    head = [f"# cpu backend on {what} ({stem.name})", "",
            f"- command: `python3 bench/cpu_paper_inputs.py {' '.join(argv)}`",
            f"- machine: {_machine()}",
            f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
            f"- commit: {_commit()}",
            "- times: solve_cpu_ms (process CPU time, the number to compare on a shared machine) and "
            "solve_ms (wall) exclude reading and preprocessing; median of `runs` runs after a warm-up",
            "- peak_rss_mib: max resident memory of the per-input subprocess (reading, preprocessing, "
            "solving, reference check)",
            "- table_mib, bytes_per_fact (that peak over the points-to facts of every node), live_sets_peak, "
            "memo_hits: the serial solver's set table (`cpu.solve` notes `set table ...`); digest: "
            "`bench._measure.solution_digest`",
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
    ap.add_argument("--corpus-dumps", type=Path, default=None,
                    help="measure the corpus programs' dumps in this folder instead of the paper inputs")
    ap.add_argument("--timeout-s", type=float, default=None, help="stop one input's subprocess after this long")
    ap.add_argument("--max-rss-gib", type=float, default=None,
                    help="stop one input's subprocess when its resident memory passes this")
    ap.add_argument("--one", help=argparse.SUPPRESS)   # internal: measure one program, print JSON
    args = ap.parse_args(argv)
    if any(n < 1 for n in args.threads):
        ap.error("--threads: each count must be at least 1")
    if args.one:
        print(json.dumps(measure_one(args.inputs, args.one, args.repeat, args.threads, args.corpus_dumps)))
        return 0
    if args.corpus_dumps is not None:
        sys.path.insert(0, str(ROOT))
        from bench._inputs import corpus_programs
        known = corpus_programs()
    else:
        known = PROGRAMS
    programs = [p for p in (args.only or known) if _find(args.inputs, p, args.corpus_dumps) is not None]
    rows = []
    for p in programs:
        cmd = [sys.executable, __file__, "--inputs", str(args.inputs), "--repeat", str(args.repeat),
               "--threads", *map(str, args.threads), "--one", p]
        if args.corpus_dumps is not None:
            cmd += ["--corpus-dumps", str(args.corpus_dumps)]
        out, err, stopped = _run_watched(cmd, args.timeout_s, args.max_rss_gib)
        if stopped or not out.strip():
            why = stopped or (err.strip().splitlines()[-1] if err.strip() else "failed")
            print(f"{p}: {why}", file=sys.stderr)
            rows.append({"program": p, "error": why})
            continue
        for row in json.loads(out.strip().splitlines()[-1]):
            print(json.dumps(row), flush=True)
            rows.append(row)
    write_tables(rows, args.out_stem, argv)
    print(args.out_stem.with_suffix(".md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
