"""The two GPU stages of a corpus program, timed in this tree or another one: an A/B of a change.

Usage (from the repository root, on the GPU machine; ``bench/h200_call.sh`` step ``stages`` runs it for
this tree and each tree under ``.compare/``)::

    python3 bench/stages_ab.py run TREE LABEL PROGRAM... >> stages.jsonl   # TREE: "." or .compare/<rev>
    python3 bench/stages_ab.py table stages.jsonl BASE                      # Markdown: every label against BASE

``run`` imports ``andersen_gpu`` from ``TREE`` (its own checkout, e.g. ``git archive <rev>``) and, per
program (``.corpus-dumps/PROGRAM.npz``), after two warm-up runs of each stage, times 7 runs of
``objects`` (``collapse_reached`` with the GPU solving the object-level set) and of ``solve`` (the
collapsed, preprocessed set on the GPU, ``preprocess=False``): the median ms of each and of their sum,
and the solve's graph build and pointee order (its notes; median). One JSON object a line. The
preprocessing between the stages is left out, as in ``bench/results/corpus.csv``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time


def run(tree: str, label: str, programs: list[str]) -> None:
    sys.path.insert(0, os.path.abspath(tree))
    import andersen_gpu
    from andersen_gpu.preprocess import collapse
    from andersen_gpu.preprocess.objects import collapse_reached
    from constraints import io as cio
    if not andersen_gpu.__file__.startswith(os.path.abspath(tree)):
        raise SystemExit(f"andersen_gpu came from {andersen_gpu.__file__}, not {tree}")

    def gpu(cs, **kw):
        return andersen_gpu.solve(cs, backend="gpu", **kw)
    try:     # the object-level solve as andersen_gpu.solve runs it (trees before it have no coarse_solver)
        from andersen_gpu.solve import coarse_solver
        coarse = coarse_solver("gpu")
    except ImportError:
        coarse = gpu

    for p in programs:
        cs = cio.load(f".corpus-dumps/{p}.npz")
        for _ in range(2):
            fine, _ = collapse_reached(cs, coarse)
        work, _ = collapse(fine)
        for _ in range(2):
            gpu(work, preprocess=False)
        objects, solve, build, order = [], [], [], []
        for _ in range(7):
            t = time.perf_counter()
            collapse_reached(cs, coarse)
            objects.append((time.perf_counter() - t) * 1e3)
            t = time.perf_counter()
            sol = gpu(work, preprocess=False)
            solve.append((time.perf_counter() - t) * 1e3)
            build.append(sol.stats.notes.get("graph_build_ms", 0.0))
            order.append(sol.stats.notes.get("pointee_order_ms", 0.0))
        med = lambda a: round(statistics.median(a), 2)   # noqa: E731
        print(json.dumps(dict(tree=label, program=p, objects_ms=med(objects), solve_ms=med(solve),
                              total_ms=med([a + b for a, b in zip(objects, solve)]), graph_build_ms=med(build),
                              pointee_order_ms=med(order), rounds=sol.stats.iterations)), flush=True)


def table(path: str, base: str) -> str:
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    by: dict[str, dict] = {}
    for r in rows:
        by.setdefault(r["program"], {})[r["tree"]] = r
    labels = sorted({r["tree"] for r in rows} - {base})
    out = ["| program | tree | objects ms | solve ms | both ms | both / " + base + " |", "| --- | --- | ---: | ---: | ---: | ---: |"]
    for p, d in by.items():
        if base not in d:
            continue
        for lab in [base] + labels:
            if lab in d:
                r = d[lab]
                out.append(f"| {p} | {lab} | {r['objects_ms']} | {r['solve_ms']} | {r['total_ms']} | "
                           f"{r['total_ms'] / d[base]['total_ms']:.3f} |")
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) == 4 and sys.argv[1] == "table":
        print(table(sys.argv[2], sys.argv[3]))
    else:
        raise SystemExit(__doc__)
