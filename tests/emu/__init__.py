"""The SIMT emulator: the GPU backend's CUDA kernels and CuPy calls, run on the CPU.

``install()`` makes ``import cupy`` give the NumPy-backed stand-in of ``fakecupy/`` for the
rest of the process (what ``ANDERSEN_GPU_EMULATOR=1`` does in tests/conftest.py and
``python3 -m tests.emu``); ``emulated()`` does it for one block of code and then restores
what was there, so that a test can run the GPU backend on the emulator without leaving CPU-only
tests a "GPU" to find. See README.md beside this file.
"""

from __future__ import annotations

import contextlib
import os
import sys
import types
from pathlib import Path

FAKE_ROOT = Path(__file__).resolve().parent / "fakecupy"
ENV = "ANDERSEN_GPU_EMULATOR"
# modules of these packages that hold `cupy` (import cupy at module level), and the GPU
# backend's modules (which keep CuPy objects, e.g. timing events), are dropped around
# emulated(), so that they import it again
_PACKAGES = ("andersen_gpu", "bench")
_GPU_MODULES = ("andersen_gpu.backends.gpu", "andersen_gpu.backends._gpu")


def requested() -> bool:
    """True when ANDERSEN_GPU_EMULATOR=1 asks for the emulator in this process."""
    return os.environ.get(ENV, "") == "1"


def _is_fake(module) -> bool:
    return getattr(module, "__simt_emulator__", False)


def _cupy_modules() -> dict:
    return {k: v for k, v in sys.modules.items() if k == "cupy" or k.startswith("cupy.")}


def _holds_cupy(module) -> bool:
    return any(isinstance(v, types.ModuleType) and (v.__name__ == "cupy" or v.__name__.startswith("cupy."))
               for v in list(vars(module).values()))


def _binder_modules() -> dict:
    return {k: v for k, v in list(sys.modules.items())
            if v is not None and k.split(".")[0] in _PACKAGES and (k.startswith(_GPU_MODULES) or _holds_cupy(v))}


def _import_fake():
    root = str(FAKE_ROOT)
    sys.path.insert(0, root)
    try:
        import cupy
    finally:
        sys.path.remove(root)
    if not _is_fake(cupy):
        raise RuntimeError(f"import cupy found {cupy.__file__}, not the emulator's stand-in")
    return cupy


def active() -> bool:
    """True when ``cupy`` in this process is the emulator's stand-in (installed, or inside
    :func:`emulated`): a subprocess that should solve as this one does needs ``ENV=1``."""
    return _is_fake(sys.modules.get("cupy"))


def install():
    """Make ``cupy`` the emulator's stand-in for the rest of the process; returns it.

    Raises RuntimeError when the real CuPy is already imported (modules may hold it)."""
    cur = sys.modules.get("cupy")
    if cur is not None:
        if _is_fake(cur):
            return cur
        raise RuntimeError("the real CuPy is already imported; install the emulator before it")
    return _import_fake()


@contextlib.contextmanager
def emulated():
    """Within the block, ``cupy`` is the stand-in and the GPU backend's modules use it; after
    it, the modules that were there before (the real CuPy, or none) are back."""
    saved = {**_cupy_modules(), **_binder_modules()}
    already = _is_fake(sys.modules.get("cupy"))
    if not already:
        for k in saved:
            del sys.modules[k]
        _forget_package_attributes(saved)   # `from pkg import mod` reads pkg.mod first
        _import_fake()
    try:
        yield sys.modules["cupy"]
    finally:
        if not already:
            dropped = {**_cupy_modules(), **_binder_modules()}
            for k in dropped:
                del sys.modules[k]
            sys.modules.update(saved)
            _restore_package_attributes(dropped, saved)


def _forget_package_attributes(dropped: dict) -> None:
    """Drop the attributes that point packages at the dropped submodules (whatever module
    they point to), so that the next import of each loads it again."""
    for full in dropped:
        parent, _, name = full.rpartition(".")
        pkg = sys.modules.get(parent)
        if pkg is not None and isinstance(getattr(pkg, name, None), types.ModuleType):
            delattr(pkg, name)


def _restore_package_attributes(dropped: dict, saved: dict) -> None:
    """``import a.b`` sets attribute b on package a: point those back at the saved modules,
    or drop them for modules that were not imported before."""
    for full in dropped:
        parent, _, name = full.rpartition(".")
        pkg = sys.modules.get(parent)
        if pkg is None:
            continue
        if full in saved:
            setattr(pkg, name, saved[full])
        elif getattr(pkg, name, None) is dropped[full]:
            delattr(pkg, name)
