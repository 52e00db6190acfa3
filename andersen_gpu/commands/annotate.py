"""Annotate LLVM IR text with the analysis' alias facts as scoped-noalias metadata.

INPUT is one whole program as textual IR (``llvm-dis`` a linked ``.bc``
first). Its loads, stores, atomics and memory intrinsics get
``!alias.scope``/``!noalias`` lists such that LLVM's ScopedNoAliasAA
(``-aa-pipeline=...,scoped-noalias-aa``, part of the default pipeline) answers
NoAlias for two accesses of a function exactly when their location sets are
disjoint. Accesses the analysis cannot bound (through pointers from
unmodelled external code or integers) get none. The text is edited in place,
not re-printed, so OUT is read by the same LLVM as INPUT. A summary of what
was added (nodes, bytes) is printed.
"""

from __future__ import annotations

import argparse

from . import add_backend_argument, check_outputs, note

NAME = "annotate"
HELP = "add !alias.scope/!noalias metadata from the analysis to LLVM IR text"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="INPUT.ll", help="the program as LLVM IR text (one linked module)")
    parser.add_argument("-o", "--output", metavar="OUT.ll", required=True, help="annotated IR text")
    add_backend_argument(parser)
    parser.add_argument("--json", metavar="STATS", help="also write the summary as JSON")


def run(args: argparse.Namespace) -> int:
    import dataclasses
    import json
    import time
    from pathlib import Path

    from constraints.atomic import atomic_outputs
    from constraints.errors import InputError

    from ..aliasfacts import analyze
    from ..aliasfacts.annotate import annotate_text
    from ..cli import ExitCode

    src = Path(args.input)
    if src.suffix != ".ll":
        raise InputError("annotate edits IR text: give a .ll file (llvm-dis-19 turns .bc into one)", str(src))
    check_outputs([args.output, args.json], [args.input])
    try:
        text = src.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", str(src)) from None
    t0 = time.perf_counter()
    facts, cs, solution, _ = analyze([src], backend=args.backend, announce=note)
    t1 = time.perf_counter()
    out, stats = annotate_text(text, facts)
    t2 = time.perf_counter()
    with atomic_outputs([args.output] + ([args.json] if args.json else [])) as streams:  # both or neither
        streams[0].write(out)
        if args.json:
            streams[1].write(json.dumps({**dataclasses.asdict(stats), "analysis_s": t1 - t0,
                                         "annotate_s": t2 - t1}, indent=1))
    print(f"annotated {src} -> {args.output}")
    for line in stats.lines():
        print(line)
    print(f"time: analysis {t1 - t0:.2f}s  annotation {t2 - t1:.2f}s")
    return ExitCode.OK
