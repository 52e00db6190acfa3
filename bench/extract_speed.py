"""Extraction speed: LLVM instructions per CPU-second of ``constraints.llvm``, end to end.

Usage::

    python3 bench/extract_speed.py [INPUT.bc ...] [--functions N] [--repeat R]
                                   [--reader auto|fast|tools|llvmlite[,...]] [--out bench/results/extract-speed]

Without inputs it generates a deterministic C program (``--functions`` of
them: struct field traffic, pointer arithmetic, loops, direct and indirect
calls, varargs, library calls), compiles it with clang-19 the way the
extractor compiles C (``-O0 -g`` then ``mem2reg``) and measures that. With
inputs (real whole-program bitcode, e.g. ``.corpus/*/*.bc``) it measures each.

Stages, each timed in CPU seconds (user + system) of this process AND of the
subprocesses it waits for (``read_bitcode``/``llvm-dis-19``/``llvm-link-19``), so that the sum is
what one core spends; the machine is shared, so CPU time, not wall time, is
the figure (wall is reported too). Each program is measured ``--repeat`` times
per reader (readers interleaved, so that they see the same load) and the run
with the least total CPU is kept (noise from other jobs only adds).

* ``read``: input file to IR text (``read_bitcode``, our LLVM 19 helper, or
  ``llvm-dis-19`` in a subprocess, or llvmlite parse + verify + print in process,
  see ``constraints/llvm/inputs.py``; building ``read_bitcode`` on first use is
  done before the clock starts); with ``auto``/``fast`` on one ``.bc``, the
  helper extracts the constraints itself (``read_bitcode --extract``,
  ``reader/extract.cpp``) unless the module uses something it does not cover:
  then ``read`` is LLVM's reading AND the whole extraction, and the Python stages
  below are skipped but ``build``;
* ``split``: the text into lines;
* ``declare``: pass 1 (types, globals, function headers);
* ``instructions``: pass 2 (initializers, every instruction);
* ``build``: node locations, numpy columns, the ``ConstraintSet`` (after
  ``read_bitcode --extract``: loading its columns, ``fast_extract.load``).

``end_to_end_instr_per_cpu_s`` = instructions / the sum of all stages (the figure);
``extract_instr_per_cpu_s`` leaves ``read`` out, so it means the Python extractor's
speed only on the text path (after ``read_bitcode --extract`` it is the loading's).
Writes a CSV and a Markdown table with the machine, date and commit.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from constraints.llvm import fast_extract  # noqa: E402
from constraints.llvm.inputs import LLVM_DIS, READERS, compile_source, fast_reader, read_module  # noqa: E402

HEADER = r"""
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <stdarg.h>
struct node { int key; struct node *next; char *name; struct node *kids[4]; void (*visit)(struct node *); };
struct table { struct node **slots; int n; struct node *head; struct { char *k; void *v; } pairs[8]; };
static struct table tables[16];
static void visit_a(struct node *n) { if (n) n->key++; }
static void visit_b(struct node *n) { if (n && n->next) n->next->key--; }
static void (*visitors[2])(struct node *) = { visit_a, visit_b };
static int sum(int n, ...) { va_list ap; va_start(ap, n); int s = 0; for (int i = 0; i < n; i++) { struct node *p = va_arg(ap, struct node *); s += p ? p->key : 0; } va_end(ap); return s; }
"""

FUNC = r"""
struct node *f{i}(struct node *a, struct table *t, int k) {{
  struct node *p = a, *q = malloc(sizeof *q);
  memset(q, 0, sizeof *q);
  q->name = strdup("n{i}");
  q->visit = visitors[k & 1];
  for (int j = 0; j < k; j++) {{
    if (p == 0) break;
    q->kids[j & 3] = p;
    p = p->next;
    t->pairs[j & 7].k = q->name;
    t->pairs[j & 7].v = p;
  }}
  struct node **slot = &t->slots[k % (t->n + 1)];
  if (*slot) {{ q->next = *slot; }}
  *slot = q;
  t->head = k > {mod} ? q : t->head;
  char *c = q->name + (k & 3);
  if (*c == 'x') q->visit(q);
  struct node tmp = *q;
  tmp.key += sum(2, p, q);
  q->key = tmp.key + (int)strlen(c);
  return {ret};
}}
"""


def generate(n_functions: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    parts = [HEADER]
    for i in range(n_functions):
        if i and rng.random() < 0.5:
            ret = f"f{rng.randrange(i)}(q, &tables[{i % 16}], k - 1)"
        else:
            ret = "q->next ? q->next : p"
        parts.append(FUNC.format(i=i, mod=rng.randrange(10), ret=ret))
    parts.append("int main(int argc, char **argv) { struct node *r = 0;\n")
    for i in range(0, n_functions, max(1, n_functions // 64)):
        parts.append(f"  r = f{i}(r, &tables[{i % 16}], argc);\n")
    parts.append('  printf("%d\\n", r ? r->key : 0); return 0; }\n')
    return "".join(parts)


def _cpu() -> float:
    """CPU seconds of this process plus its waited-for children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def measure_once(paths: list[Path], reader: str) -> dict:
    from constraints.llvm.extractor import ModuleExtractor

    used = reader
    if reader in ("auto", "fast") and len(paths) == 1 and paths[0].suffix == ".bc":
        exe, why = fast_reader()  # built (once) outside the clock
        if reader == "auto" and os.environ.get("ANDERSEN_FAST_READER", "1") == "0":
            exe, why = None, "ANDERSEN_FAST_READER=0"
        used = f"{reader} (read_bitcode)" if exe is not None else f"{reader} ({Path(LLVM_DIS).name}: {why})"
    cpu, wall = {}, {}
    c, w = _cpu(), time.perf_counter()

    def lap(stage):
        nonlocal c, w
        c2, w2 = _cpu(), time.perf_counter()
        cpu[stage], wall[stage] = c2 - c, w2 - w
        c, w = c2, w2

    module, names = read_module(paths, reader=reader)
    lap("read")
    if isinstance(module, fast_extract.ExtractedModule):
        used = f"{reader} (read_bitcode --extract)"
        for stage in ("split", "declare", "instructions"):
            cpu[stage] = wall[stage] = 0.0
        cs, stats = fast_extract.load(module, names)
        lap("build")
    else:
        if getattr(module, "extract_skipped", ""):
            used = f"{reader} (read_bitcode text: {module.extract_skipped})"
        ex = ModuleExtractor(module, names)
        lap("split")
        ex._declare()
        lap("declare")
        ex._define()
        lap("instructions")
        cs = ex._finish()
        lap("build")
        stats = ex.stats
    n = stats.instructions
    total = sum(cpu.values())
    row = {
        "program": ", ".join(p.name for p in paths),
        "reader": used,
        "instructions": n,
        "nodes": cs.n_nodes,
        "constraints": cs.n_constraints,
        "unmodelled_functions": len(stats.unmodelled_calls),
    }
    row.update({f"{k}_cpu_s": round(v, 3) for k, v in cpu.items()})
    row["total_cpu_s"] = round(total, 3)
    row["total_wall_s"] = round(sum(wall.values()), 3)
    row["extract_instr_per_cpu_s"] = int(n / max(total - cpu["read"], 1e-9))
    row["end_to_end_instr_per_cpu_s"] = int(n / max(total, 1e-9))
    row["unmodelled"] = " ".join(sorted(stats.unmodelled_calls)) or "-"
    return row


def measure(paths: list[Path], readers=("auto",), repeat: int = 1) -> list[dict]:
    """One row per reader: the run with the least total CPU of ``repeat`` (readers interleaved)."""
    runs = {r: [] for r in readers}
    for _ in range(max(1, repeat)):
        for r in readers:
            runs[r].append(measure_once(paths, r))
    return [min(runs[r], key=lambda row: row["total_cpu_s"]) for r in readers]


def _commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="*", type=Path)
    ap.add_argument("--functions", type=int, default=5000, help="size of the generated program")
    ap.add_argument("--repeat", type=int, default=3, help="runs per program; the least total CPU is kept")
    ap.add_argument("--reader", default="auto",
                    help="IR reader(s), comma-separated: " + ", ".join(READERS) +
                         " (constraints.llvm.inputs.read_module); one row each")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "extract-speed")
    args = ap.parse_args(argv)
    readers = tuple(args.reader.split(","))
    for r in readers:
        if r not in READERS:
            ap.error(f"--reader: {r!r} is not one of {', '.join(READERS)}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.inputs:
            for p in args.inputs:
                rows += measure([p], readers, args.repeat)
        else:
            src = Path(tmp) / "generated.c"
            src.write_text(generate(args.functions))
            bc = compile_source(src, tmp)
            for row in measure([bc], readers, args.repeat):
                row["program"] = f"generated.c ({args.functions} functions)"
                rows.append(row)
    import pandas as pd

    df = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out.with_suffix(".csv"), index=False)
    cmd = "python3 bench/extract_speed.py " + " ".join(argv if argv is not None else sys.argv[1:])
    md = [f"# Extraction speed\n", f"- command: `{cmd.strip()}`",
          f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores (one used), "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f} at the end",
          f"- date: {time.strftime('%Y-%m-%d %H:%M %Z')}",
          f"- commit: {_commit()} (working tree: uncommitted changes may be included)",
          "- times: CPU seconds of one core (this process + read_bitcode/llvm-dis/llvm-link), least of the repeats",
          "",
          df.to_markdown(index=False) if _has_tabulate() else df.to_string(index=False), ""]
    args.out.with_suffix(".md").write_text("\n".join(md))
    print(df.to_string(index=False))
    return 0


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
        return True
    except ImportError:
        return False


if __name__ == "__main__":
    sys.exit(main())
