"""Solve a constraint set: compute the points-to set of every node.

INPUT is one of our dumps (.acs, .acs.gz, .npz), a paper dump named by its
nodes file (siblings found by name), or LLVM input. ``--backend auto`` uses
the GPU when CuPy sees one, else the CPU solver (the reference solver for
small inputs; see ``andersen_gpu.solve.auto_candidates``), falling back when
one is unavailable, and says which on stderr.

Checks: ``--verify-against FILE`` compares with a solution file (ours or the
paper's ``B_correct_soln_001.txt.gz``), ``--verify BACKEND`` solves again
with another backend; either prints the first differences and exits 1 on any.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ..solution import Solution
from ..solve import solve
from ..warmup import ANNOUNCE_AFTER_S
from . import (BACKEND_CHOICES, add_backend_argument, add_input_arguments, add_progress_argument, check_outputs,
               load_input, note, positive_int, progress_while)

NAME = "solve"
HELP = "solve a constraint set (and optionally verify the solution)"
SOLUTION_SUFFIXES = (".npz", ".txt", ".txt.gz")
DIFF_LIMIT = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    add_backend_argument(parser, help="solver to use (default: auto = gpu if present, else cpu; reference for small inputs)")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="write the solution: .npz (ours) or .txt/.txt.gz (the paper's solution format)")
    parser.add_argument("--verify-against", metavar="SOLUTION",
                        help="compare with a solution file (.npz or the paper's text format); exit 1 on any difference")
    parser.add_argument("--verify", metavar="BACKEND", choices=BACKEND_CHOICES,
                        help="solve again with BACKEND and compare; exit 1 on any difference")
    parser.add_argument("--stats", action="store_true", help="print solver statistics and counts")
    parser.add_argument("--threads", type=positive_int, default=1, metavar="N",
                        help="CPU threads for the cpu backend (default 1: its serial solver; N > 1: its "
                             "multi-core mode: same solution, so far slower); other backends ignore it")
    add_progress_argument(parser)



def run(args: argparse.Namespace) -> int:
    from constraints.errors import InputError

    from ..cli import ExitCode

    if args.output is not None and not args.output.endswith(SOLUTION_SUFFIXES):
        raise InputError("cannot tell the solution format from the name (expected .npz, .txt or .txt.gz)",
                         args.output)
    check_outputs([args.output], [args.input, args.verify_against])
    cs = load_input(args)
    expected = Solution.load(args.verify_against) if args.verify_against else None

    sol = solve_with(cs, args.backend, args.threads, kernel_timing=args.stats, progress=not args.no_progress)
    print(f"solved {args.input}: {cs.n_nodes:,} nodes, {sol.n_edges:,} points-to edges "
          f"in {sol.n_sets:,} distinct sets ({_backend_and_time(sol)})")
    if args.stats:
        for line in _stats_lines(cs, sol):
            print(line)
    if args.output is not None:
        if args.output.endswith(".npz"):
            sol.save(args.output)
        else:
            sol.write_paper(args.output)
        print(f"wrote {args.output}")

    status = ExitCode.OK
    if args.verify is not None:
        other = solve_with(cs, args.verify, args.threads, progress=not args.no_progress)
        status = max(status, _compare(sol, other, f"backend {_backend_name(other, args.verify)}", "verify"))
    if expected is not None:
        status = max(status, _compare(sol, expected, args.verify_against, "expected"))
    return status


def solve_with(cs, requested: str, threads: int = 1, kernel_timing: bool = False, progress: bool = True) -> Solution:
    """Solve with ``requested`` (``threads`` for the cpu backend, ``kernel_timing`` for the gpu's
    per-kernel times); ``auto`` and one-time compiles say on stderr what they do; ``progress``:
    a bar on a terminal when the solve takes more than a second (:func:`progress_while`)."""
    with progress_while(f"solving {cs.n_nodes:,} nodes", enabled=progress):
        return solve(cs, backend=requested, announce=_note_over_bar, threads=threads, kernel_timing=kernel_timing)


def _note_over_bar(message: str) -> None:
    """:func:`note`, through tqdm when a bar may be on the terminal (so that it does not tear the bar)."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        tqdm.write(f"andersen-gpu: {message}", file=sys.stderr)
    else:
        note(message)


def _compare(sol: Solution, other: Solution, what: str, other_label: str) -> int:
    """Print whether ``sol`` equals ``other`` (from ``what``); CHECK_FAILED on any difference."""
    from ..cli import ExitCode

    report = sol.diff_report(other, limit=DIFF_LIMIT, labels=("solved", other_label))
    if not report:
        print(f"verified against {what}: identical ({sol.n_nodes:,} nodes)")
        return ExitCode.OK
    print(f"MISMATCH against {what}:")
    print(report)
    print(f"andersen-gpu: check failed: solution differs from {what}", file=sys.stderr)
    return ExitCode.CHECK_FAILED


def _backend_name(sol: Solution, fallback: str) -> str:
    return sol.stats.backend if sol.stats is not None and sol.stats.backend else fallback


def _backend_and_time(sol: Solution) -> str:
    if sol.stats is None:
        return "no statistics"
    threads = sol.stats.notes.get("threads")
    backend = f"{sol.stats.backend} on {threads} threads" if threads else sol.stats.backend
    text = f"{backend}, {sol.stats.solve_ms:,.1f} ms"
    if sol.stats.compile_ms >= ANNOUNCE_AFTER_S * 1e3:  # the one-time step was announced: say what it cost
        text += f"; before it, the one-time compile: {sol.stats.compile_ms:,.0f} ms"
    return text


def _stats_lines(cs, sol: Solution) -> list[str]:
    lines = list(sol.stats.lines()) if sol.stats is not None else []
    sizes = np.diff(sol.set_indptr)[sol.node_set] if sol.n_nodes else np.zeros(0, np.int64)
    lines += [
        f"nodes: {cs.n_nodes:,}",
        f"constraints: {cs.n_constraints:,}",
        f"points-to edges: {sol.n_edges:,}",
        f"distinct sets: {sol.n_sets:,}",
        f"nodes with a non-empty set: {int(np.count_nonzero(sizes)):,}",
        f"largest set: {int(sizes.max()) if sizes.size else 0:,}",
    ]
    return lines
