"""Check the alias assertions a program carries.

The convention of pointer-analysis test suites: calls to ``MAYALIAS(p, q)``,
``NOALIAS``, ``MUSTALIAS``, ``PARTIALALIAS``, ``EXPECTEDFAIL_MAYALIAS`` and
``EXPECTEDFAIL_NOALIAS`` (declared ``void NAME(void *, void *)``, C++-mangled
names accepted). Each is checked against the points-to sets of its two
arguments:

=========================  =========================================
assertion                  passes when pts(p) and pts(q)
=========================  =========================================
MAYALIAS, MUSTALIAS,       intersect (Andersen's analysis is a may-analysis:
PARTIALALIAS               it cannot prove must- or partial aliasing)
NOALIAS                    are disjoint
EXPECTEDFAIL_MAYALIAS      are disjoint (the program may alias at run time
                           but the model is documented to miss it)
EXPECTEDFAIL_NOALIAS       intersect (the program never aliases but the
                           analysis, flow- and context-insensitive, says so)
=========================  =========================================

Each call is reported with ``file:line``, then a total; exit 1 on any failure.
"""

from __future__ import annotations

import argparse
import json

from . import add_backend_argument, check_outputs, note

NAME = "check-aliases"
HELP = "check MAYALIAS/NOALIAS/... assertions in C/C++ or LLVM programs"

PASS_WHEN_ALIAS = {"MAYALIAS": True, "MUSTALIAS": True, "PARTIALALIAS": True, "NOALIAS": False,
                   "EXPECTEDFAIL_MAYALIAS": False, "EXPECTEDFAIL_NOALIAS": True}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", metavar="INPUT", nargs="+",
                        help=".bc, .ll, .c, .cc, .cpp or .cu files; each is checked as its own program")
    add_backend_argument(parser)
    parser.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    parser.add_argument("--cflag", action="append", default=[], metavar="FLAG",
                        help="extra clang flag for C/C++ inputs (repeatable)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only failures and the total")


def check_program(path: str, backend: str, clang_flags=(), announce=lambda message: None) -> list[dict]:
    """Extract, solve and check one program; one result dict per assertion call.

    ``backend`` goes to :func:`andersen_gpu.solve.solve` with the program's
    constraints (so ``auto`` applies its small-input policy and fallback per
    program), and ``announce`` receives its line saying what ``auto`` chose.
    Each dict has ``file`` (the input), ``location`` (``file:line`` of the call),
    ``kind``, ``a``/``b`` (node names), ``alias`` (sets intersect), ``passed``
    and ``backend`` (the backend that solved it).
    """
    from constraints.llvm import extract_with_stats

    cs, stats = extract_with_stats([path], clang_flags=clang_flags)
    return check_extracted(path, cs, stats, backend, announce)


def check_extracted(path: str, cs, stats, backend: str, announce=lambda message: None) -> list[dict]:
    """:func:`check_program` on a program already extracted: ``cs`` and ``stats`` are what
    :func:`constraints.llvm.extract_with_stats` returned for ``path`` (its ``alias_checks``)."""
    from ..solve import solve

    if not stats.alias_checks:
        return []
    sol = solve(cs, backend=backend, announce=announce)
    used = sol.stats.backend if sol.stats is not None and sol.stats.backend else backend
    out = []
    for chk in stats.alias_checks:
        alias = bool(sol.may_alias(chk.a, chk.b))
        out.append({"file": path, "location": chk.location, "kind": chk.kind,
                    "a": cs.node_label(chk.a), "b": cs.node_label(chk.b), "alias": alias,
                    "passed": alias == PASS_WHEN_ALIAS[chk.kind], "backend": used})
    return out


def run(args: argparse.Namespace) -> int:
    from constraints.atomic import atomic_output

    from ..cli import ExitCode

    check_outputs([args.json], args.inputs)
    results, empty = [], []
    for path in args.inputs:
        found = check_program(path, args.backend, args.cflag, announce=note)
        if not found:
            empty.append(path)
        results += found
    for r in results:
        if r["passed"] and args.quiet:
            continue
        verdict = "ok  " if r["passed"] else "FAIL"
        print(f"{verdict} {r['location']}: {r['kind']}({r['a']}, {r['b']}) "
              f"{'alias' if r['alias'] else 'no alias'}")
    for path in empty:
        print(f"note {path}: no alias assertions")
    failed = sum(not r["passed"] for r in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    if args.json:
        with atomic_output(args.json) as fh:
            json.dump({"backend": args.backend, "passed": len(results) - failed, "failed": failed,
                       "results": results}, fh, indent=1)
    return ExitCode.CHECK_FAILED if failed else ExitCode.OK
