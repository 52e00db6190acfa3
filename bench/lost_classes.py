"""Why a named pointer lost an object when functions were closed to plain geps (call geps).

Usage::

    python3 bench/lost_classes.py PROGRAM --code CHECKOUT --lost bench/results/precision-lost-objects.json
                                  --label fold+collapse+calls [--corpus .corpus]

``CHECKOUT`` is a checkout of the baseline front end (the ``before-fold`` rows: 544308f); the lost objects
are those ``bench/precision.py --baseline`` listed for ``PROGRAM`` and ``--label``. The program is extracted
and solved (cpu backend) with that checkout, and each lost object is put in a class:

* ``A``: some function's cell (``@f#ret``, ``@f#argK``, ``@f#va``) holds it in the baseline's solution, so a
  pointer could reach it by reading a cell through pointer arithmetic on a function's address;
* ``B``: a call's argument temp (``*.icall.arg*``, ``*.callback.arg*``, ``*.icall.intarg*``) holds it: an
  argument that a call through a pointer holding a data object wrote into that object's slots;
* ``neither``: listed by name (a loss neither rule explains: read the IR).

A necessary condition, not a proof: it shows a cell held the object, not that every path went through one.
Prints one line: counts per class and the first names of B and neither.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("--code", required=True, help="checkout of the baseline front end")
    ap.add_argument("--lost", default=str(ROOT / "bench" / "results" / "precision-lost-objects.json"))
    ap.add_argument("--label", default="fold+collapse+calls")
    ap.add_argument("--corpus", default=str(ROOT / ".corpus"))
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(args.code).resolve()))
    import numpy as np

    import andersen_gpu
    from constraints.llvm import extract_with_stats

    lost = [x[0] for x in json.loads(Path(args.lost).read_text()).get(f"{args.program}\t{args.label}", [])]
    cs, _ = extract_with_stats([Path(args.corpus) / args.program / f"{args.program}.bc"])
    sol = andersen_gpu.solve(cs, backend="cpu")
    kind = np.asarray(cs.kind)
    base = cs.slot_objects()   # a slot's object

    def held_by(nodes) -> set[str]:
        out: set[int] = set()
        for s in np.unique(sol.node_set[nodes]).tolist():
            out.update(base[sol.set_indices[sol.set_indptr[s]:sol.set_indptr[s + 1]]].tolist())
        return {cs.names[o] for o in out}

    cells = held_by(np.flatnonzero((kind == 2) & (kind[base] == 3)))
    temps = np.array([i for i, x in enumerate(cs.names)
                      if ".icall.arg" in x or ".callback.arg" in x or ".icall.intarg" in x], np.int64)
    args_held = held_by(temps) if len(temps) else set()
    a = [x for x in lost if x in cells]
    b = [x for x in lost if x not in cells and x in args_held]
    rest = [x for x in lost if x not in cells and x not in args_held]
    print(f"{args.program}: lost distinct {len(lost)}; A {len(a)}; B {len(b)} {b[:5]}; neither {len(rest)} {rest[:10]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
