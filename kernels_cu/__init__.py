"""CUDA C sources of the GPU backend's RawKernels, shipped as package data.

:func:`source` returns a kernel file's text; the launcher of the same name in
``andersen_gpu/backends/gpu*`` compiles it with ``cupy.RawModule``.
"""

from __future__ import annotations

from pathlib import Path

DIRECTORY = Path(__file__).resolve().parent


def path(name: str) -> Path:
    """Path of ``name`` (e.g. ``"rules.cu"``) inside the installed package."""
    p = DIRECTORY / name
    if not p.is_file():
        raise FileNotFoundError(f"kernel source {name} not found in {DIRECTORY}")
    return p


def source(name: str) -> str:
    """Text of a kernel source file."""
    return path(name).read_text()
