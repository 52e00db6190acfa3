"""Time the solvers on the paper's benchmark inputs; check them against the reference solutions.

Usage
-----
Make compact dumps here (they travel to a GPU machine in the git-ignored ``.inputs/``)::

    python3 bench/gpu_paper_inputs.py dump [--inputs ../shared/paper-inputs] [names...]

Time on the GPU machine (writes ``bench/results/paper-inputs.{csv,md}``)::

    PYTHONPATH=. python3 bench/gpu_paper_inputs.py time [--repeat 3] [--cpu] [names...]

"Solve time" is from parsed constraint arrays in host memory to the full solution on the
device (host-to-device copy and graph building included); the copy back is reported
separately (``copy_back_ms``). The median of ``--repeat`` runs after one warm-up is reported.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._env import commit  # noqa: E402
from constraints.model import ConstraintSet  # noqa: E402

PROGRAMS = ("ex", "gcc", "perl", "vim", "svn", "python", "nh", "gs", "gdb", "php", "pine", "mplayer",
            "gimp", "linux")
WITH_REFERENCE = ("ex", "gcc", "perl", "vim")
# the paper's CUDA code ported to the H200: median solve ms (issue 3)
ORIGINAL_MS = dict(ex=94, gcc=131, perl=129, vim=2478, svn=357, python=267, nh=95, gs=112, gdb=502,
                   php=901, pine=1120, mplayer=1220, gimp=849, linux=1581)
DUMPS = ROOT / ".inputs"
_ARRAYS = ("obj_size", "kind", "addr_dst", "addr_src", "copy_dst", "copy_src", "load_dst", "load_src",
           "store_dst", "store_src", "gep_dst", "gep_src", "gep_offset", "hcd_ptr", "hcd_target")


def save_dump(cs: ConstraintSet, path: Path) -> None:
    """Write the arrays of ``cs`` (no names) to a compressed ``.npz``."""
    arrays = {k: getattr(cs, k) for k in _ARRAYS}
    arrays["n_nodes"] = np.array(cs.n_nodes)
    arrays["int_to_pointer"] = np.array(cs.int_to_pointer)
    arrays["offline_rep"] = cs.rep
    np.savez_compressed(path, **arrays)


def load_dump(path: Path) -> ConstraintSet:
    """Read a dump written by :func:`save_dump`."""
    with np.load(path) as z:
        kw = {k: z[k] for k in _ARRAYS}
        return ConstraintSet(int(z["n_nodes"]), int_to_pointer=int(z["int_to_pointer"]),
                             offline_rep=z["offline_rep"], **kw)


def cmd_dump(args) -> int:
    from andersen_gpu.solution import Solution
    from constraints.paper_format import read_paper
    DUMPS.mkdir(exist_ok=True)
    src = Path(args.inputs)
    for name in args.names or PROGRAMS:
        cs = read_paper(src / f"{name}_nodes.txt.gz")
        save_dump(cs, DUMPS / f"{name}.npz")
        ref = src / f"{name}_correct_soln_001.txt.gz"
        if ref.is_file():
            Solution.load(ref).save(DUMPS / f"{name}_soln.npz")
        print(name, cs.n_nodes, cs.n_constraints, flush=True)
    return 0


def _time_backend(name: str, backend: str, cs: ConstraintSet, repeat: int, ref, out_rows: list,
                  options: dict) -> object:
    from andersen_gpu.solve import solve
    sol = solve(cs, backend=backend, **options)  # warm-up (compiles kernels, fills caches)
    times, backs, sols = [], [], []
    for _ in range(repeat):
        t = time.perf_counter()
        s = solve(cs, backend=backend, **options)
        times.append(s.stats.solve_ms if s.stats and s.stats.solve_ms else (time.perf_counter() - t) * 1e3)
        backs.append(float(s.stats.notes.get("copy_back_ms", 0.0)) if s.stats else 0.0)
        sols.append(s)
    # per-kernel times from one more run with CUDA events (they cost ~0.1 ms a round, so the
    # timed runs go without them)
    timed_kernels = solve(cs, backend=backend, kernel_timing=True, **options).stats if backend == "gpu" else None
    agrees = "" if ref is None else str(all(s == ref for s in sols))
    deterministic = all(s == sols[0] for s in sols[1:])
    st = sols[-1].stats
    row = dict(input=name, backend=backend, preprocess=options.get("preprocess", True),
               options=";".join(f"{k}={v}" for k, v in sorted(options.items())),
               device=st.device if st else "", commit=commit(),
               solve_ms_median=round(statistics.median(times), 2), solve_ms_min=round(min(times), 2),
               runs=repeat, agrees=agrees, deterministic=deterministic,
               iterations=st.iterations if st else 0, copy_back_ms=round(statistics.median(backs), 2),
               peak_device_bytes=st.peak_device_bytes if st else 0, pool_bytes=st.pool_bytes if st else 0,
               final_edges=sols[-1].n_edges, distinct_sets=sols[-1].n_sets,
               original_ms=ORIGINAL_MS.get(name, ""))
    if st and "preprocess_ms" in st.notes:
        row["preprocess_ms"] = st.notes["preprocess_ms"]
    if backend == "gpu" and st:
        for key in ("graph_build_ms", "sets_made", "live_sets", "compactions", "memo_hits", "memo_misses",
                    "unions", "round_retries"):
            if key in st.notes:
                row[key] = st.notes[key]
        row["bytes_per_edge"] = round(st.peak_device_bytes / max(1, row["final_edges"]), 3)
        row["kernel_ms"] = ";".join(f"{k}={v:.1f}" for k, v in sorted(timed_kernels.kernel_ms.items()))
    out_rows.append(row)
    print(f"{name:8s} {backend:4s} pre={row['preprocess']!s:5s} median {row['solve_ms_median']:9.1f} ms  iters {row['iterations']:5d}  "
          f"agrees {agrees or '-':5s} det {deterministic}  edges {row['final_edges']:,}  "
          f"{row.get('kernel_ms', '')} pre={row.get('preprocess_ms', '')} build={row.get('graph_build_ms', '')} "
          f"sets={row.get('sets_made', '')} compactions={row.get('compactions', '')} "
          f"memo={row.get('memo_hits', '')}/{row.get('memo_misses', '')}", flush=True)
    return sols[-1]


def cmd_time(args) -> int:
    from andersen_gpu.solution import Solution
    rows: list[dict] = []
    variants = [("gpu", {})]
    if args.no_preprocess:
        variants.append(("gpu", {"preprocess": False}))
    for spec in args.variant or []:
        variants.append(("gpu", _parse_options(spec)))
    if args.cpu:
        try:
            import andersen_gpu.backends.cpu  # noqa: F401
            variants.append(("cpu", {}))
        except ImportError:
            print("cpu backend not present: timing gpu only", flush=True)
    for name in args.names or PROGRAMS:
        path = DUMPS / f"{name}.npz"
        if not path.is_file():
            print(f"{name}: no dump at {path}, skipped", flush=True)
            continue
        cs = load_dump(path)
        ref_path = DUMPS / f"{name}_soln.npz"
        ref = Solution.load(ref_path) if ref_path.is_file() else None
        sols = {}
        for backend, options in variants:
            try:
                sol = _time_backend(name, backend, cs, args.repeat, ref, rows, options)
                if ref is None and backend == "gpu" and "gpu" in sols:
                    # every gpu variant against the first (the defaults)
                    rows[-1]["agrees"] = f"same as gpu defaults: {sol == sols['gpu']}"
                    print(f"{name:8s} variant {rows[-1]['options']}: {rows[-1]['agrees']}", flush=True)
                sols.setdefault(backend, sol)
            except Exception as exc:  # keep timing the other inputs; record the failure
                print(f"{name} {backend}: FAILED {exc.__class__.__name__}: {exc}", flush=True)
                rows.append(dict(input=name, backend=backend, commit=commit(), agrees="error",
                                 error=f"{exc.__class__.__name__}: {exc}"))
        if ref is None and "cpu" in sols and "gpu" in sols:
            same = sols["gpu"] == sols["cpu"]
            for r in rows[-len(variants):]:
                r["agrees"] = f"gpu==cpu: {same}"
        _write(rows, args)  # after every input, so that a run cut short keeps what it measured
    _write(rows, args, final=True)
    return 0


def _parse_options(spec: str) -> dict:
    """``"pointee_order=false,capacity=4096"`` -> ``{"pointee_order": False, "capacity": 4096}``
    (ints, floats; true/false)."""
    out: dict = {}
    for item in filter(None, spec.split(",")):
        key, _, value = item.partition("=")
        low = value.strip().lower()
        out[key.strip()] = (True if low == "true" else False if low == "false"
                            else float(value) if "." in value else int(value))
    return out


def markdown_table(df) -> str:
    """A GitHub Markdown table of a DataFrame (no dependency on tabulate)."""
    def cell(v) -> str:
        return "" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)
    head = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "| " + " | ".join("---" for _ in df.columns) + " |"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def _write(rows: list[dict], args, final: bool = False) -> None:
    import pandas as pd
    df = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "paper-inputs.csv", index=False)
    gpu = df[df.backend == "gpu"].dropna(subset=["solve_ms_median"]) if "solve_ms_median" in df else df.iloc[:0]
    if len(gpu):  # the default options only: picking each input's best variant would flatter
        gpu = gpu[gpu.options.fillna("") == ""].drop_duplicates("input")
    lines = [f"# Paper inputs: median solve time (ms)\n",
             f"Command: `PYTHONPATH=. python3 bench/gpu_paper_inputs.py time --repeat {args.repeat}"
             f"{' --cpu' if args.cpu else ''}{' --no-preprocess' if args.no_preprocess else ''}"
             f"{''.join(f' --variant {v}' for v in args.variant or [])}`; "
             f"machine: {platform.node()}; commit {commit()}.\n",
             markdown_table(df.drop(columns=[c for c in ("kernel_ms",) if c in df])) + "\n"]
    if len(gpu):
        speedups = [ORIGINAL_MS[r.input] / r.solve_ms_median for r in gpu.itertuples() if r.input in ORIGINAL_MS]
        if speedups:
            geo = float(np.exp(np.mean(np.log(speedups))))
            lines.append(f"\nGeometric-mean speed-up over the original CUDA code on the H200: {geo:.2f}x "
                         f"over {len(speedups)} inputs.\n")
    (out / "paper-inputs.md").write_text("\n".join(lines))
    if final:
        print("\n".join(lines[-1:]), flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="write .inputs/NAME.npz (+ NAME_soln.npz) from the paper files")
    d.add_argument("--inputs", default=str(ROOT.parent / "shared" / "paper-inputs"))
    d.add_argument("names", nargs="*")
    t = sub.add_parser("time", help="time the solvers on the dumps in .inputs/")
    t.add_argument("--repeat", type=int, default=3)
    t.add_argument("--cpu", action="store_true", help="also time the cpu backend when it exists")
    t.add_argument("--no-preprocess", action="store_true",
                   help="also time the gpu backend without the offline collapse")
    t.add_argument("--variant", action="append",
                   help="also time the gpu backend with these solve() options, e.g. pointee_order=false,capacity=65536 "
                        "(repeatable; compared with the reference, else with the gpu defaults)")
    t.add_argument("--out", default=str(ROOT / "bench" / "results"))
    t.add_argument("names", nargs="*")
    args = ap.parse_args(argv)
    return cmd_dump(args) if args.cmd == "dump" else cmd_time(args)


if __name__ == "__main__":
    sys.exit(main())
