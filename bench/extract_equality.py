"""The C++ extractor against the Python one on real programs: the same constraints and access sites.

Usage::

    python3 bench/extract_equality.py [PROGRAM ...] [--corpus .corpus] [--out bench/results/extract-equality.md]

For each corpus program (``.corpus/P/P.bc``; all 11 without arguments) three inputs,
each extracted with the access sites of the alias facts by ``read_bitcode --extract
--sites`` (``reader/extract.cpp``) and by the Python extractor
(``constraints/llvm/extractor.py``) on the text ``llvm-dis-19``/``llvm-link-19 -S``
print of the same module:

* ``bc``: the bitcode as it is;
* ``ll``: the bitcode as IR text (``llvm-dis-19``), which the helper parses and links;
* ``split x3``: the program cut into three modules by ``llvm-split-19``, the middle
  one as IR text, linked back by the helper as ``llvm-link-19`` links them.

Equal means: the same ConstraintSet (node ids, kinds, sizes, names, locations,
every constraint column in order, the int-to-pointer node), the same statistics and
the same access sites (every column). The first difference is reported otherwise.
Writes a Markdown table with the command, machine, date and commit.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from constraints.llvm import extract_text, fast_extract  # noqa: E402
from constraints.llvm.inputs import module_text, read_module  # noqa: E402

PROGRAMS = ("gzip", "bzip2", "lua5.4", "make-dfsg", "bash", "gawk", "sqlite3", "perl", "git", "vim", "python3.11")
STATS = ("instructions", "opcodes", "functions_defined", "functions_declared", "globals", "unmodelled_calls",
         "unknown_instructions", "inline_asm", "wrapper_calls", "alias_checks", "node_kinds", "constraints")


def compare(paths: list[Path]) -> tuple[str, dict]:
    """("equal" or the first differences, sizes) of both extractors on ``paths``."""
    module, names = read_module(paths, reader="fast", sites=True)
    if not isinstance(module, fast_extract.ExtractedModule):
        return f"helper gave the text ({module.extract_skipped})", {}
    cs2, st2 = fast_extract.load(module, names)
    text, _ = module_text(paths, reader="tools")
    cs1, st1 = extract_text(text, names, record_sites=True)
    out = []
    if cs1.n_nodes != cs2.n_nodes:
        out.append(f"nodes {cs1.n_nodes} vs {cs2.n_nodes}")
    for what, a, b in (("name", cs1.names, cs2.names), ("location", cs1.locations, cs2.locations)):
        k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
        if k is not None:
            out.append(f"{what} of node {k}: {a[k]!r} vs {b[k]!r}")
    if cs1 != cs2:
        out.append("constraints differ")
    out += [f"statistic {f}" for f in STATS if getattr(st1, f) != getattr(st2, f)]
    for f in dataclasses.fields(st1.access_sites):
        if getattr(st1.access_sites, f.name) != getattr(st2.access_sites, f.name):
            out.append(f"access sites: {f.name}")
    sizes = {"instructions": st2.instructions, "nodes": cs2.n_nodes, "constraints": cs2.n_constraints,
             "sites": len(st2.access_sites)}
    return "; ".join(out) or "equal", sizes


def inputs_of(program: str, corpus: Path, tmp: Path):
    """(label, paths) of the three inputs of one program (made in ``tmp``, removed after use)."""
    bc = corpus / program / f"{program}.bc"
    yield "bc", [bc]
    ll = tmp / f"{program}.ll"
    subprocess.run(["llvm-dis-19", str(bc), "-o", str(ll)], check=True)
    yield "ll", [ll]
    ll.unlink()
    subprocess.run(["llvm-split-19", "-j", "3", str(bc), "-o", str(tmp / program)], check=True)
    parts = [(tmp / f"{program}{k}").rename(tmp / f"{program}{k}.bc") for k in range(3)]
    subprocess.run(["llvm-dis-19", str(parts[1]), "-o", str(parts[1].with_suffix(".ll"))], check=True)
    parts[1].unlink()
    parts[1] = parts[1].with_suffix(".ll")
    yield "split x3 (one .ll)", parts
    for p in parts:
        p.unlink()


def _commit() -> str:
    res = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return res.stdout.strip() or "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", default=list(PROGRAMS))
    ap.add_argument("--corpus", type=Path, default=ROOT / ".corpus")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "extract-equality.md")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="extract-equality-") as tmp:
        for program in args.programs:
            for label, paths in inputs_of(program, args.corpus, Path(tmp)):
                t = time.perf_counter()
                verdict, sizes = compare(paths)
                rows.append((program, label, sizes, verdict, time.perf_counter() - t))
                print(program, label, verdict, f"{rows[-1][-1]:.0f}s", flush=True)
    cmd = "python3 bench/extract_equality.py " + " ".join(argv if argv is not None else sys.argv[1:])
    md = ["# The C++ extractor against the Python extractor on the corpus", "",
          f"- command: `{cmd.strip()}`",
          f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}",
          f"- date: {time.strftime('%Y-%m-%d %H:%M %Z')}",
          f"- commit: {_commit()} (working tree: uncommitted changes may be included)",
          "- equal: the same ConstraintSet (ids, kinds, sizes, names, locations, constraint columns in order),"
          " statistics and access sites (every column)", "",
          "| program | input | instructions | nodes | constraints | access sites | verdict | seconds |",
          "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |"]
    for program, label, sizes, verdict, secs in rows:
        md.append(f"| {program} | {label} | {sizes.get('instructions', '')} | {sizes.get('nodes', '')} | "
                  f"{sizes.get('constraints', '')} | {sizes.get('sites', '')} | {verdict} | {secs:.0f} |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(md) + "\n")
    return 0 if all(r[3] == "equal" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
