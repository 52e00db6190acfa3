"""The LLVM front end: whole C/C++ programs (bitcode, IR or source) to constraints.

Typical use::

    from constraints.llvm import extract_with_stats
    cs, stats = extract_with_stats(["prog.bc"])
    print("\\n".join(stats.lines()))

The rules live in one place, the C++ helper ``read_bitcode`` (``reader/extract.cpp``,
built by the install, :mod:`.build_reader`): it reads and links the program with
LLVM 19 and writes the constraints, which :mod:`.fast_extract` loads.

Node names map back to the program: ``@g`` (a global's address), ``*@g`` and
``*@g#k`` (its memory object and field slot ``k``), ``f:%x`` (a value or
argument of function ``f``), ``*f:%x`` (the object of an ``alloca`` or an
allocation call), ``@f`` (a function, whose slots are ``@f#ret``,
``@f#argK`` and ``@f#va``); ``locations`` holds ``file:line`` where the
bitcode has debug information.

A CUDA program (a ``.cu`` source, or its host and device modules) is compiled and
linked into one module by :mod:`.cuda`, host allocations reaching kernel parameters.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable

from ..model import ConstraintSet
from .stats import AliasCheck, ExtractStats

__all__ = ["extract", "extract_with_stats", "extract_text", "ExtractStats", "AliasCheck"]


def extract_with_stats(paths: "list[str | os.PathLike]", *, clang_flags=(), progress=None,
                       record_sites: bool = False, model_constants: bool = False,
                       collapse_cycles: bool = True) -> tuple[ConstraintSet, ExtractStats]:
    """Read, compile and link ``paths`` into one program and extract its constraints.

    Parameters
    ----------
    paths : ``.bc``, ``.ll``, ``.c``, ``.cc``, ``.cpp`` files (linked together), or a CUDA
        program (``.cu``, or its host and device modules: :mod:`.cuda`)
    clang_flags : extra flags for compiling sources (``-I``, ``-D``)
    progress : optional tqdm-like factory ``progress(total=n)`` for a progress bar
        over the instructions of the program's defined functions
    record_sites : also record every memory-access site (loads, stores, memory
        intrinsics, calls) in ``stats.access_sites``
    model_constants : give every read-only global of plain data (a string literal, a
        table of numbers: no address in its initializer) an object of its own. By
        default they are one object, ``<constant data>``, as in SVF (its ``-model-consts``
        off): nothing read from them is a pointer and nothing may be written to them, so
        no pointer and no mod/ref answer is lost, but two literals are not told apart.
    collapse_cycles : the set's :attr:`~constraints.model.ConstraintSet.collapse_cycles`:
        objects that pointer arithmetic in a loop (or an unknown offset) may walk are
        collapsed to one node when solving, as in SVF and Pearce, Kelly and Hankin; False
        keeps every slot of them apart (larger sets, field by field).

    Returns
    -------
    (ConstraintSet, ExtractStats)
        The constraints, with names and locations, and a report of counts,
        unmodelled external calls and alias assertions.

    Raises
    ------
    InputError
        Unreadable, invalid or uncompilable input, a missing compiler, or a
        helper that cannot be built here (the message says what to install).
    """
    import time

    from . import fast_extract
    from .inputs import read_module

    t0 = time.perf_counter()
    module, names = read_module(paths, clang_flags, progress=progress, sites=record_sites,
                                model_constants=model_constants)
    t1 = time.perf_counter()
    cs, stats = fast_extract.load(module, names, collapse_cycles=collapse_cycles)
    stats.seconds = {"read": t1 - t0, "build": time.perf_counter() - t1}
    return cs, stats


def extract(paths: "list[str | os.PathLike]", **opts) -> ConstraintSet:
    """Like :func:`extract_with_stats`, returning only the constraint set."""
    return extract_with_stats(paths, **opts)[0]


def extract_text(text: str, inputs: Iterable[str] = (), progress=None, record_sites: bool = False
                 ) -> tuple[ConstraintSet, ExtractStats]:
    """Constraints of one module given as textual LLVM IR (parsed and verified by LLVM).

    Parameters
    ----------
    text : the module as LLVM IR text
    inputs : input names for the report
    progress, record_sites : as for :func:`extract_with_stats`

    Returns
    -------
    (ConstraintSet, ExtractStats)
    """
    with tempfile.TemporaryDirectory(prefix="andersen-ir-") as tmp:
        path = Path(tmp) / "module.ll"
        path.write_text(text)
        cs, stats = extract_with_stats([path], progress=progress, record_sites=record_sites)
    stats.inputs = list(inputs)
    return cs, stats
