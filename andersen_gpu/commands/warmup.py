"""Compile, once per machine, the numba code the solvers run on the host, so that no later solve waits.

numba compiles the cpu solver and the preprocessing every backend shares on first use (about a
minute on a 2-core machine) and keeps them in its on-disk cache (``$NUMBA_CACHE_DIR``, else
``__pycache__`` beside the sources where that is writable, else numba's folder in the user's cache);
a solve announces that step when it happens. Run this after
installing to take it then: ``all`` compiles the cpu solver (preprocessing included) and the gpu
backend's host side (the pointee order); ``--threads N`` (N > 1) the cpu solver's multi-core mode
too. Already compiled: it loads the cache and says so, in a second or less.
"""

from __future__ import annotations

import argparse

from . import note, positive_int

NAME = "warmup"
HELP = "compile the solvers' numba code now (once per machine), so that no later solve waits"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=("all", "cpu", "gpu"), default="all",
                        help="what to compile: the cpu solver, the gpu backend's host side, or both (default)")
    parser.add_argument("--threads", type=positive_int, default=1, metavar="N",
                        help="also the cpu solver's multi-core mode, when N > 1")


def run(args: argparse.Namespace) -> int:
    from ..cli import ExitCode
    from ..warmup import compile_backend

    steps = [("cpu", 1), ("gpu", 1)] if args.backend == "all" else [(args.backend, 1)]
    if args.threads > 1 and args.backend in ("all", "cpu"):
        steps.append(("cpu", args.threads))
    for backend, threads in steps:
        what = {"cpu": "the cpu solver", "gpu": "the gpu backend's host side"}[backend]
        what += f" ({threads} threads)" if threads > 1 else ""
        step = compile_backend(backend, threads, announce=note)
        verb = "compiled" if step.compiled else "loaded from the cache"
        print(f"{what}: {verb} in {step.ms / 1e3:.1f} s")
    return ExitCode.OK
