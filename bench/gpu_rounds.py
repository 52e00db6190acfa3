"""A GPU solve's rounds as they happen: one JSON line per round on stdout, kept when the solve is cut.

Usage::

    python3 bench/gpu_rounds.py INPUT [--max-s S] [--timing] [--no-online-cycles] [--no-walk-geps]

``INPUT`` is anything ``andersen-gpu solve`` reads (a corpus dump ``.corpus-dumps/git.npz``, or a paper
dump ``.inputs/linux.npz`` as ``bench/gpu_paper_inputs.py dump`` writes it). The solve runs with
``trace=True``; the solver logs each round's entry (``andersen_gpu.backends.gpu.solver.log``: changed
nodes, pair bounds, pool top and capacity, live sets, retries, compactions, wall ms) when the round
ends, and this prints it at once. ``--max-s`` seconds (default 120) after the first round ended (the
set-up before it: loading, preprocessing, the graph, is not counted; the first line after the input's
says how long it took) the process prints a last line ``{"cut_at_s": S, "rounds": R}`` and exits with
status 3, so a solve that does not finish (git, python3.11) still tells how many rounds it ran and
where the time went; a finished one ends with its summary (``solve_ms``, rounds, final facts,
distinct sets, peak device bytes) and status 0. A bad input is one line on stderr and status 2.

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


class _Rounds(logging.Handler):
    """Prints each round's log record (one JSON object) on its own line, and cuts the solve
    ``max_s`` seconds after the first round ended (checked at each round's end, and by a timer
    for a round that does not end)."""

    def __init__(self, max_s: float, start: float):
        super().__init__()
        self.max_s, self.start, self.first = max_s, start, None
        self.rounds = 0
        self.out = threading.Lock()   # one line at a time: the timer's cut and a round's line

    def line(self, text: str) -> None:
        with self.out:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()

    def cut(self) -> None:
        with self.out:
            sys.stdout.write(json.dumps(dict(cut_at_s=round(time.perf_counter() - self.first, 1),
                                             rounds=self.rounds)) + "\n")
            sys.stdout.flush()
            os._exit(3)

    def emit(self, record: logging.LogRecord) -> None:
        now = time.perf_counter()
        first = self.first is None
        if first:
            self.first = now
            self.line(json.dumps(dict(set_up_s=round(now - self.start, 1))))
        self.rounds += 1
        self.line(record.getMessage())
        if now - self.first >= self.max_s:
            self.cut()
        if first:
            timer = threading.Timer(self.max_s - (time.perf_counter() - now), self.cut)
            timer.daemon = True
            timer.start()


def _load(path: str):
    """The constraint set of ``path``: anything ``andersen-gpu solve`` reads, or a paper dump of
    ``bench/gpu_paper_inputs.py dump`` (arrays without the constraint-set format tag)."""
    from constraints import io
    from constraints.errors import InputError

    try:
        return io.load(path)
    except InputError:
        if not path.endswith(".npz"):
            raise
        import numpy as np

        with np.load(path) as z:
            if "offline_rep" not in z.files:
                raise
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from gpu_paper_inputs import load_dump
        return load_dump(Path(path))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("--max-s", type=float, default=120.0,
                    help="cut the solve this many seconds after its first round (0: after the first round)")
    ap.add_argument("--timing", action="store_true", help="time every kernel (stats.kernel_ms at the end)")
    ap.add_argument("--no-online-cycles", action="store_true",
                    help="no cycle collapse between rounds (GpuOptions.online_cycles=False)")
    ap.add_argument("--no-walk-geps", action="store_true",
                    help="no walk geps on +1 gep cycles (GpuOptions.walk_geps=False)")
    args = ap.parse_args(argv)
    if os.environ.get("ANDERSEN_GPU_EMULATOR") == "1":
        from tests.emu import install
        install()
    from constraints.errors import InputError
    import andersen_gpu
    from andersen_gpu.backends.gpu import solver

    start = time.perf_counter()
    try:
        cs = _load(args.input)
    except (InputError, OSError) as exc:
        print(f"gpu_rounds: {args.input}: {exc}", file=sys.stderr)
        return 2
    rounds = _Rounds(args.max_s, start)
    rounds.line(json.dumps(dict(input=args.input, nodes=cs.n_nodes)))
    options = dict(online_cycles=not args.no_online_cycles, walk_geps=not args.no_walk_geps)
    if cs.collapse_cycles:   # the object-level solve first, its rounds not streamed: one line
        from andersen_gpu.preprocess.objects import collapse_reached
        from andersen_gpu.solve import coarse_solver
        t = time.perf_counter()
        cs, objects = collapse_reached(cs, coarse_solver("gpu", **options))
        rounds.line(json.dumps(dict(objects_ms=round((time.perf_counter() - t) * 1e3, 1),
                                    collapse_cycles=objects.note())))
    solver.log.addHandler(rounds)
    solver.log.setLevel(logging.DEBUG)
    sol = andersen_gpu.solve(cs, backend="gpu", trace=True, timing=args.timing, **options)
    st = sol.stats
    notes = {k: v for k, v in st.notes.items() if k != "trace"}
    rounds.line(json.dumps(dict(solve_ms=round(st.solve_ms, 1), rounds=st.iterations,
                                peak_device_bytes=st.peak_device_bytes, kernel_ms=st.kernel_ms, **notes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
