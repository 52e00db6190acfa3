"""The GPU pool's starting size against solve time and device bytes per fact (GPU machine).

Usage::

    python3 bench/pool_start.py DUMP.npz [DUMP.npz ...] [--capacity 262144 ...] [--repeat 2] [--out F.csv]

For each dump: one warm-up solve, then ``--repeat`` rounds in which the default start (``capacity``
None: the solver's own rule) and each ``--capacity`` (128-byte pool elements) solve once each, in
turn, in one process, so that the columns compare on one host at one time. One CSV row per dump
and start: median solve ms, peak device bytes (the memory pool's, as the solver reports them),
bytes per final fact, the pool's final size, compactions and pool growths, and whether the
solution equals the default start's.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dumps", nargs="+")
    ap.add_argument("--capacity", type=int, action="append", default=[], help="a start to compare (elements)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", help="CSV file (default: print only)")
    args = ap.parse_args()
    import andersen_gpu
    from constraints import io

    starts = [None, *args.capacity]
    rows = []
    for path in args.dumps:
        cs = io.load(path)
        andersen_gpu.solve(cs, backend="gpu")
        runs: dict = {s: [] for s in starts}
        for _ in range(args.repeat):
            for s in starts:
                runs[s].append(andersen_gpu.solve(cs, backend="gpu", capacity=s))
        base = runs[None][-1]
        for s in starts:
            sols = runs[s]
            st = sols[-1].stats
            row = dict(dump=Path(path).stem, capacity=s or "default", constraints=cs.n_constraints,
                       facts=sols[-1].n_edges, solve_ms=round(statistics.median(x.stats.solve_ms for x in sols), 1),
                       peak_device_bytes=st.peak_device_bytes, bytes_per_fact=st.notes.get("bytes_per_fact"),
                       pool_bytes=st.pool_bytes, pool_elements_used=st.notes.get("pool_elements_used"),
                       compactions=st.notes.get("compactions"),
                       pool_growths=st.notes.get("pool_growths"), same=all(x == base for x in sols))
            rows.append(row)
            print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
        if args.out:
            with open(args.out, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)


if __name__ == "__main__":
    main()
