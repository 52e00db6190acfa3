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
from pathlib import Path

FAKE_ROOT = Path(__file__).resolve().parent / "fakecupy"
ENV = "ANDERSEN_GPU_EMULATOR"
# modules that bind `cupy` when imported: dropped around emulated() so that they import it again
_BINDERS = ("andersen_gpu.backends.gpu", "andersen_gpu.backends._gpu_")


def requested() -> bool:
    """True when ANDERSEN_GPU_EMULATOR=1 asks for the emulator in this process."""
    return os.environ.get(ENV, "") == "1"


def _is_fake(module) -> bool:
    return getattr(module, "__simt_emulator__", False)


def _cupy_modules() -> dict:
    return {k: v for k, v in sys.modules.items() if k == "cupy" or k.startswith("cupy.")}


def _binder_modules() -> dict:
    return {k: v for k, v in sys.modules.items() if k.startswith(_BINDERS)}


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
        _import_fake()
    try:
        yield sys.modules["cupy"]
    finally:
        if not already:
            for k in list(_cupy_modules()) + list(_binder_modules()):
                del sys.modules[k]
            sys.modules.update(saved)
            _restore_package_attributes(saved)


def _restore_package_attributes(saved: dict) -> None:
    """``import a.b`` sets attribute b on package a: point those back at the saved modules
    (or drop them, for modules that were not imported before)."""
    pkg = sys.modules.get("andersen_gpu.backends")
    if pkg is None:
        return
    for name in list(vars(pkg)):
        full = f"andersen_gpu.backends.{name}"
        if full.startswith(_BINDERS):
            if full in saved:
                setattr(pkg, name, saved[full])
            else:
                delattr(pkg, name)
