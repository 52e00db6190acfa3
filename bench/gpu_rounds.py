"""A GPU solve's rounds as they happen: one JSON line per round on stdout, kept when the solve is cut.

Usage::

    python3 bench/gpu_rounds.py INPUT [--max-s S] [--timing]

``INPUT`` is anything ``andersen-gpu solve`` reads (a corpus dump ``.corpus-dumps/git.npz``, a paper
dump ``.inputs/linux.npz`` as written by ``bench/gpu_paper_inputs.py``). The solve runs with
``trace=True``; the solver logs each round's entry (``andersen_gpu.backends.gpu.solver.log``: changed
nodes, pair bounds, pool top and capacity, live sets, retries, compactions, wall ms) when the round
ends, and this prints it at once. After ``--max-s`` seconds (default 120) the process prints a last
line ``{"cut_at_s": S}`` and exits with status 3, so a solve that does not finish (git, python3.11)
still tells how many rounds it ran and where the time went; a finished one ends with its summary
(``solve_ms``, rounds, final facts, distinct sets, peak device bytes) and status 0.

Needs a GPU and CuPy; ``ANDERSEN_GPU_EMULATOR=1`` runs it on the SIMT emulator (tests/emu: small
inputs only, to check the script).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


class _Lines(logging.Handler):
    """Prints each round's log record (already one JSON object) to stdout, flushed."""

    def emit(self, record: logging.LogRecord) -> None:
        print(record.getMessage(), flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("--max-s", type=float, default=120.0, help="cut the solve after this many seconds")
    ap.add_argument("--timing", action="store_true", help="time every kernel (stats.kernel_ms at the end)")
    args = ap.parse_args(argv)
    if os.environ.get("ANDERSEN_GPU_EMULATOR") == "1":
        from tests.emu import install
        install()
    from constraints import io
    import andersen_gpu
    from andersen_gpu.backends.gpu import solver

    cs = io.load(args.input)
    print(json.dumps(dict(input=args.input, nodes=cs.n_nodes)), flush=True)
    solver.log.addHandler(_Lines())
    solver.log.setLevel(logging.DEBUG)
    start = time.perf_counter()

    def cut() -> None:
        print(json.dumps(dict(cut_at_s=round(time.perf_counter() - start, 1))), flush=True)
        os._exit(3)

    watchdog = threading.Timer(args.max_s, cut)
    watchdog.daemon = True
    watchdog.start()
    sol = andersen_gpu.solve(cs, backend="gpu", trace=True, timing=args.timing)
    watchdog.cancel()
    st = sol.stats
    notes = {k: v for k, v in st.notes.items() if k != "trace"}
    print(json.dumps(dict(solve_ms=round(st.solve_ms, 1), rounds=st.iterations,
                          peak_device_bytes=st.peak_device_bytes, kernel_ms=st.kernel_ms, **notes)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
