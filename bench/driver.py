"""Benchmark driver: every input, every stage, every available backend, in one run.

Usage (from the checkout's root; ``andersen-gpu bench ...`` is the same)::

    python -m bench dump [PROGRAM ...]            # corpus bitcode -> .corpus-dumps/P.npz + P.json
    python -m bench run  [--suite paper corpus] [--backends cpu gpu reference] [PROGRAM ...]
    python -m bench report [--suite corpus]       # tables and plots again from the CSV
    python -m bench readme                        # README.md's benchmark tables from bench/results/*.csv

``run`` measures each input in a fresh subprocess (its peak resident memory is the input's
``peak_host_mib``): extraction (bitcode inputs), reading, offline preprocessing, then every
requested backend that can run here (``gpu`` only where CuPy sees a device; ``reference``, the
pure-Python solver, only on small inputs), each with a warm-up and the median of ``--repeat``
runs. It checks that every backend's solution, and the paper's reference solution where there
is one, is the same, and writes ``<out-dir>/<suite>.csv``, ``<suite>.md`` and plots
``<suite>-time.png``, ``<suite>-speedup.png``, ``<suite>-edges.png``.

On a GPU machine, ``--jobs K`` first runs gpu (and reference) input by input, alone on the
machine, then the cpu backend on K inputs at a time (single-threaded solves on separate cores)
so that both fit in one call; ``--deadline-s`` stops starting work in time to write the results.

``readme`` rewrites the tables of the top-level README between its ``<!-- bench:NAME -->`` and
``<!-- /bench:NAME -->`` markers from the committed CSVs (``paper-inputs.csv``, ``corpus.csv``)
and nothing else (:mod:`bench._readme`); exit status 2 when a CSV or a marker is missing.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._env import ROOT  # noqa: E402
from bench._inputs import (DEFAULT_CORPUS_DIR, DEFAULT_DUMPS_DIR, DEFAULT_PAPER_DIR,  # noqa: E402
                           DEFAULT_PAPER_DUMPS, SUITES, BenchInput, find_inputs)

DEFAULT_OUT = ROOT / "bench" / "results"
BACKENDS = ("cpu", "gpu", "reference")


# ------------------------------------------------------------------ arguments
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The driver's subcommands and options (shared by ``python -m bench`` and ``andersen-gpu bench``)."""
    sub = parser.add_subparsers(dest="bench_command", metavar="STEP", required=True)

    def locations(p, paper=True):
        p.add_argument("--corpus-dir", type=Path, default=DEFAULT_CORPUS_DIR,
                       help="corpus bitcode: DIR/P/P.bc (default .corpus)")
        p.add_argument("--dumps-dir", type=Path, default=DEFAULT_DUMPS_DIR,
                       help="corpus dumps: DIR/P.npz + P.json (default .corpus-dumps)")
        if paper:
            p.add_argument("--paper-dir", type=Path, default=DEFAULT_PAPER_DIR,
                           help="the paper's text dumps (default ../shared/paper-inputs)")
            p.add_argument("--paper-dumps", type=Path, default=DEFAULT_PAPER_DUMPS,
                           help="compact paper dumps used where --paper-dir lacks a program (default .inputs)")

    d = sub.add_parser("dump", help="extract corpus bitcode to compact .npz dumps (what travels to a GPU machine)")
    d.add_argument("programs", nargs="*", metavar="PROGRAM", help="corpus programs (default: all built)")
    d.add_argument("--force", action="store_true", help="extract again even where a dump exists")
    locations(d, paper=False)

    r = sub.add_parser("run", help="measure every stage and backend; write CSV, Markdown and plots")
    r.add_argument("programs", nargs="*", metavar="PROGRAM", help="inputs to run (default: all found)")
    r.add_argument("--suite", nargs="+", choices=SUITES, default=list(SUITES), help="input suites (default: both)")
    r.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS),
                   help="backends to run where available (default: all)")
    r.add_argument("--repeat", type=int, default=3, help="timed runs after the warm-up (default 3)")
    r.add_argument("--long-s", type=float, default=10.0,
                   help="a stage whose warm-up takes longer is run once only (default 10)")
    r.add_argument("--reference-max-edges", type=int, default=1_000_000,
                   help="run the reference backend only below this many final edges (default 1e6)")
    r.add_argument("--reference-max-constraints", type=int, default=50_000,
                   help="... and this many constraints after preprocessing (default 50,000)")
    r.add_argument("--jobs", type=int, default=1,
                   help="cpu backend on this many inputs at once, after the gpu pass (default 1: "
                        "every backend of an input in one process)")
    r.add_argument("--timeout-s", type=float, default=None, help="give up on one input's process after this long")
    r.add_argument("--deadline-s", type=float, default=None,
                   help="start no work after this many seconds from the start; the results are written")
    r.add_argument("--from-bitcode", action="store_true",
                   help="corpus: extract from .corpus bitcode even where a dump exists")
    r.add_argument("--merge", action="store_true",
                   help="keep the rows of inputs not run now from the existing CSV")
    r.add_argument("--out-dir", type=Path, default=DEFAULT_OUT, help="results folder (default bench/results)")
    r.add_argument("--no-plots", action="store_true")
    r.add_argument("--no-progress", action="store_true")
    locations(r)

    p = sub.add_parser("report", help="write the Markdown tables and plots again from <out-dir>/<suite>.csv")
    p.add_argument("--suite", nargs="+", choices=SUITES, default=list(SUITES))
    p.add_argument("--out-dir", type=Path, default=DEFAULT_OUT)
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--no-markdown", action="store_true",
                   help="plots only (keep the Markdown that the run wrote, with its command and settings)")
    p.add_argument("--extraction-from-dumps", action="store_true",
                   help="corpus: first take each row's extraction columns (extract_s, extract_cpu_s, ...) from "
                        "the records beside the dumps (after `python -m bench dump --force` here), where the "
                        "record has the row's node and constraint counts; writes the CSV")
    p.add_argument("--dumps-dir", type=Path, default=ROOT / ".corpus-dumps")

    m = sub.add_parser("readme", help="rewrite README.md's benchmark tables (between <!-- bench:NAME --> markers) "
                                      "from the CSVs in bench/results")
    m.add_argument("--readme", type=Path, default=ROOT / "README.md", help="the file to rewrite (default README.md)")
    m.add_argument("--results-dir", type=Path, default=DEFAULT_OUT,
                   help="where paper-inputs.csv and corpus.csv are (default bench/results)")
    m.add_argument("--check", action="store_true",
                   help="write nothing; exit status 1 when a table differs from what the CSVs give")


def run_args(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    """Run the parsed step; 0 on success, 1 when an input failed or backends disagreed (``readme``: 2 when
    a CSV or marker is missing)."""
    command = "python -m bench " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    if args.bench_command == "dump":
        return cmd_dump(args)
    if args.bench_command == "run":
        return cmd_run(args, command)
    if args.bench_command == "readme":
        from bench._readme import cmd_readme

        return cmd_readme(args.readme, args.results_dir, check=args.check)
    return cmd_report(args)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["_one"]:  # internal: measure one input in this process, JSON lines on stdout
        return _child(json.loads(argv[1]))
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return run_args(parser.parse_args(argv), argv)


# ------------------------------------------------------------------ progress
def _bar(total: int, desc: str, disable: bool):
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is a dependency of the package, but the GPU machine runs from the tree
        return _NoBar()
    return tqdm(total=total, desc=desc, unit="task", disable=disable, dynamic_ncols=True)


class _NoBar:
    def update(self, n=1): pass
    def set_postfix_str(self, s): pass
    def write(self, s): print(s, flush=True)
    def close(self): pass


# ------------------------------------------------------------------ subprocesses
def _child(spec: dict) -> int:
    from bench._measure import MeasureConfig, dump_one, measure_one

    inp = BenchInput.from_json(spec["input"])
    if spec["step"] == "dump":
        print(json.dumps(dump_one(inp, Path(spec["dumps_dir"]))), flush=True)
        return 0
    cfg = MeasureConfig(**spec["config"])
    measure_one(inp, cfg, emit=lambda line: print(line, flush=True))
    return 0


def _spawn(spec: dict, timeout: float | None) -> tuple[list[dict], str]:
    """Run one child; its JSON rows and, when it failed, why."""
    cmd = [sys.executable, "-m", "bench.driver", "_one", json.dumps(spec)]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        out, err, failure = proc.stdout, proc.stderr, ""
        if proc.returncode != 0:
            tail = [ln for ln in err.strip().splitlines() if ln.strip()]
            failure = tail[-1] if tail else f"exit status {proc.returncode}"
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        failure = f"timeout after {timeout:.0f} s"
    rows = [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")]
    return rows, failure


# ------------------------------------------------------------------ dump
def cmd_dump(args) -> int:
    inputs, missing = find_inputs(["corpus"], args.programs, corpus_dir=args.corpus_dir, dumps_dir=args.dumps_dir,
                                  prefer_bitcode=True)
    todo = [i for i in inputs
            if i.kind == "bitcode" and (args.force or not (args.dumps_dir / f"{i.name}.npz").is_file())]
    for m in missing:
        print(f"{m}: no bitcode (bench/corpus/build.sh builds it)", file=sys.stderr)
    bar = _bar(len(todo), "dump", False)
    status = 0
    for inp in todo:
        bar.set_postfix_str(inp.name)
        rows, failure = _spawn({"step": "dump", "input": inp.to_json(), "dumps_dir": str(args.dumps_dir)}, None)
        if failure:
            bar.write(f"{inp.name}: FAILED: {failure}")
            status = 1
        for r in rows:
            bar.write(f"{r['program']:12s} {r['llvm_instructions']:>9,} instructions  extract {r['extract_s']:6.1f} s"
                      f"  {r['nodes']:>9,} nodes {r['constraints']:>9,} constraints"
                      f"  dump {r['dump_bytes'] / 2**20:5.1f} MiB")
        bar.update()
    bar.close()
    have = sorted(args.dumps_dir.glob("*.npz")) if args.dumps_dir.is_dir() else []
    size = sum(p.stat().st_size for p in have)
    print(f"{len(have)} dumps in {args.dumps_dir}, {size / 2**20:.1f} MiB together")
    return status


# ------------------------------------------------------------------ run
def _plan(inputs: list[BenchInput], backends: list[str], jobs: int, gpu_here: bool) -> tuple[list, list]:
    """(sequential tasks, parallel tasks): each task is (input, backends run in one process).

    With ``jobs`` > 1 and a GPU here, the gpu pass (with reference, which is gated on the final
    edge count of the backend before it) runs input by input first, then cpu runs ``jobs`` inputs
    at a time, largest first (by file size) so that the longest solves do not start last.
    Without a GPU, every backend of an input runs in one process, ``jobs`` inputs at a time.
    """
    if jobs <= 1:
        return [(i, backends) for i in inputs], []
    largest_first = sorted(inputs, key=lambda i: -(i.path.stat().st_size if i.path and i.path.is_file() else 0))
    if gpu_here and "cpu" in backends and len(backends) > 1:
        return [(i, [b for b in backends if b != "cpu"]) for i in inputs], [(i, ["cpu"]) for i in largest_first]
    return [], [(i, backends) for i in largest_first]


def cmd_run(args, command: str) -> int:
    import andersen_gpu
    from bench import _env
    from bench._measure import MeasureConfig, extraction_fields

    t_start = time.monotonic()
    inputs, missing = find_inputs(args.suite, args.programs, paper_dir=args.paper_dir, paper_dumps=args.paper_dumps,
                                  corpus_dir=args.corpus_dir, dumps_dir=args.dumps_dir,
                                  prefer_bitcode=args.from_bitcode)
    for m in missing:
        print(f"{m}: not found here, skipped", file=sys.stderr)
    if not inputs:
        print("no inputs found", file=sys.stderr)
        return 1
    backends = [b for b in BACKENDS if b in args.backends]
    gpu_ok, gpu_why = andersen_gpu.gpu_available()
    if "gpu" in backends and not gpu_ok:
        print(f"gpu backend not available here ({gpu_why}): recorded as skipped", file=sys.stderr)
    cfg = MeasureConfig(backends=tuple(backends), repeat=args.repeat, long_s=args.long_s,
                        reference_max_edges=args.reference_max_edges,
                        reference_max_constraints=args.reference_max_constraints)
    seq, par = _plan(inputs, backends, args.jobs, gpu_ok)
    meta = dict(command=command, machine=_env.host(), gpu=gpu_why if gpu_ok else "", date=_env.today(),
                commit=_env.commit(), backends=" ".join(backends), repeat=args.repeat, long_s=args.long_s,
                jobs=max(1, args.jobs) if par else 1)
    previous = _previous_digests(args.out_dir, args.suite)
    rows: list[dict] = []
    lock = threading.Lock()
    bar = _bar(len(seq) + len(par), "bench", args.no_progress)

    def do(task, concurrent: int) -> None:
        inp, bks = task
        left = None if args.deadline_s is None else args.deadline_s - (time.monotonic() - t_start)
        if left is not None and left < 5:
            got, failure = [], "not started: --deadline-s reached"
        else:
            limits = [t for t in (args.timeout_s, left) if t is not None]
            timeout = min(limits) if limits else None
            spec = {"step": "run", "input": inp.to_json(),
                    "config": dict(vars(cfg), backends=list(bks))}
            got, failure = _spawn(spec, timeout)
        done = {r["backend"] for r in got}
        known = extraction_fields(inp.extraction)  # so that a row of a run that failed still says what it was
        known.update({k: inp.extraction[k] for k in ("nodes", "constraints") if k in inp.extraction})
        got += [dict(suite=inp.suite, program=inp.name, backend=b, error=failure or "no result", **known)
                for b in bks if b not in done]
        for r in got:
            r.update(concurrent_jobs=concurrent)
        with lock:
            rows.extend(got)
            bar.update()
            bar.set_postfix_str(inp.name)
            for r in got:
                bar.write(_line(r))
            _write_all(rows, args, meta, previous, plots=False)

    for task in seq:
        do(task, 1)
    if par:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            list(pool.map(lambda t: do(t, max(1, args.jobs)), par))
    bar.close()
    failed = _write_all(rows, args, meta, previous, plots=not args.no_plots, announce=True)
    return 1 if failed else 0


def _line(r: dict) -> str:
    head = f"{r['suite']:6s} {r['program']:12s} {r['backend']:9s}"
    if r.get("error") or r.get("skipped"):
        return f"{head} {'FAILED: ' + r['error'] if r.get('error') else r['skipped']}"
    return (f"{head} {r['solve_ms_median']:11,.1f} ms median of {r['runs']}  preprocess {r['preprocess_ms']:9,.1f} ms  "
            f"{r['final_edges']:>13,} edges  host {r.get('peak_host_mib', 0):,.0f} MiB")


def _previous_digests(out_dir: Path, suites) -> dict:
    """{(suite, program): set of digests} of the results already in ``out_dir`` (to compare with)."""
    import pandas as pd

    prev: dict = {}
    for suite in suites:
        path = out_dir / f"{suite}.csv"
        if path.is_file():
            df = pd.read_csv(path)
            if "digest" in df:
                for r in df[df.digest.notna()].itertuples():
                    prev.setdefault((suite, r.program), set()).add(r.digest)
    return prev


def _write_all(rows: list[dict], args, meta: dict, previous: dict, plots: bool, announce: bool = False) -> bool:
    """Write every suite's CSV and Markdown (and plots); True when an input failed or disagreed."""
    import pandas as pd

    from bench import _report

    failed = False
    records = _extraction_records(args.dumps_dir)
    for suite in dict.fromkeys(r["suite"] for r in rows):
        srows = [dict(r) for r in rows if r["suite"] == suite]
        for program in dict.fromkeys(r["program"] for r in srows):
            group = [r for r in srows if r["program"] == program]
            _report.agreement(group)
            before = previous.get((suite, program))
            for r in group:
                if r.get("digest") and before:
                    r["same_as_previous_run"] = r["digest"] in before and len(before) == 1
                r.update(machine=meta["machine"], date=meta["date"], commit=meta["commit"])
                failed |= bool(r.get("error")) or r.get("agrees") is False
        path = args.out_dir / f"{suite}.csv"
        args.out_dir.mkdir(parents=True, exist_ok=True)
        if args.merge and path.is_file():
            old = pd.read_csv(path)
            kept = old[~old.program.isin({r["program"] for r in srows})]
            df = pd.concat([kept, _report.ordered_frame(srows)], ignore_index=True)
        else:
            df = _report.ordered_frame(srows)
        df = _report.ordered_frame([_with_record(r, records) for r in df.to_dict("records")])
        df.to_csv(path, index=False)
        _report.write_markdown(df, path.with_suffix(".md"), dict(meta, suite=suite))
        written = _report.write_plots(df, args.out_dir, suite) if plots else []
        if announce:
            print(f"wrote {path}, {path.with_suffix('.md')}" + "".join(f", {p}" for p in written))
    return failed


def _extraction_records(dumps_dir: Path) -> dict[str, dict]:
    """The extraction records (``P.json``) beside the corpus dumps, by program."""
    if not dumps_dir.is_dir():
        return {}
    return {p.stem: json.loads(p.read_text()) for p in sorted(dumps_dir.glob("*.json"))}


def _with_record(row: dict, records: dict) -> dict:
    """A corpus row whose process died before it said what it was measuring gets its extraction record."""
    from bench._measure import extraction_fields

    record = records.get(row["program"]) if row.get("suite") == "corpus" else None
    if record is None or not _missing(row.get("llvm_instructions")):
        return row
    filled = dict(extraction_fields(record), nodes=record.get("nodes"), constraints=record.get("constraints"))
    return {**row, **{k: v for k, v in filled.items() if _missing(row.get(k))}}


def _refresh_extraction(df, records: dict):
    """``df`` (corpus rows) with the extraction columns of each program's record, where the
    record describes the same input (equal node and constraint counts); says what it skipped."""
    import pandas as pd

    from bench._measure import extraction_fields

    rows = df.to_dict("records")
    for program in dict.fromkeys(r["program"] for r in rows):
        record = records.get(program)
        mine = [r for r in rows if r["program"] == program]
        if record is None:
            print(f"{program}: no extraction record beside the dumps; kept", file=sys.stderr)
            continue
        counts = {(r.get("nodes"), r.get("constraints")) for r in mine}
        if counts != {(record.get("nodes"), record.get("constraints"))}:
            print(f"{program}: the record has {record.get('nodes')} nodes and {record.get('constraints')} "
                  f"constraints, the results {sorted(counts)}: kept", file=sys.stderr)
            continue
        for r in mine:
            r.update(extraction_fields(record))
    return pd.DataFrame(rows, columns=df.columns)


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and v != v)


# ------------------------------------------------------------------ report
def _cross_check(df):
    """``df`` with ``agrees`` and ``checked_against`` set again over each input's rows of one commit:
    rows that separate runs wrote (the GPU's and the cpu backend's of one device call, merged into one
    CSV) are compared by digest as rows of one run are; rows of different commits never are."""
    import pandas as pd

    from bench import _report

    if not {"digest", "commit", "program"} <= set(df.columns):
        return df
    out = []
    for _, g in df.groupby(["program", "commit"], sort=False, dropna=False):
        rows = g.to_dict("records")
        for r in rows:
            r["digest"] = r["digest"] if pd.notna(r.get("digest")) else None
        if sum(1 for r in rows if r["digest"]) >= 2:
            _report.agreement(rows)
        out.extend(rows)
    return pd.DataFrame(out, columns=df.columns).loc[:, df.columns]


def cmd_report(args) -> int:
    import pandas as pd

    from bench import _report

    status = 1
    for suite in args.suite:
        path = args.out_dir / f"{suite}.csv"
        if not path.is_file():
            print(f"{path}: no results", file=sys.stderr)
            continue
        df = pd.read_csv(path)
        if suite == "corpus" and args.extraction_from_dumps:
            df = _refresh_extraction(df, _extraction_records(args.dumps_dir))
        df = _cross_check(df)
        df.to_csv(path, index=False)
        first = df.iloc[0]
        meta = dict(suite=suite, command=f"python -m bench report --suite {suite} (tables of an earlier run)",
                    machine=first.get("machine", "?"), gpu="", date=first.get("date", "?"),
                    commit=first.get("commit", "?"), backends=" ".join(dict.fromkeys(df.backend)),
                    repeat="?", long_s="?", jobs=int(df.concurrent_jobs.max()) if "concurrent_jobs" in df else 1)
        if "device" in df and df.device.notna().any():
            meta["gpu"] = df.device.dropna().iloc[0]
        written = [] if args.no_markdown else [path.with_suffix(".md")]
        if not args.no_markdown:
            _report.write_markdown(df, path.with_suffix(".md"), meta)
        written += [] if args.no_plots else _report.write_plots(df, args.out_dir, suite)
        print("wrote " + ", ".join(map(str, written)) if written else "nothing to write")
        status = 0
    return status


if __name__ == "__main__":
    sys.exit(main())
