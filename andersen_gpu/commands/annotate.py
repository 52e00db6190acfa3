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

A CUDA program (a ``.cu`` source, or its host and device modules: ``.bc``/``.ll``,
the device module being the one whose triple is ``nvptx64``) is analysed host and
device together, and OUT is its **device** module's IR text with the metadata (a
``.ll`` device module as given, else as ``llvm-dis-19`` prints it), ready for
``llc-19 -march=nvptx64`` or ``opt-19``. The CUDA headers are found as
``constraints.llvm.cuda`` says (``$ANDERSEN_CUDA_PATH``, ``--cflag=--cuda-path=DIR``,
or the ``cuda`` extra's wheels).
"""

from __future__ import annotations

import argparse

from . import add_backend_argument, check_outputs, note

NAME = "annotate"
HELP = "add !alias.scope/!noalias metadata from the analysis to LLVM IR text"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", metavar="INPUT", nargs="+",
                        help="the program as LLVM IR text (one linked .ll module), or a CUDA program: "
                             "a .cu source, or its host and device modules")
    parser.add_argument("-o", "--output", metavar="OUT.ll", required=True,
                        help="annotated IR text (of the device module, for a CUDA program)")
    add_backend_argument(parser)
    parser.add_argument("--json", metavar="STATS", help="also write the summary as JSON")
    parser.add_argument("--cflag", action="append", default=[], metavar="FLAG",
                        help="extra clang flag for a .cu source (repeatable)")


def run(args: argparse.Namespace) -> int:
    import dataclasses
    import json
    import tempfile
    import time
    from pathlib import Path

    from constraints.atomic import atomic_outputs
    from constraints.errors import InputError
    from constraints.llvm import cuda

    from ..aliasfacts import analyze
    from ..aliasfacts.annotate import annotate_text
    from ..cli import ExitCode

    check_outputs([args.output, args.json], args.inputs)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="andersen-annotate-") as tmp:
        program = cuda.prepare(args.inputs, tmp, args.cflag)
        if program is None:
            src = Path(args.inputs[0])
            if len(args.inputs) != 1 or src.suffix != ".ll":
                raise InputError("annotate edits IR text: give one .ll file (llvm-dis-19 turns .bc into one), "
                                 "or a CUDA program", str(src))
            try:
                text = src.read_text()
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", str(src)) from None
            facts, cs, solution, _ = analyze([src], backend=args.backend, announce=note)
            what = str(src)
        else:
            text = cuda.device_text(program)
            facts, cs, solution, _ = analyze([program.combined], backend=args.backend, announce=note)
            what = f"the device module of {' '.join(args.inputs)}"
    t1 = time.perf_counter()
    out, stats = annotate_text(text, facts, part=program is not None)
    t2 = time.perf_counter()
    with atomic_outputs([args.output] + ([args.json] if args.json else [])) as streams:  # both or neither
        streams[0].write(out)
        if args.json:
            streams[1].write(json.dumps({**dataclasses.asdict(stats), "analysis_s": t1 - t0,
                                         "annotate_s": t2 - t1}, indent=1))
    print(f"annotated {what} -> {args.output}")
    for line in stats.lines():
        print(line)
    print(f"time: analysis {t1 - t0:.2f}s  annotation {t2 - t1:.2f}s")
    return ExitCode.OK
