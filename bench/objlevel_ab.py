"""The object-level stage on the GPU with its solve's offline passes and pointee order varied: an A/B
of what the object-level presolve should run before its rounds.

Usage (from the repository root, on the GPU machine)::

    python3 bench/objlevel_ab.py PROGRAM... > objlevel.jsonl     # one JSON object a program and variant
    python3 bench/objlevel_ab.py table objlevel.jsonl            # Markdown, each variant against "default"

Per program (``.corpus-dumps/PROGRAM.npz``) and variant, after two warm-up runs, 7 runs of
``collapse_reached`` (the stage ``bench/stages_ab.py`` times as ``objects``) with the GPU solving the
object-level set; the median ms of the stage, of its object-level solve (``presolve_ms``, preprocessing
included) and of that solve's preprocessing. Variants (GPU options of the object-level solve):

- ``default``: as ``andersen_gpu.solve`` runs it (``coarse_solver("gpu")``: the backend's
  ``object_level_options``);
- ``contract``: HVN's single-copy-input merges only (``hvn_passes=0``);
- ``hvn``: with HVN's two passes (``hvn_passes=2``, the fine set's default);
- ``noorder``: the default without the pointee order.

``VARIANTS`` (environment, comma-separated) picks some.

Every variant must collapse the same objects (the least solution does not depend on them): the
script exits 1 where one does not.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def run(programs: list[str]) -> int:
    from andersen_gpu.preprocess.objects import collapse_reached
    from andersen_gpu.solve import coarse_solver
    from constraints import io as cio

    variants = {"default": {}, "contract": {"hvn_passes": 0}, "hvn": {"hvn_passes": 2},
                "noorder": {"pointee_order": False}}
    pick = [v for v in os.environ.get("VARIANTS", "").split(",") if v]
    variants = {k: v for k, v in variants.items() if not pick or k in pick}
    bad = 0
    for p in programs:
        cs = cio.load(f".corpus-dumps/{p}.npz")
        base = None
        for name, kw in variants.items():
            gpu = coarse_solver("gpu", **kw)
            for _ in range(2):
                out, _ = collapse_reached(cs, gpu)
            stage, presolve, prep = [], [], []
            for _ in range(7):
                t = time.perf_counter()
                out, st = collapse_reached(cs, gpu)
                stage.append((time.perf_counter() - t) * 1e3)
                presolve.append(st.presolve_ms)
                prep.append(st.presolve_preprocess_ms)
            same = None
            if base is None:
                base = out
            else:
                same = bool((out.field_insensitive.shape == base.field_insensitive.shape)
                            and (out.field_insensitive == base.field_insensitive).all())
                bad += not same
            med = lambda a: round(statistics.median(a), 2)   # noqa: E731
            print(json.dumps(dict(program=p, variant=name, stage_ms=med(stage), presolve_ms=med(presolve),
                                  preprocess_ms=med(prep), rounds=st.presolve_iterations, objects=st.objects,
                                  same_objects=same)), flush=True)
    return 1 if bad else 0


def table(path: str) -> str:
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    base = {r["program"]: r for r in rows if r["variant"] == "default"}
    out = ["| program | variant | stage ms | presolve ms | its preprocessing ms | rounds | stage / default | same objects |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        b = base.get(r["program"])
        ratio = f"{r['stage_ms'] / b['stage_ms']:.3f}" if b else ""
        out.append(f"| {r['program']} | {r['variant']} | {r['stage_ms']} | {r['presolve_ms']} | {r['preprocess_ms']} | "
                   f"{r['rounds']} | {ratio} | {'' if r['same_objects'] is None else r['same_objects']} |")
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "table":
        print(table(sys.argv[2]))
    elif len(sys.argv) >= 2 and sys.argv[1] != "table":
        raise SystemExit(run(sys.argv[1:]))
    else:
        raise SystemExit(__doc__)
