"""``solve(cs, backend=...)``: one entry point over every backend.

Every backend returns the same :class:`Solution` for the same constraint set;
that equality is the project's main correctness check.
"""

from __future__ import annotations

import importlib
import sys
import time

from constraints.model import ConstraintSet

from . import interrupt, warmup
from .solution import Solution

BACKENDS = ("reference", "cpu", "gpu")


class BackendUnavailable(RuntimeError):
    """The requested backend cannot run here (no GPU, CuPy missing, ...)."""


#: (the cupy module, its device's name) once a device was seen: every solve asks, and the
#: device query costs about a millisecond of host time (two on each object-level stage and solve)
_SEEN: list = []


def gpu_available() -> tuple[bool, str]:
    """(True, device name) when CuPy imports and sees a CUDA device, else (False, why). A device
    once seen is remembered for the CuPy module that saw it (another module, the test emulator's,
    is asked again)."""
    try:
        import cupy  # noqa: F401
    except Exception as exc:  # ImportError, or a broken CUDA install
        return False, f"CuPy is not usable ({exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
    if _SEEN and _SEEN[0] is cupy:
        return True, _SEEN[1]
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"no CUDA device ({str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__})"
    if n == 0:
        return False, "no CUDA device"
    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    _SEEN[:] = [cupy, name]
    return True, name


#: Below this many constraints ``auto`` prefers the pure-Python reference solver on a
#: machine without a GPU: it answers in well under a second, while the cpu backend's
#: first call pays numba's one-off compilation (tens of seconds; cached afterwards).
SMALL_INPUT_CONSTRAINTS = 10_000


def auto_candidates(cs: ConstraintSet | None = None) -> tuple[list[str], str]:
    """Backends ``auto`` tries, in order, and why the first one was chosen.

    ``gpu`` when CuPy sees a device; otherwise ``cpu`` (``reference`` first for inputs of
    at most :data:`SMALL_INPUT_CONSTRAINTS` constraints); each later entry is a fallback
    for when an earlier one is unavailable.
    """
    ok, why = gpu_available()
    if ok:
        return ["gpu", "cpu", "reference"], f"GPU found: {why}"
    if cs is not None and cs.n_constraints <= SMALL_INPUT_CONSTRAINTS:
        return ["reference", "cpu"], (f"no usable GPU ({why}); {cs.n_constraints:,} constraints is small "
                                      "enough for the pure-Python solver")
    return ["cpu", "reference"], f"no usable GPU ({why})"


def resolve_backend(backend: str, announce: bool = False, cs: ConstraintSet | None = None) -> str:
    """Map ``auto`` to the first of :func:`auto_candidates`; check the name."""
    if backend == "auto":
        candidates, why = auto_candidates(cs)
        if announce:
            print(f"backend auto: using {candidates[0]} ({why})", file=sys.stderr)
        return candidates[0]
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of auto, {', '.join(BACKENDS)}")
    return backend


def _backend_module(name: str):
    """The module ``andersen_gpu.backends.<name>``; BackendUnavailable where it does not import."""
    try:
        return importlib.import_module(f"andersen_gpu.backends.{name}")
    except ImportError as exc:
        raise BackendUnavailable(f"{name} backend unavailable: {exc}") from None


def coarse_solver(backend: str, announce=lambda message: None, threads: int = 1, **options):
    """The object-level solve that :func:`solve` gives
    :func:`~andersen_gpu.preprocess.objects.collapse_reached` when ``cs.collapse_cycles``: a
    callable ``f(coarse) -> Solution`` solving on ``backend`` (a name, not ``auto``) with the
    backend module's ``object_level_options(coarse)`` where it has one (its own choice for that
    set, e.g. the GPU's lighter preprocessing) and ``options`` over them. Any
    backend's least solution is the same."""
    name = resolve_backend(backend)
    own = getattr(_backend_module(name), "object_level_options", lambda coarse: {})
    return lambda coarse: solve(coarse, backend=name, announce=announce, threads=threads,
                                **{**own(coarse), **options})


def solve(cs: ConstraintSet, backend: str = "auto", announce=lambda message: None, threads: int = 1,
          kernel_timing: bool = False, **options) -> Solution:
    """Solve ``cs`` with one backend.

    Parameters
    ----------
    cs : ConstraintSet
    backend : {"auto", "reference", "cpu", "gpu"}
        ``auto`` picks ``gpu`` when CuPy sees a device, else ``cpu`` (``reference`` for
        small inputs, see :func:`auto_candidates`), falling back down that list when a
        backend is unavailable.
    announce : callable(str)
        Receives one line saying which backend ``auto`` chose (the CLI prints it), and
        the lines of a slow one-time compile (:func:`andersen_gpu.warmup.compile_backend`).
    threads : int
        CPU threads for the ``cpu`` backend (1: its serial solver; N > 1: its
        multi-core mode, see :func:`andersen_gpu.backends.cpu.solve`). Other
        backends ignore it, so it is safe with ``auto``.
    kernel_timing : bool
        ``gpu``: time every kernel with CUDA events into ``stats.kernel_ms`` (its ``timing``
        option; costs about 0.1 ms a round). Other backends ignore it.
    **options
        Passed to the backend's own ``solve``.

    Returns
    -------
    Solution
        Points-to sets of every node of ``cs`` (offline merges expanded). Where
        ``cs.collapse_cycles`` is set, of the set with the objects positive-weight cycles reach
        collapsed (:mod:`andersen_gpu.preprocess.objects`; its object-level solve runs on the same
        backend and counts in ``stats.solve_ms``, ``stats.notes["collapse_cycles"]`` says what it
        did). Numba's one-time
        compile runs first, apart: ``stats.compile_ms`` holds its time (0 once done in this
        process), ``stats.solve_ms`` does not. The cpu backend runs in a worker thread
        (:func:`andersen_gpu.interrupt.call`), so that Ctrl-C interrupts it at once.

    Raises
    ------
    BackendUnavailable
        The backend cannot run on this machine.
    """
    if backend == "auto":
        candidates, why = auto_candidates(cs)
        announce(f"backend auto: using {candidates[0]} ({why})")
        for i, name in enumerate(candidates):
            try:
                return solve(cs, backend=name, announce=announce, threads=threads, kernel_timing=kernel_timing,
                             **options)
            except BackendUnavailable as exc:
                if i + 1 == len(candidates):
                    raise
                announce(f"backend auto: {exc}; falling back to {candidates[i + 1]}")
    name = resolve_backend(backend)
    if name == "gpu":
        ok, why = gpu_available()
        if not ok:
            raise BackendUnavailable(f"gpu backend unavailable: {why}")
    module = _backend_module(name)
    step = warmup.compile_backend(name, threads, announce)
    objects = None
    if cs.collapse_cycles:
        from .preprocess.objects import collapse_reached
        t = time.perf_counter()
        cs, objects = collapse_reached(cs, coarse_solver(name, announce=announce, threads=threads, **options))
        objects_ms = (time.perf_counter() - t) * 1e3
    if name == "cpu":
        options["threads"] = threads
    if name == "gpu" and kernel_timing:
        options["timing"] = True
    sol = interrupt.call(module.solve, cs, **options) if name == "cpu" else module.solve(cs, **options)
    if sol.stats is not None:
        sol.stats.compile_ms = step.ms
        if objects is not None:
            sol.stats.solve_ms += objects_ms
            sol.stats.notes["collapse_cycles"] = objects.note()
    return sol
