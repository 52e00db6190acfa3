"""CPU time of the offline preprocessing (``collapse``) on the paper inputs.

For each program: process CPU time (``time.process_time``, best of
``--repeat``) of ``collapse`` with the default settings and with more HVN
passes / rounds, the nodes (representatives) and constraints left by each,
and the cpu backend's solve time on each result (``cpu.solve(work,
preprocess=False)``, preprocessing excluded) so the trade-off is visible.
Optionally (``--before DIR``) the same for an older copy of
``andersen_gpu/preprocess`` imported from DIR as package ``oldpre``, timed
in the same process. Where a reference solution exists the default result is
checked against it (``--check``).

    nice python3 bench/preprocess_speed.py --only gs vim gdb gcc linux
    python3 bench/preprocess_speed.py --before /tmp/oldpre-parent --check \\
        --out-stem bench/results/preprocess-speed

Writes ``<out-stem>.csv`` and ``<out-stem>.md`` (machine, date, commit).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_INPUTS = Path(os.environ.get("ANDERSEN_PAPER_INPUTS", ROOT.parent / "shared" / "paper-inputs"))
PROGRAMS = ["ex", "gcc", "perl", "vim", "svn", "python", "nh", "gs", "gdb", "php", "pine", "mplayer", "linux"]
REFERENCE = {"ex", "gcc", "perl", "vim"}
FAST = {"ex", "gcc", "perl", "nh", "gs"}           # solves under a second: best of --repeat
# (label, collapse kwargs): the default first
VARIANTS = [("default (1 round, 2 passes)", {}),
            ("1 pass", {"hvn_passes": 1}),
            ("4 passes", {"hvn_passes": 4}),
            ("fixpoint (8 rounds x 8 passes)", {"max_passes": 8, "hvn_passes": 8, "min_gain": 0.0}),
            ("scc only", {"hvn": False})]


def best_cpu(fn, repeat: int):
    out, best = None, float("inf")
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best * 1e3, out


def measure(inputs: Path, program: str, repeat: int, solve: bool, old, check: bool) -> list[dict]:
    from andersen_gpu.backends import cpu
    from andersen_gpu.preprocess import collapse
    from constraints.paper_format import read_paper

    cs = read_paper(inputs / f"{program}_nodes.txt.gz")
    variants = [(label, (lambda kw=kw: collapse(cs, **kw))) for label, kw in VARIANTS]
    if old is not None:
        variants.append(("before (8 rounds, rewrite each)", lambda: old(cs)))
    rows = []
    for label, fn in variants:
        ms, (work, st) = best_cpu(fn, repeat)
        row = {"input": program, "variant": label, "preprocess_cpu_ms": round(ms, 1),
               "nodes_before": st.nodes_before, "nodes_after": st.nodes_after,
               "constraints_before": st.constraints_before["total"],
               "constraints_after": st.constraints_after["total"],
               "hvn_passes": getattr(st, "hvn_passes", st.passes), "rounds": st.passes}
        if solve is True or program in solve:
            sms, sol = best_cpu(lambda: cpu.solve(work, preprocess=False), repeat if program in FAST else 1)
            row["solve_cpu_ms"] = round(sms, 1)
            row["total_cpu_ms"] = round(ms + sms, 1)
            if check and label.startswith("default") and program in REFERENCE:
                from andersen_gpu.solution import Solution
                ref = Solution.load(inputs / f"{program}_correct_soln_001.txt.gz")
                row["equals_reference"] = bool(ref == sol)
            del sol
        rows.append(row)
        print(row, flush=True)
    return rows


def _markdown(df) -> str:
    """A Markdown pipe table (pandas' ``to_markdown`` needs tabulate, not a dependency)."""
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join("" if (isinstance(v, float) and v != v) else str(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def summary(df):
    """One row per input: the default variant against the old code (``before``), and one pass."""
    import numpy as np
    import pandas as pd
    pick = {name: df[df.variant.str.startswith(prefix)].set_index("input")
            for name, prefix in (("new", "default"), ("old", "before"), ("one", "1 pass"))}
    new, old, one = pick["new"], pick["old"], pick["one"]
    if old.empty:
        return None
    out = pd.DataFrame({"before_ms": old.preprocess_cpu_ms, "after_ms": new.preprocess_cpu_ms,
                        "speedup": (old.preprocess_cpu_ms / new.preprocess_cpu_ms).round(1),
                        "one_pass_ms": one.preprocess_cpu_ms,
                        "one_pass_speedup": (old.preprocess_cpu_ms / one.preprocess_cpu_ms).round(1),
                        "nodes_before": old.nodes_after, "nodes_after": new.nodes_after,
                        "nodes_one_pass": one.nodes_after,
                        "constraints_before": old.constraints_after, "constraints_after": new.constraints_after})
    if "solve_cpu_ms" in df:
        out["solve_ms_before"] = old.solve_cpu_ms
        out["solve_ms_after"] = new.solve_cpu_ms
        out["solve_ms_one_pass"] = one.solve_cpu_ms
    out = out.reset_index()
    geo = {c: round(float(np.exp(np.log(out[c]).mean())), 1) for c in ("speedup", "one_pass_speedup")}
    return out, geo


def write_markdown(df, path: Path, cmd: str) -> None:
    with open(path, "w") as f:
        f.write("# Offline preprocessing (`collapse`): CPU time and what it buys\n\n")
        f.write(f"- machine: {df['machine'].iloc[0]}\n- date: {datetime.date.today()}\n"
                f"- commit: {df['commit'].iloc[0]}\n- command: `{cmd}`\n")
        f.write("- times: process CPU time (`time.process_time`), best of the repeats, in one process "
                "(a shared, loaded 2-core VM: expect +-20 % noise); solve = `cpu.solve(result, preprocess=False)`; "
                "`before` = the preprocess package as it was before the rewrite (8 rounds of SCC + HVN keyed by "
                "pointer id, rewriting the constraint set each round)\n\n")
        summ = summary(df)
        if summ is not None:
            table, geo = summ
            f.write(f"## Before / after (default: 1 round, 2 HVN passes)\n\ngeometric-mean speedup: default "
                    f"{geo['speedup']}x, one pass {geo['one_pass_speedup']}x\n\n")
            f.write(_markdown(table))
            f.write("\n## Every variant\n\n")
        f.write(_markdown(df.drop(columns=["machine", "commit"])))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=Path, default=DEFAULT_INPUTS)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-solve", action="store_true", help="skip the cpu backend's solve on each result")
    ap.add_argument("--solve-only", nargs="*", default=None,
                    help="solve only these inputs' results (the big ones take minutes per variant)")
    ap.add_argument("--before", type=Path, default=None,
                    help="folder holding an older preprocess package as 'oldpre' (timed alongside)")
    ap.add_argument("--check", action="store_true", help="compare the default result's solution to the reference")
    ap.add_argument("--out-stem", type=Path, default=None)
    args = ap.parse_args(argv)

    import pandas as pd

    from andersen_gpu.backends import cpu
    from andersen_gpu.preprocess import collapse
    from constraints.model import ConstraintSet

    warm = ConstraintSet.from_lists(3, obj_size={1: 1}, addr=[(0, 1)], copy=[(0, 2)], load=[(2, 0)])
    collapse(warm)
    cpu.solve(warm)
    old = None
    if args.before is not None:
        sys.path.insert(0, str(args.before))
        from oldpre import collapse as old  # noqa: PLC0415
        old(warm)
    rows = []
    for program in args.only or PROGRAMS:
        if not (args.inputs / f"{program}_nodes.txt.gz").is_file():
            print(f"skip {program}: no nodes file", file=sys.stderr)
            continue
        solve = False if args.no_solve else (set(args.solve_only) if args.solve_only is not None else True)
        rows += measure(args.inputs, program, args.repeat, solve, old, args.check)
    df = pd.DataFrame(rows)
    if args.out_stem is None:
        print(df.to_string(index=False))
        return 0
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "andersen_gpu/preprocess"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    machine = f"{platform.node()} ({platform.processor() or platform.machine()}, {os.cpu_count()} cores, shared)"
    df.insert(0, "machine", machine)
    df.insert(1, "commit", commit + ("+uncommitted preprocess" if dirty else ""))
    args.out_stem.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out_stem.with_suffix(".csv"), index=False)
    cmd = "python3 bench/preprocess_speed.py " + " ".join(argv if argv is not None else sys.argv[1:])
    write_markdown(df, args.out_stem.with_suffix(".md"), cmd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
