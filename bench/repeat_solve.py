"""One dump solved several times in one process on the GPU: is a later solve slower than the first?

Usage::

    python3 bench/repeat_solve.py DUMP.npz [--times 3] [--no-online-cycles]

One JSON line per solve on stdout: its wall ms, rounds, cycle passes (count, ms, and each pass's
round, edges and stage ms), compactions, retries, and the five slowest rounds (ms, copy pairs
bound, whether a pass followed). ``bench run`` times a solve after a warm-up solve in the same
process and ``gpu_rounds.py`` a first solve; this puts the two side by side.
"""

from __future__ import annotations

import argparse
import json
import time

import andersen_gpu
from constraints import io


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dump")
    ap.add_argument("--times", type=int, default=3)
    ap.add_argument("--no-online-cycles", action="store_true")
    args = ap.parse_args()
    cs = io.load(args.dump)
    for i in range(args.times):
        t0 = time.perf_counter()
        sol = andersen_gpu.solve(cs, backend="gpu", trace=True, online_cycles=not args.no_online_cycles)
        wall = (time.perf_counter() - t0) * 1e3
        n = sol.stats.notes
        trace = n.get("trace", [])
        passes = [dict(round=k + 1, **{key: e["cycle_pass"].get(key) for key in
                                        ("edges", "merged", "graph_ms", "trim_ms", "scc_ms", "ms")})
                  for k, e in enumerate(trace) if "cycle_pass" in e]
        slow = sorted(range(len(trace)), key=lambda k: -trace[k]["ms"])[:5]
        print(json.dumps(dict(solve=i, wall_ms=round(wall, 1), solve_ms=round(sol.stats.solve_ms, 1),
                              rounds=len(trace), cycle_passes=n.get("cycle_passes"), cycle_ms=n.get("cycle_ms"),
                              compactions=n.get("compactions"), retries=n.get("round_retries"),
                              room_made=n.get("room_made"), passes=passes,
                              slowest=[dict(round=k + 1, ms=trace[k]["ms"], pairs=trace[k]["pairs_bound"],
                                            pass_after="cycle_pass" in trace[k]) for k in slow])), flush=True)


if __name__ == "__main__":
    main()
