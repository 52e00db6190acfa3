"""Alias facts on real programs: what ScopedNoAliasAA gains from our annotation, and its cost.

Usage::

    python3 bench/alias_facts.py [PROGRAM ...] [--corpus .corpus] [--backend cpu]
                                 [--cap 200] [--max-functions 300] [--out bench/results/alias-facts]

For each program (``.corpus/<p>/<p>.bc``, built by ``bench/corpus/build.sh``;
default: every one of bzip2, gzip, lua5.4, sqlite3, bash, vim that is there):

1. ``llvm-dis-19`` the bitcode to text;
2. ``analyze``: extract with access sites, solve, location sets (timed);
3. ``annotate_text``: the scoped-noalias metadata (timed; bytes before/after);
4. count NoAlias answers over (load, store) and (store, store) pairs with
   ``opt-19 -passes=aa-eval -evaluate-aa-metadata`` under ``basic-aa``, under
   ``scoped-noalias-aa`` and under both.

aa-eval asks about every pair of a function, so its cost is quadratic in the
function's size; step 4 therefore runs on a **sample**: the functions with
2 to ``--cap`` loads and stores, at most ``--max-functions`` of them in module
order, cut out of the annotated module with ``llvm-extract-19``. The table says
how many functions and accesses the sample holds. Steps 1 to 3 cover the
whole program. Writes a CSV and a Markdown table with machine, date, commit.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_PROGRAMS = ("bzip2", "gzip", "lua5.4", "sqlite3", "bash", "vim")
PIPELINES = {"basic": "basic-aa", "scoped": "scoped-noalias-aa", "both": "basic-aa,scoped-noalias-aa"}


def sample_functions(facts, cap: int, limit: int) -> tuple[list[str], int]:
    """Functions with 2..cap loads and stores (module order, at most ``limit``), and their access count."""
    per: Counter = Counter(f for f, k in zip(facts.sites.function, facts.sites.kind) if k in ("load", "store"))
    chosen = [f for f in facts.functions() if 2 <= per[f] <= cap][:limit]
    return chosen, sum(per[f] for f in chosen)


def measure(program: str, bc: Path, args, work: Path) -> dict:
    from andersen_gpu.aliasfacts import analyze
    from andersen_gpu.aliasfacts.aaeval import load_store_verdicts
    from andersen_gpu.aliasfacts.annotate import annotate_text

    ll = work / f"{program}.ll"
    subprocess.run(["llvm-dis-19", str(bc), "-o", str(ll)], check=True)
    text = ll.read_text()
    t0 = time.perf_counter()
    facts, cs, _, stats = analyze([ll], backend=args.backend)
    t1 = time.perf_counter()
    annotated, ast = annotate_text(text, facts)
    t2 = time.perf_counter()
    ann = work / f"{program}.annotated.ll"
    ann.write_text(annotated)
    kinds = Counter(facts.sites.kind)
    accesses = sum(v for k, v in kinds.items() if k != "call")
    row = {"program": program, "instructions": stats.instructions, "nodes": cs.n_nodes,
           "functions": len(facts.functions()), "accesses": accesses,
           "unknown_accesses": ast.unknown, "annotated_accesses": ast.annotated,
           "analysis_s": round(t1 - t0, 2), "annotate_s": round(t2 - t1, 2),
           "bytes_in": ast.bytes_in, "bytes_out": ast.bytes_out,
           "growth_pct": round((ast.bytes_out - ast.bytes_in) / ast.bytes_in * 100, 1),
           "md_nodes": ast.nodes, "scopes": ast.scopes}
    chosen, sampled = sample_functions(facts, args.cap, args.max_functions)
    row.update(sample_functions=len(chosen), sample_loads_stores=sampled)
    sample = work / f"{program}.sample.ll"
    cmd = ["llvm-extract-19", "-S", *[f"--func={f.strip(chr(34))}" for f in chosen], str(ann), "-o", str(sample)]
    subprocess.run(cmd, check=True, capture_output=True)
    verdicts = {}
    for key, pipeline in PIPELINES.items():
        t = time.perf_counter()
        verdicts[key] = load_store_verdicts(sample, pipeline, timeout=args.timeout)
        row[f"aa_eval_{key}_s"] = round(time.perf_counter() - t, 1)
        row["pairs"] = len(verdicts[key])
        row[f"noalias_{key}"] = verdicts[key].count(b"N")
    # a pair basic-aa proves must- or partially aliasing that our metadata calls NoAlias
    # would be a wrong fact: count them (expected 0)
    row["contradictions"] = sum(b in b"UP" and s == ord("N") for b, s in zip(verdicts["basic"], verdicts["scoped"]))
    base = row["noalias_basic"]
    row["noalias_gain_pct"] = round((row["noalias_both"] - base) / base * 100, 1) if base else float("nan")
    row["noalias_both_pct_of_pairs"] = round(row["noalias_both"] / row["pairs"] * 100, 1) if row["pairs"] else 0.0
    row["noalias_basic_pct_of_pairs"] = round(base / row["pairs"] * 100, 1) if row["pairs"] else 0.0
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="*", help=f"corpus programs (default: those of {', '.join(DEFAULT_PROGRAMS)} "
                    f"that are built)")
    ap.add_argument("--corpus", default=str(ROOT / ".corpus"))
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--cap", type=int, default=200, help="largest function (loads + stores) given to aa-eval")
    ap.add_argument("--max-functions", type=int, default=300, help="most functions given to aa-eval")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per aa-eval run")
    ap.add_argument("--out", default=str(ROOT / "bench/results/alias-facts"))
    args = ap.parse_args(argv)
    corpus = Path(args.corpus)
    names = args.programs or [p for p in DEFAULT_PROGRAMS if (corpus / p / f"{p}.bc").is_file()]
    rows = []
    with tempfile.TemporaryDirectory(prefix="alias-facts-") as tmp:
        for p in names:
            bc = corpus / p / f"{p}.bc"
            if not bc.is_file():
                print(f"skip {p}: no {bc}", file=sys.stderr)
                continue
            print(f"{p} ...", file=sys.stderr, flush=True)
            rows.append(measure(p, bc, args, Path(tmp)))
            print(rows[-1], file=sys.stderr, flush=True)
    write(rows, args, argv if argv is not None else sys.argv[1:])
    return 0


def write(rows: list[dict], args, argv) -> None:
    import pandas as pd

    df = pd.DataFrame(rows)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out.with_suffix(".csv"), index=False)
    from bench._env import commit as head_commit
    commit = head_commit()
    cols_a = ["program", "instructions", "functions", "accesses", "unknown_accesses", "annotated_accesses",
              "analysis_s", "annotate_s", "bytes_in", "bytes_out", "growth_pct", "md_nodes", "scopes"]
    cols_b = ["program", "sample_functions", "sample_loads_stores", "pairs", "noalias_basic", "noalias_scoped",
              "noalias_both", "noalias_basic_pct_of_pairs", "noalias_both_pct_of_pairs", "noalias_gain_pct",
              "contradictions", "aa_eval_both_s"]
    md = ["# Alias facts on real programs", "",
          f"- command: `python3 bench/alias_facts.py {' '.join(argv)}`",
          f"- machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}; "
          f"backend {args.backend}",
          f"- commit: {commit} (plus the working tree), {time.strftime('%Y-%m-%d')}",
          f"- aa-eval sample: functions with 2..{args.cap} loads+stores, first {args.max_functions} in module "
          f"order (aa-eval is quadratic per function); analysis, annotation and size cover the whole program.",
          "", "## Annotation (whole program)", "", _table(df[cols_a]) if rows else "(none)",
          "", "## NoAlias (load, store) and (store, store) pairs, aa-eval on the sample", "",
          _table(df[cols_b]) if rows else "(none)", "",
          "`noalias_basic`: `-aa-pipeline=basic-aa`; `noalias_scoped`: `scoped-noalias-aa` alone (our "
          "metadata only); `noalias_both`: `basic-aa,scoped-noalias-aa`. `noalias_gain_pct`: both over basic. "
          "`contradictions`: pairs basic-aa finds MustAlias or PartialAlias that our metadata makes NoAlias "
          "(a wrong fact; expected 0).", ""]
    out.with_suffix(".md").write_text("\n".join(md))


def _table(df) -> str:
    """A Markdown pipe table (pandas' ``to_markdown`` needs tabulate, which is not a dependency)."""
    head = "| " + " | ".join(df.columns) + " |"
    rule = "| " + " | ".join("---" for _ in df.columns) + " |"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *body])


if __name__ == "__main__":
    sys.exit(main())
