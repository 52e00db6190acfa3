"""CPU time of the offline preprocessing (``collapse``) on the paper inputs.

For each program: process CPU time (``time.process_time``, best of
``--repeat``) of ``collapse`` with the default settings and with other HVN
passes / rounds, the nodes (representatives) and constraints left by each,
and the cpu backend's solve time on each result (``cpu.solve(work,
preprocess=False)``, preprocessing excluded) so the trade-off is visible.
Optionally (``--before DIR``) the same for an older copy of
``andersen_gpu/preprocess`` imported from DIR as package ``oldpre``, timed
in the same process, interleaved with the new one. Where a reference
solution exists the default result is checked against it (``--check``).
Inputs are found by ``bench/_inputs.py``: the text dumps of
``../shared/paper-inputs``, else (or with ``--npz``) the compact
``.inputs/B.npz`` written by ``bench/gpu_paper_inputs.py dump``.

    nice python3 bench/preprocess_speed.py --npz --only gs vim gdb gcc linux
    mkdir -p /tmp/before && git archive 73f0560 andersen_gpu/preprocess | tar -x -C /tmp/before \\
        && mv /tmp/before/andersen_gpu/preprocess /tmp/before/oldpre
    python3 bench/preprocess_speed.py --npz --before /tmp/before --check --solve-only ex gcc perl vim \\
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
REFERENCE = {"ex", "gcc", "perl", "vim"}
FAST = {"ex", "gcc", "perl", "nh", "gs"}           # solves under a second: best of --repeat
# (label, collapse kwargs): the default first
VARIANTS = [("default (1 round, 2 passes)", {}),
            ("1 pass", {"hvn_passes": 1}),
            ("4 passes", {"hvn_passes": 4}),
            ("fixpoint (8 rounds x 8 passes)", {"max_passes": 8, "hvn_passes": 8, "min_gain": 0.0}),
            ("scc only", {"hvn": False}),
            ("hu", {"hu": True})]
BEFORE = "before"


def best_cpu(fns, repeat: int):
    """Best process CPU ms of each function over ``repeat`` rounds (interleaved), and its last result."""
    best = [float("inf")] * len(fns)
    outs = [None] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t = time.process_time()
            outs[i] = fn()
            best[i] = min(best[i], time.process_time() - t)
    return [b * 1e3 for b in best], outs


def _solve_this(label: str, solve_variants) -> bool:
    return solve_variants is None or any(label.startswith(v) for v in solve_variants)


def measure(inp, repeat: int, solve, old, check: bool, solve_variants=None, solve_repeat=None) -> list[dict]:
    from andersen_gpu.backends import cpu
    from andersen_gpu.preprocess import collapse
    from bench._inputs import load_constraints, load_solution

    program = inp.name
    cs = load_constraints(inp)
    variants = [(label, (lambda kw=kw: collapse(cs, **kw))) for label, kw in VARIANTS]
    if old is not None:
        variants.append((BEFORE, lambda: old(cs)))
    times, outs = best_cpu([fn for _, fn in variants], repeat)
    rows = []
    for (label, _), ms, (work, st) in zip(variants, times, outs):
        row = {"input": program, "variant": label, "preprocess_cpu_ms": round(ms, 1),
               "nodes_before": st.nodes_before, "nodes_after": st.nodes_after,
               "constraints_before": st.constraints_before["total"],
               "constraints_after": st.constraints_after["total"],
               "hvn_passes": getattr(st, "hvn_passes", st.passes), "rounds": st.passes}
        if (solve is True or (solve and program in solve)) and _solve_this(label, solve_variants):
            reps = solve_repeat if solve_repeat is not None else (repeat if program in FAST else 1)
            (sms,), (sol,) = best_cpu([lambda: cpu.solve(work, preprocess=False)], reps)
            row["solve_cpu_ms"] = round(sms, 1)
            row["total_cpu_ms"] = round(ms + sms, 1)
            if check and label.startswith("default") and program in REFERENCE and inp.solution is not None:
                row["equals_reference"] = bool(load_solution(inp.solution) == sol)
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
    """One row per input: the default variant against the old code (``before``)."""
    import numpy as np
    import pandas as pd
    new = df[df.variant.str.startswith("default")].set_index("input")
    old = df[df.variant == BEFORE].set_index("input")
    scc = df[df.variant == "scc only"].set_index("input")
    hu = df[df.variant == "hu"].set_index("input")
    if old.empty:
        return None
    out = pd.DataFrame({"before_ms": old.preprocess_cpu_ms, "after_ms": new.preprocess_cpu_ms,
                        "speedup": (old.preprocess_cpu_ms / new.preprocess_cpu_ms).round(1),
                        "nodes_in": new.nodes_before, "nodes_scc_only": scc.nodes_after,
                        "nodes_before": old.nodes_after, "nodes_after": new.nodes_after,
                        "constraints_in": new.constraints_before, "constraints_scc_only": scc.constraints_after,
                        "constraints_before": old.constraints_after, "constraints_after": new.constraints_after})
    if not hu.empty:
        out["hu_ms"] = hu.preprocess_cpu_ms
        out["nodes_hu"] = hu.nodes_after
        out["constraints_hu"] = hu.constraints_after
    if "solve_cpu_ms" in df:
        for name, part in (("scc_only", scc), ("before", old), ("after", new), ("hu", hu)):
            if not part.empty and part.solve_cpu_ms.notna().any():
                out[f"solve_ms_{name}"] = part.solve_cpu_ms
    out = out.reset_index()
    geo = round(float(np.exp(np.log(out["speedup"]).mean())), 1)
    return out, geo


def write_markdown(df, path: Path, cmd: str, before: str) -> None:
    with open(path, "w") as f:
        f.write("# Offline preprocessing (`collapse`): CPU time and what it buys\n\n")
        f.write(f"- machine: {df['machine'].iloc[0]}\n- date: {datetime.date.today()}\n"
                f"- commit: {df['commit'].iloc[0]}\n- command: `{cmd}`\n")
        f.write("- times: process CPU time (`time.process_time`), best of the repeats, variants interleaved in "
                "one process (on a shared, loaded VM expect +-30 % noise); solve = "
                f"`cpu.solve(result, preprocess=False)`; `before` = {before}\n\n")
        summ = summary(df)
        if summ is not None:
            table, geo = summ
            f.write(f"## Before / after (default: 1 round, 2 HVN passes)\n\ngeometric-mean speedup: {geo}x\n\n")
            f.write(_markdown(table))
            f.write("\n## Every variant\n\n")
        f.write(_markdown(df.drop(columns=["machine", "commit"])))


def main(argv: list[str] | None = None) -> int:
    from bench._inputs import DEFAULT_PAPER_DIR, DEFAULT_PAPER_DUMPS, PAPER_PROGRAMS, find_paper

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=Path, default=DEFAULT_PAPER_DIR, help="the paper's text dumps")
    ap.add_argument("--npz", action="store_true", help="read the compact .inputs/B.npz dumps even where text exists")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-solve", action="store_true", help="skip the cpu backend's solve on each result")
    ap.add_argument("--solve-only", nargs="*", default=None,
                    help="solve only these inputs' results (the big ones take minutes per variant)")
    ap.add_argument("--before", type=Path, default=None,
                    help="folder holding an older preprocess package as 'oldpre' (timed alongside)")
    ap.add_argument("--before-label", default="the preprocess package at the commit named in --before's notes",
                    help="what 'before' is, for the Markdown notes")
    ap.add_argument("--check", action="store_true", help="compare the default result's solution to the reference")
    ap.add_argument("--solve-variants", nargs="*", default=None,
                    help="solve only the results of variants whose label starts with one of these (default: all)")
    ap.add_argument("--solve-repeat", type=int, default=None,
                    help="best of this many solves (default: --repeat for the fast inputs, else 1)")
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
    text_dir = Path("/nonexistent") if args.npz else args.inputs
    for program in args.only or PAPER_PROGRAMS:
        inp = find_paper(program, text_dir, DEFAULT_PAPER_DUMPS)
        if inp is None:
            print(f"skip {program}: no input", file=sys.stderr)
            continue
        solve = False if args.no_solve else (set(args.solve_only) if args.solve_only is not None else True)
        rows += measure(inp, args.repeat, solve, old, args.check, args.solve_variants, args.solve_repeat)
    df = pd.DataFrame(rows)
    if args.out_stem is None:
        print(df.to_string(index=False))
        return 0
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "andersen_gpu/preprocess"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    machine = f"{platform.node()} ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)"
    df.insert(0, "machine", machine)
    df.insert(1, "commit", commit + (" + working tree" if dirty else ""))
    args.out_stem.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out_stem.with_suffix(".csv"), index=False)
    cmd = "python3 bench/preprocess_speed.py " + " ".join(argv if argv is not None else sys.argv[1:])
    write_markdown(df, args.out_stem.with_suffix(".md"), cmd, args.before_label)
    return 0


if __name__ == "__main__":
    sys.exit(main())
