"""The LLVM front end: whole C/C++ programs (bitcode, IR or source) to constraints.

The only package of the project that imports llvmlite (through
:mod:`.inputs`). Typical use::

    from constraints.llvm import extract_with_stats
    cs, stats = extract_with_stats(["prog.bc"])
    print("\\n".join(stats.lines()))

Node names map back to the program: ``@g`` (a global's address), ``*@g`` and
``*@g#k`` (its memory object and field slot ``k``), ``f:%x`` (a value or
argument of function ``f``), ``*f:%x`` (the object of an ``alloca`` or an
allocation call), ``@f`` (a function, whose slots are ``@f#ret``,
``@f#argK`` and ``@f#va``); ``locations`` holds ``file:line`` where the
bitcode has debug information.

A CUDA program (a ``.cu`` source, or its host and device modules) is compiled and
linked into one module by :mod:`.cuda`, host allocations reaching kernel parameters.

For one ``.bc`` file, :func:`extract_with_stats` lets the ``read_bitcode``
helper extract the constraints in C++ (:mod:`.fast_extract`, the same result
as the Python extractor on the module's text, which stays the fallback and
the reference); ``ANDERSEN_FAST_EXTRACT=0`` always takes the text path.
"""

from __future__ import annotations

import os
from typing import Iterable

from ..model import ConstraintSet
from .extractor import AliasCheck, ExtractStats, ModuleExtractor

__all__ = ["extract", "extract_with_stats", "extract_text", "ExtractStats", "AliasCheck"]


def extract_text(text: str, inputs: Iterable[str] = (), progress=None, record_sites: bool = False
                 ) -> tuple[ConstraintSet, ExtractStats]:
    """Constraints of one module given as textual LLVM IR (already verified).

    Parameters
    ----------
    text : the module as printed by LLVM
    inputs : input names for the report
    progress : optional tqdm-like factory ``progress(total=n)`` for a bar over IR lines
    record_sites : also record every memory-access site in ``stats.access_sites``
        (:class:`~constraints.llvm.access_sites.AccessSites`)

    Returns
    -------
    (ConstraintSet, ExtractStats)
    """
    return ModuleExtractor(text, inputs, progress, record_sites).run()


def extract_with_stats(paths: "list[str | os.PathLike]", *, clang_flags=(), progress=None,
                       record_sites: bool = False) -> tuple[ConstraintSet, ExtractStats]:
    """Read, compile and link ``paths`` into one program and extract its constraints.

    Parameters
    ----------
    paths : ``.bc``, ``.ll``, ``.c``, ``.cc``, ``.cpp`` files (linked together), or a CUDA
        program (``.cu``, or its host and device modules: :mod:`.cuda`)
    clang_flags : extra flags for compiling sources (``-I``, ``-D``)
    progress : optional tqdm-like factory ``progress(total=n)`` for a progress bar
        over the instructions (IR lines, on the Python extractor's path)
    record_sites : also record every memory-access site (loads, stores, memory
        intrinsics, calls) in ``stats.access_sites`` (always through the Python
        extractor)

    Returns
    -------
    (ConstraintSet, ExtractStats)
        The constraints, with names and locations, and a report of counts,
        unmodelled external calls and alias assertions.

    Raises
    ------
    InputError
        Unreadable, invalid or uncompilable input, or a missing compiler.
    """
    import time

    from . import fast_extract
    from .inputs import module_text, read_module

    t0 = time.perf_counter()
    # access sites are recorded by the Python extractor only, so they need the text
    module, names = (module_text(paths, clang_flags) if record_sites
                     else read_module(paths, clang_flags, progress=progress))
    t1 = time.perf_counter()
    if isinstance(module, fast_extract.ExtractedModule):
        cs, stats = fast_extract.load(module, names)
        stats.seconds = {"read": t1 - t0, "build": time.perf_counter() - t1}
        return cs, stats
    cs, stats = extract_text(module, names, progress, record_sites)
    stats.seconds = {"read": t1 - t0, **stats.seconds}
    return cs, stats


def extract(paths: "list[str | os.PathLike]", **opts) -> ConstraintSet:
    """Like :func:`extract_with_stats`, returning only the constraint set."""
    return extract_with_stats(paths, **opts)[0]
