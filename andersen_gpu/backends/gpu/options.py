"""The settings of the GPU backend, with their defaults in one place."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class GpuOptions:
    """What a user may want to change about a GPU solve; every default is the tuned one.

    Attributes
    ----------
    preprocess : bool
        Collapse the constraint set offline first (``andersen_gpu.preprocess.collapse``:
        copy cycles and pointer-equivalent variables; same solution, fewer nodes).
    hvn_passes : int
        With ``preprocess``: HVN passes of the collapse (``collapse(hvn_passes=...)``); 0 keeps
        only HVN's single-copy-input merges, which is what the object-level presolve of
        ``collapse_cycles`` runs (:func:`object_level_options`).
    walk_geps : bool
        With ``preprocess``: give the pointers of ``+1`` gep cycles (``for (; *s; s++)``)
        walk geps, so that a chain of k slots takes about log2 k rounds, not 2k
        (:func:`andersen_gpu.preprocess.collapse.walk_geps`; same solution).
    pointee_order : bool
        Renumber the nodes so that the pointees of the large sets are numbered together
        (``andersen_gpu.preprocess.order``): a set costs every kernel its number of 960-bit
        elements. The solution is mapped back (same solution).
    capacity : int or None
        Initial pool capacity in 128-byte elements, also the least the pool is compacted to
        (default: ``solver.INITIAL_CAPACITY``, 2**18). The pool grows and is compacted as the
        solve goes.
    online_cycles : bool
        Between rounds, now and then, find the cycles that loads and stores made in the copy
        graph and merge each into one node (:mod:`.cycles`; same solution, fewer sets).
    compact_fill : float
        Compact the pool (drop the lists no set needs any more) once this fraction of it is
        in use after a round.
    timing : bool
        Time every kernel with CUDA events into ``stats.kernel_ms`` (about 0.1 ms a round).
    trace : bool
        Record per round, in ``stats.notes["trace"]``, the counts the host read (with
        ``timing``, also the round's milliseconds per kernel name, ``kernel_ms``).
    max_iterations : int or None
        Stop with RuntimeError after this many rounds (a guard for experiments).
    """

    preprocess: bool = True
    hvn_passes: int = 2
    walk_geps: bool = True
    pointee_order: bool = True
    capacity: int | None = None
    online_cycles: bool = True
    compact_fill: float = 0.75
    timing: bool = False
    trace: bool = False
    max_iterations: int | None = None

    def with_overrides(self, **overrides) -> "GpuOptions":
        """A copy with the named fields changed; an unknown name is a TypeError naming the valid ones."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise TypeError(f"unknown gpu option(s) {', '.join(unknown)}; expected {', '.join(sorted(known))}")
        if "hvn_passes" in overrides and int(overrides["hvn_passes"]) < 0:
            raise ValueError(f"hvn_passes must be 0 or more, not {overrides['hvn_passes']!r}")
        if "compact_fill" in overrides and not 0.0 < float(overrides["compact_fill"]) <= 1.0:
            raise ValueError(f"compact_fill must be in (0, 1], not {overrides['compact_fill']!r}")
        return replace(self, **overrides)


def object_level_options(coarse) -> dict:
    """Options of the object-level solve that ``collapse_cycles`` runs first
    (:func:`andersen_gpu.preprocess.objects.collapse_reached`; ``andersen_gpu.solve.coarse_solver``
    applies them to ``coarse``, a caller's own options over them): SCC collapse and HVN's
    single-copy-input merges only (``hvn_passes=0``), whatever the set.

    HVN's passes cost that stage more host time than their fewer nodes save the GPU: the rounds
    stay about as many (the copy chains the single-copy merges contract are what a round walks),
    small programs' rounds are bound by latency rather than work, and on the large ones the
    rounds' extra work was less than HVN's host time (bench/results/objlevel-presolve.md: every
    corpus program measured, in one call each). The cpu backend keeps HVN there, which is its
    faster choice.
    """
    return {"hvn_passes": 0}
