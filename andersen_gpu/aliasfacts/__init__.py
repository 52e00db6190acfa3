"""Alias facts for LLVM passes: per-instruction location sets, side files, annotated IR.

The consumer in mind is PCFM (seed 000), a pass that merges divergent control
flow and must know which memory operations may touch the same memory. Three
ways to hand it our facts:

* the Python API: :func:`analyze` gives :class:`AliasFacts` with
  :meth:`AliasFacts.may_alias` for two instructions (stable ids
  ``(function, block, index)``) and :func:`may_alias_values` for two values;
* a side file (:mod:`.tables`): one row per memory instruction, its location
  set, and the may-alias pairs of sets within each function;
* the user's own IR text with ``!alias.scope``/``!noalias`` metadata
  (:mod:`.annotate`, encoding in :mod:`.scopes`), read by LLVM's
  ScopedNoAliasAA with no new code in the pass.

Module map: :mod:`.facts` (location sets, mod/ref of calls), :mod:`.scopes`
(exact scope assignment per function), :mod:`.annotate` (text editing),
:mod:`.tables` (side-file schema and writers).
"""

from __future__ import annotations

import os

from .facts import AliasFacts, build_facts, may_alias_values, with_unknown_externals

__all__ = ["AliasFacts", "analyze", "build_facts", "may_alias_values", "with_unknown_externals"]


def analyze(paths: "list[str | os.PathLike]", backend: str = "auto", clang_flags=(), text: str | None = None,
            announce=lambda message: None):
    """Extract, solve and compute the alias facts of one program.

    Parameters
    ----------
    paths : input files (``.bc``, ``.ll``, ``.c``, ``.cc``, ...), linked into one program
    backend : solver (``auto``, ``reference``, ``cpu``, ``gpu``)
    clang_flags : extra clang flags for sources
    text : the module's IR text, when already read; ``paths`` then only name it
    announce : called with one line saying which backend ``auto`` chose and why (see
        :func:`andersen_gpu.solve.solve`)

    Returns
    -------
    (AliasFacts, ConstraintSet, Solution, ExtractStats)
        The facts, the constraints that were solved (the program's, plus
        :func:`with_unknown_externals`), their solution, and the extraction report.

    Raises
    ------
    InputError
        Unreadable or invalid input.
    """
    from constraints.llvm import extract_text, extract_with_stats

    from ..solve import solve

    if text is None:
        cs, stats = extract_with_stats(paths, clang_flags=clang_flags, record_sites=True)
    else:
        cs, stats = extract_text(text, [str(p) for p in paths], record_sites=True)
    full = with_unknown_externals(cs, stats.access_sites)
    solution = solve(full, backend=backend, announce=announce)
    return build_facts(full, stats.access_sites, solution), full, solution, stats
