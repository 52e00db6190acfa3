"""Compile, once per machine, the solvers' numba code and GPU kernels, so that no later solve waits.

numba compiles the cpu solver and the preprocessing every backend shares on first use (about a
minute on a 2-core machine) and keeps them in its on-disk cache (``$NUMBA_CACHE_DIR``, else
``__pycache__`` beside the sources where that is writable, else numba's folder in the user's cache);
CuPy compiles the GPU backend's kernels on first use and keeps them in its own cache
(``$CUPY_CACHE_DIR``, else ``~/.cupy/kernel_cache``). A solve announces either step when it
happens. Run this after installing to take them then: ``all`` compiles the cpu solver
(preprocessing included) and the gpu backend (its host side and, where CuPy sees a device, every
kernel); ``--threads N`` (N > 1) the cpu solver's multi-core mode too. Already compiled: it loads
the caches and says so, in a second or less.
"""

from __future__ import annotations

import argparse

from . import note, positive_int

NAME = "warmup"
HELP = "compile the solvers' numba code and GPU kernels now (once per machine), so that no later solve waits"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=("all", "cpu", "gpu"), default="all",
                        help="what to compile: the cpu solver, the gpu backend (host side, and kernels where "
                             "there is a device), or both (default)")
    parser.add_argument("--threads", type=positive_int, default=1, metavar="N",
                        help="also the cpu solver's multi-core mode, when N > 1")


def run(args: argparse.Namespace) -> int:
    from ..cli import ExitCode
    from ..warmup import compile_backend

    steps = [("cpu", 1), ("gpu", 1)] if args.backend == "all" else [(args.backend, 1)]
    if args.threads > 1 and args.backend in ("all", "cpu"):
        steps.append(("cpu", args.threads))
    from ..solve import gpu_available

    for backend, threads in steps:
        what = {"cpu": "the cpu solver", "gpu": "the gpu backend"}[backend]
        what += f" ({threads} threads)" if threads > 1 else ""
        if backend == "gpu":
            ok, why = gpu_available()
            what += " (host side and kernels)" if ok else f" (host side only; kernels not compiled: {why})"
        step = compile_backend(backend, threads, announce=note)
        verb = "compiled" if step.compiled else "loaded from the cache"
        print(f"{what}: {verb} in {step.ms / 1e3:.1f} s")
    return ExitCode.OK
