"""Where a GPU round's wall time goes on the host: queueing its kernels, or waiting for them.

Usage (on the GPU machine, from the repository root)::

    python3 bench/round_split.py INPUT... > round-split.jsonl

``INPUT`` is a corpus program (``.corpus-dumps/NAME.npz``: its collapsed, preprocessed set, as
``bench/stages_ab.py`` solves it) or ``paper:NAME`` (``.inputs/NAME.npz``, preprocessed). After two
warm-up solves, five solves run with :meth:`Round.launch_first` and :meth:`Round.launch_second`
(``andersen_gpu.backends.gpu.rounds``) wrapped by timestamps; per round (the last solve's, the median
over the five of each) it prints the host milliseconds spent queueing the first half (``q1``), blocked
in the mid-round read of the control block (``w1``: from the first half's return to the second's
call), queueing the second half (``q2``), and from then to the next round's first call (``w2``: the
end-of-round read and the host's bookkeeping). A round whose ``w1 + w2`` is near zero is bound by the
host's queueing; one whose ``q1 + q2`` is small against ``w1 + w2`` by the device. Then one line with
the cost of queueing an empty kernel of 30 arguments and of one small device-to-host read (medians of
2,000 and 200). One JSON object a line.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _work(name: str):
    from andersen_gpu.preprocess import collapse
    if name.startswith("paper:"):
        sys.path.insert(0, str(ROOT / "bench"))
        from gpu_paper_inputs import load_dump
        cs = load_dump(ROOT / ".inputs" / f"{name[6:]}.npz")
    else:
        from andersen_gpu.preprocess.objects import collapse_reached
        from andersen_gpu.solve import coarse_solver
        from constraints import io as cio
        cs = cio.load(str(ROOT / ".corpus-dumps" / f"{name}.npz"))
        cs, _ = collapse_reached(cs, coarse_solver("gpu"))
    return collapse(cs)[0]


def main(inputs: list[str]) -> None:
    if os.environ.get("ANDERSEN_GPU_EMULATOR") == "1":   # the SIMT emulator (tests/emu): to check the script
        from tests.emu import install
        install()
    import andersen_gpu
    from andersen_gpu.backends.gpu import rounds

    marks: list[tuple[str, float]] = []
    first, second = rounds.Round.launch_first, rounds.Round.launch_second

    def launch_first(self, *a, **k):
        marks.append(("f0", time.perf_counter()))
        out = first(self, *a, **k)
        marks.append(("f1", time.perf_counter()))
        return out

    def launch_second(self, *a, **k):
        marks.append(("s0", time.perf_counter()))
        out = second(self, *a, **k)
        marks.append(("s1", time.perf_counter()))
        return out

    rounds.Round.launch_first, rounds.Round.launch_second = launch_first, launch_second
    for name in inputs:
        work = _work(name)
        for _ in range(2):
            andersen_gpu.solve(work, backend="gpu", preprocess=False)
        per_solve, walls = [], []
        for _ in range(5):
            marks.clear()
            t = time.perf_counter()
            sol = andersen_gpu.solve(work, backend="gpu", preprocess=False)
            walls.append((time.perf_counter() - t) * 1e3)
            marks.append(("end", time.perf_counter()))
            rows, cur = [], None
            for i, (tag, ts) in enumerate(marks):
                if tag == "f0":
                    if cur is not None and "s1" in cur:
                        cur["w2"] = ts - cur.pop("s1")
                        rows.append(cur)
                    cur = {"f0": ts}
                elif cur is not None and tag == "f1":
                    cur["q1"] = ts - cur.pop("f0")
                    cur["f1"] = ts
                elif cur is not None and tag == "s0":
                    cur["w1"] = ts - cur.pop("f1")
                    cur["s0"] = ts
                elif cur is not None and tag == "s1":
                    cur["q2"] = ts - cur.pop("s0")
                    cur["s1"] = ts
                elif cur is not None and tag == "end" and "s1" in cur:
                    cur["w2"] = ts - cur.pop("s1")
                    rows.append(cur)
            per_solve.append(rows)
        n = min(len(r) for r in per_solve)
        keys = ("q1", "w1", "q2", "w2")
        med = [{k: round(statistics.median(s[i].get(k, 0.0) for s in per_solve) * 1e3, 4) for k in keys}
               for i in range(n)]
        tot = {k: round(sum(r[k] for r in med), 3) for k in keys}
        print(json.dumps(dict(input=name, rounds=sol.stats.iterations, solve_ms=round(statistics.median(walls), 2),
                              totals_ms=tot, per_round_ms=med)), flush=True)
    if os.environ.get("ANDERSEN_GPU_EMULATOR") != "1":
        print(json.dumps(_launch_costs()), flush=True)


def _launch_costs() -> dict:
    import cupy
    import numpy as np
    src = "extern \"C\" __global__ void k30(" + ", ".join(
        f"unsigned long long a{i}" for i in range(30)) + ") {}"
    k = cupy.RawKernel(src, "k30")
    args = tuple(np.uint64(i) for i in range(30))
    k((1,), (32,), args)
    cupy.cuda.Device().synchronize()
    ts = []
    for _ in range(2000):
        t = time.perf_counter()
        k((1,), (32,), args)
        ts.append(time.perf_counter() - t)
    cupy.cuda.Device().synchronize()
    a = cupy.zeros(64, cupy.uint64)
    rd = []
    for _ in range(200):
        t = time.perf_counter()
        a.get()
        rd.append(time.perf_counter() - t)
    return dict(launch_30_args_us=round(statistics.median(ts) * 1e6, 2), read_64_words_us=round(statistics.median(rd) * 1e6, 2))


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        raise SystemExit(0 if len(sys.argv) == 2 else 2)
    main(sys.argv[1:])
