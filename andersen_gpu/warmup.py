"""The one-time step before a solve: compiling the backends' numba code.

The cpu backend and the offline preprocessing every backend shares are numba
functions, compiled on first use and kept in numba's on-disk cache
(``__pycache__`` beside the sources, or ``$NUMBA_CACHE_DIR``). With a fresh
cache that compile takes tens of seconds on a 2-core machine; afterwards
loading the cache takes a fraction of a second.

:func:`compile_backend` does that step on its own, before the solve, so that
it is (1) announced: when it takes longer than :data:`ANNOUNCE_AFTER_S`, one
line on stderr says what is happening, and a second how long it took; and
(2) timed apart: ``SolveStats.compile_ms`` holds it and ``solve_ms`` does not.
It solves :func:`sample_set`, a constraint set of a dozen nodes that has
every kind of constraint, offline merges, an HCD table, a copy cycle and the
int-to-pointer object, with the backend itself: every compiled function the
real solve calls is compiled (or loaded) for the same argument types there
(``tests/test_warmup.py`` checks that a real solve then compiles nothing).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from constraints.model import ConstraintSet, NodeKind

from . import interrupt

#: The first line is printed when the step is still running after this many seconds.
ANNOUNCE_AFTER_S = 1.0

_done: set[tuple[str, int]] = set()   # (backend, threads) compiled or loaded in this process


@dataclass(frozen=True)
class CompileStep:
    """What :func:`compile_backend` did: ``ms`` of wall time, and whether numba compiled
    anything (``compiled``) rather than only loading its cache."""

    ms: float = 0.0
    compiled: bool = False


def sample_set() -> ConstraintSet:
    """A small set with every feature a solve can meet (see the module docstring).

    Nodes: 0 the int-to-pointer object, 1-2 an object of two slots, 3-5 an
    object of three slots, 6 a single object, 7-11 values (8 and 9 merged
    offline, 10 and 11 in a copy cycle).
    """
    n = 12
    kind = np.full(n, NodeKind.VALUE, np.int8)
    kind[[0, 1, 3, 6]] = NodeKind.OBJECT
    kind[[2, 4, 5]] = NodeKind.FIELD
    size = np.zeros(n, np.int64)
    size[[0, 1, 3, 6]] = (1, 2, 3, 1)
    rep = np.arange(n)
    rep[9] = 8
    return ConstraintSet.from_lists(
        n, obj_size=size, kind=kind, int_to_pointer=0, offline_rep=rep,
        addr=[(7, 1), (8, 3), (10, 6), (11, 0), (7, 0)],
        copy=[(10, 11), (11, 10), (9, 7), (8, 10)],
        load=[(10, 8), (11, 7), (7, 11)],
        store=[(8, 7), (7, 10), (11, 8)],
        gep=[(9, 8, 2), (10, 7, 1), (11, 9, 1)],
        hcd_ptr=[7, 8], hcd_target=[10, 11])


def compile_backend(backend: str, threads: int = 1, announce=lambda message: None) -> CompileStep:
    """Compile (or load from numba's cache) what solving with ``backend`` needs, once per process.

    Parameters
    ----------
    backend : {"reference", "cpu", "gpu"}
        ``reference`` needs nothing; ``gpu`` needs the offline preprocessing and
        the pointee order (its CUDA kernels are CuPy's business).
    threads : int
        The cpu backend's thread count (its multi-core mode is other code).
    announce : callable(str)
        Receives the line saying that a slow step runs, and the one saying how
        long it took.

    Returns
    -------
    CompileStep
        All zero when there was nothing to do.
    """
    key = (backend, 1 if threads <= 1 else 2)
    if backend not in ("cpu", "gpu") or key in _done:
        return CompileStep()
    what = "the cpu solver" if backend == "cpu" else "the preprocessing"
    timer = threading.Timer(ANNOUNCE_AFTER_S, announce,
                            (f"preparing {what}: numba compiles it on first use (a minute or so on a small "
                             "machine), later runs load it from numba's cache",))
    timer.daemon = True
    misses_before = _cache_misses()
    t0 = time.perf_counter()
    timer.start()
    try:
        interrupt.call(_run, backend, threads)
    finally:
        timer.cancel()
    ms = (time.perf_counter() - t0) * 1e3
    compiled = _cache_misses() > misses_before
    if ms >= ANNOUNCE_AFTER_S * 1e3:
        announce(f"{'compiled' if compiled else 'loaded'} {what} in {ms / 1e3:.1f} s")
    _done.add(key)
    return CompileStep(ms, compiled)


def _run(backend: str, threads: int) -> None:
    """Solve :func:`sample_set` as ``backend`` would: ``cpu`` all of the cpu backend, ``gpu``
    what the gpu backend runs on the host (the offline passes and the pointee order)."""
    cs = sample_set()
    if backend == "cpu":
        from .backends import cpu

        cpu.solve(cs, threads=threads)
        return
    from .preprocess import collapse

    collapse(cs)
    from .preprocess.order import pointee_order

    pointee_order(cs)


def dispatchers() -> list:
    """Every numba dispatcher of the modules whose code the backends compile."""
    import importlib

    from numba.core.registry import CPUDispatcher

    found = []
    for name in ("andersen_gpu.preprocess.hvn", "andersen_gpu.preprocess._hash", "andersen_gpu.preprocess.rewrite",
                 "andersen_gpu.preprocess.order", "andersen_gpu.backends._cpu_bits",
                 "andersen_gpu.backends._cpu_core", "andersen_gpu.backends._cpu_wave"):
        module = importlib.import_module(name)
        found += [v for v in vars(module).values() if isinstance(v, CPUDispatcher)]
    return found


def _cache_misses() -> int:
    """Compilations so far of the :func:`dispatchers` (numba counts a compile as a cache miss)."""
    return sum(sum(d.stats.cache_misses.values()) for d in dispatchers())

