"""Shared fixtures and the ``gpu`` marker's skip logic."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# ANDERSEN_GPU_EMULATOR=1: `cupy` is the SIMT emulator's stand-in (tests/emu), so the gpu tests
# run on the CPU
from tests.emu import install as _install_emulator, requested as _emulator_requested  # noqa: E402

if _emulator_requested():
    _install_emulator()

# The paper's inputs live beside the checkout (never copied into the project).
PAPER_INPUTS = Path(os.environ.get("ANDERSEN_PAPER_INPUTS", ROOT.parent / "shared" / "paper-inputs"))


def _gpu_present() -> bool:
    try:
        from andersen_gpu.solve import gpu_available
        return gpu_available()[0]
    except Exception:
        return False


def _runs_the_gpu_backend(item) -> bool:
    """A case parametrized with ``backend="gpu"`` (it must carry the ``gpu`` marker)."""
    callspec = getattr(item, "callspec", None)
    return callspec is not None and callspec.params.get("backend") == "gpu"


def pytest_collection_modifyitems(config, items):
    unmarked = [item.nodeid for item in items if _runs_the_gpu_backend(item) and not item.get_closest_marker("gpu")]
    if unmarked:  # `pytest -m gpu` on a GPU machine would leave them out
        raise pytest.UsageError(f"{len(unmarked)} GPU cases lack the gpu marker, e.g. {unmarked[0]}: "
                                'parametrize with pytest.param("gpu", marks=pytest.mark.gpu)')
    if any(item.get_closest_marker("gpu") for item in items) and not _gpu_present():
        skip = pytest.mark.skip(reason="no CUDA device / CuPy here")
        for item in items:
            if item.get_closest_marker("gpu"):
                item.add_marker(skip)


@pytest.fixture(scope="session")
def paper_inputs() -> Path:
    """Folder of the paper's benchmark inputs; skips the test when absent."""
    if not (PAPER_INPUTS / "ex_nodes.txt.gz").is_file():
        pytest.skip(f"paper inputs not found at {PAPER_INPUTS}")
    return PAPER_INPUTS


@pytest.fixture(scope="session")
def reader() -> str:
    """The compiled ``read_bitcode`` helper; skips the test where it cannot be built for want
    of a tool, fails it where the sources do not compile (a skip there would hide the error)."""
    from constraints.llvm.inputs import is_compile_error, reader as build

    exe, why = build()
    if exe is None:
        if is_compile_error(why):
            pytest.fail(f"read_bitcode does not compile: {why}")
        pytest.skip(f"read_bitcode cannot be built here: {why}")
    return exe
