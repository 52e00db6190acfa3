"""Extraction speed: LLVM instructions per CPU-second of ``constraints.llvm``, end to end.

Usage::

    python3 bench/extract_speed.py [INPUT.bc ...] [--functions N] [--repeat R] [--out bench/results/extract-speed]

Without inputs it generates a deterministic C program (``--functions`` of
them: struct field traffic, pointer arithmetic, loops, direct and indirect
calls, varargs, library calls), compiles it with clang-19 the way the
front end compiles C (``-O0 -g`` then ``mem2reg``) and measures that. With
inputs (real whole-program bitcode, e.g. ``.corpus/*/*.bc``) it measures each.

Two stages, each timed in CPU seconds (user + system) of this process AND of the
``read_bitcode`` process it waits for, so that the sum is what one core spends;
the machine is shared, so CPU time, not wall time, is the figure (wall is
reported too). Each program is measured ``--repeat`` times and the run with the
least total CPU is kept (noise from other jobs only adds):

* ``read``: ``read_bitcode --extract`` (``constraints/llvm/reader/``): LLVM 19's
  bitcode reader and the extraction in one helper (building it, if the install
  did not, is done before the clock starts);
* ``build``: loading its columns into the ``ConstraintSet`` (``fast_extract.load``).

``end_to_end_instr_per_cpu_s`` = instructions / the sum of both stages (the figure).
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
from constraints.llvm.inputs import compile_source, read_module, reader  # noqa: E402

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


def measure_once(paths: list[Path]) -> dict:
    exe, why = reader()  # built (once) outside the clock
    if exe is None:
        raise SystemExit(f"read_bitcode cannot be built here: {why}")
    cpu, wall = {}, {}
    c, w = _cpu(), time.perf_counter()

    def lap(stage):
        nonlocal c, w
        c2, w2 = _cpu(), time.perf_counter()
        cpu[stage], wall[stage] = c2 - c, w2 - w
        c, w = c2, w2

    module, names = read_module(paths)
    lap("read")
    cs, stats = fast_extract.load(module, names)
    lap("build")
    n = stats.instructions
    total = sum(cpu.values())
    row = {
        "program": ", ".join(p.name for p in paths),
        "instructions": n,
        "nodes": cs.n_nodes,
        "constraints": cs.n_constraints,
        "unmodelled_functions": len(stats.unmodelled_calls),
    }
    row.update({f"{k}_cpu_s": round(v, 3) for k, v in cpu.items()})
    row["total_cpu_s"] = round(total, 3)
    row["total_wall_s"] = round(sum(wall.values()), 3)
    row["end_to_end_instr_per_cpu_s"] = int(n / max(total, 1e-9))
    row["unmodelled"] = " ".join(sorted(stats.unmodelled_calls)) or "-"
    return row


def measure(paths: list[Path], repeat: int = 1) -> dict:
    """The run with the least total CPU of ``repeat``."""
    return min((measure_once(paths) for _ in range(max(1, repeat))), key=lambda row: row["total_cpu_s"])


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
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "extract-speed")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.inputs:
            for p in args.inputs:
                rows.append(measure([p], args.repeat))
        else:
            src = Path(tmp) / "generated.c"
            src.write_text(generate(args.functions))
            bc = compile_source(src, tmp)
            row = measure([bc], args.repeat)
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
          "- times: CPU seconds of one core (this process + read_bitcode), least of the repeats",
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
