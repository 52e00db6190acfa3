"""``solve(cs, backend=...)``: one entry point over every backend.

Every backend returns the same :class:`Solution` for the same constraint set;
that equality is the project's main correctness check.
"""

from __future__ import annotations

import importlib
import sys

from constraints.model import ConstraintSet

from .solution import Solution

BACKENDS = ("reference", "cpu", "gpu")


class BackendUnavailable(RuntimeError):
    """The requested backend cannot run here (no GPU, CuPy missing, ...)."""


def gpu_available() -> tuple[bool, str]:
    """(True, device name) when CuPy imports and sees a CUDA device, else (False, why)."""
    try:
        import cupy  # noqa: F401
    except Exception as exc:  # ImportError, or a broken CUDA install
        return False, f"CuPy is not usable ({exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"no CUDA device ({str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__})"
    if n == 0:
        return False, "no CUDA device"
    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    return True, name


def resolve_backend(backend: str, announce: bool = False) -> str:
    """Map ``auto`` to ``gpu`` when a device is present, else ``cpu``; check the name."""
    if backend == "auto":
        ok, why = gpu_available()
        chosen = "gpu" if ok else "cpu"
        if announce:
            msg = f"backend auto: using gpu ({why})" if ok else f"backend auto: using cpu ({why})"
            print(msg, file=sys.stderr)
        return chosen
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of auto, {', '.join(BACKENDS)}")
    return backend


def solve(cs: ConstraintSet, backend: str = "auto", **options) -> Solution:
    """Solve ``cs`` with one backend.

    Parameters
    ----------
    cs : ConstraintSet
    backend : {"auto", "reference", "cpu", "gpu"}
        ``auto`` picks ``gpu`` when CuPy sees a device, else ``cpu``.
    **options
        Passed to the backend's own ``solve``.

    Returns
    -------
    Solution
        Points-to sets of every node of ``cs`` (offline merges expanded).

    Raises
    ------
    BackendUnavailable
        The backend cannot run on this machine.
    """
    name = resolve_backend(backend)
    if name == "gpu":
        ok, why = gpu_available()
        if not ok:
            raise BackendUnavailable(f"gpu backend unavailable: {why}")
    try:
        module = importlib.import_module(f"andersen_gpu.backends.{name}")
    except ImportError as exc:
        raise BackendUnavailable(f"{name} backend unavailable: {exc}") from None
    return module.solve(cs, **options)
