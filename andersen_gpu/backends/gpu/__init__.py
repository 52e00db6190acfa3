r"""The GPU backend: inclusion-based points-to analysis over interned sets, on CuPy RawKernels.

The algorithm of Méndez-Lojo, Burtscher and Pingali (PPoPP 2012) -- sparse bit-vectors of
128-byte elements in one device pool, semi-naive rounds over the deltas ΔP, one warp per unit
of work -- with the sets shared between nodes: a node's points-to set is a set id naming an
interned, immutable list (hash-consing with exact comparison, as SVF's persistent points-to
sets, Barbar and Sui, SAS 2021), so memory grows with the distinct sets, not with the nodes.
The copy edges that loads and stores make are not stored either: they are read off the
pointer's set (kernels_cu/emit.cu), and the unions of a round are memoized by the set ids they
combine (runs.cu), so nodes with equal sets that receive equal contributions cost one union.

Stages, one module each:

======================  ==========================================================  ====================
module                  stage                                                       kernels
======================  ==========================================================  ====================
:mod:`.graph`           the constraint graph of the representatives (forward CSRs)  graph.cu, sort.cu
:mod:`.lists`           the initial points-to lists (x = &y)                        insert_pairs.cu
:mod:`.sets`            set table, intern table, memo caches, compaction, export     sets.cu
:mod:`.rounds`          one round: emit, sort, union, commit                        emit.cu, runs.cu,
                                                                                    commit.cu
:mod:`.cycles`          online cycle collapse between rounds                        runs.cu, commit.cu
:mod:`.solver`          the host loop                                               --
======================  ==========================================================  ====================

:class:`GpuOptions` holds the few settings a user may want. CuPy is imported only when a
solve runs, so machines without it import this package fine.
"""

from __future__ import annotations

from constraints.model import ConstraintSet

from ...solution import Solution
from .options import GpuOptions, object_level_options

__all__ = ["GpuOptions", "object_level_options", "solve"]


def solve(cs: ConstraintSet, options: GpuOptions | None = None, **overrides) -> Solution:
    """Least solution of ``cs`` on the GPU.

    Parameters
    ----------
    cs : ConstraintSet
    options : GpuOptions, optional
        The settings (default ``GpuOptions()``).
    **overrides
        Fields of :class:`GpuOptions` to change (``timing=True``, ``pointee_order=False``, ...).

    Returns
    -------
    Solution
        Exactly the reference backend's solution. ``stats``: rounds (``iterations``), per-kernel
        milliseconds with ``timing``, pool bytes, peak device bytes, and in ``notes`` the
        distinct final sets, the final facts (``final_edges``), device bytes per final fact,
        the sets made and live, compactions and memo-cache hits.

    Raises
    ------
    MemoryError
        The device ran out of memory.
    TypeError
        An unknown option.
    """
    opt = (options or GpuOptions()).with_overrides(**overrides)
    from .solver import solve_gpu
    return solve_gpu(cs, opt)
