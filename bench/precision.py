"""Precision and soundness of the front end on the corpus: set sizes, empty sets, lost objects.

Usage::

    python3 bench/precision.py [PROGRAM ...] [--code DIR] [--label NAME] [--timeout-s S]
                               [--save-baseline DIR] [--baseline DIR] [--out bench/results/precision]

For every corpus program (``.corpus/P/P.bc``; default: every one there) it extracts
(``constraints.llvm.extract_with_stats``), solves with the cpu backend, and reports:

* ``named_pointers``: value nodes named after an LLVM value (``F:%X``, ``@G``), the extractor's
  temporaries left out (:func:`named_pointers` says how they are told apart);
* ``avg_set_objects``: their average points-to set size at object level (a field slot counts as
  its object; each object once);
* ``final_facts``: points-to facts of every node at slot level (the solution's size);
* ``empty_named``: named pointers with an empty set;
* with ``--baseline DIR`` (a directory written by ``--save-baseline``, typically with ``--code``
  naming a checkout of an older front end): ``lost_pointers``, the named pointers present in both
  whose set lost an object (pointers and objects matched by name, a name several nodes
  share by its rank among them: :func:`node_keys`), and a sample of them with the lost objects;
  ``lost_other_pointers`` / ``lost_other_objects`` count only the lost objects that were not in the
  baseline's ``<ptrtoint>`` set (objects whose address the program never turned into an integer,
  so that no rule about integers explains their loss); the sample lists those first;
  ``lost_distinct_objects``: how many objects some named pointer lost, every one listed (the most lost
  first, with what the object is now: its kind and slots) in ``OUT-lost-objects.json``, the first 40
  and a count by kind and slots in ``OUT.md``.

Each program runs in a child process with ``--timeout-s`` (the large ones solve for minutes on a
2-core machine, or exhaust its memory); a program that runs out of time is reported as such.
``--code DIR`` runs the extraction and the solver of another checkout (``DIR`` goes first on the
child's ``sys.path``), so ``--code /path/to/main --save-baseline B`` records the old front end's
sets, and a later run of this checkout with ``--baseline B`` compares against them.

Results: ``OUT.csv`` (one row per program and label; rows of other programs and labels already there
are kept), ``OUT-lost.json`` (the samples of pointers that lost objects, likewise),
``OUT-lost-objects.json`` (the objects lost, likewise) and ``OUT.md`` (all rows, then the lost
objects, then the samples, then whatever follows the line ``KEPT`` in the old file: sections
written by hand), with machine, date and commit.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FIELDS = ("program", "label", "commit", "status", "instructions", "nodes", "named_pointers", "avg_set_objects",
          "final_facts", "empty_named", "lost_pointers", "lost_objects", "extract_s", "solve_s", "date", "machine",
          "empty_by_definition", "lost_other_pointers", "lost_other_objects", "lost_distinct_objects")

# OUT.md keeps everything from this line on (sections written by hand) when it is written again
KEPT = "<!-- written by hand: kept by bench/precision.py -->"

# names the extractors give their temporaries: F:%X followed by one of these
_TEMP = re.compile(r"\.(?:gep|any|slot\d+|icall|int|asptr|va_area|va_list|va_args|given|deref|deref_any|elem|into"
                   r"|out|fields|text|advanced|copy\d+|src\d+|dst\d+|callback|static|va_copy|va_src|va_dst|new|move\d+"
                   r"|ret|arg\d+|unknown|returned|model|field\d+|fieldaddr\d+|reach)(?:[.+].*)?$")


def named_pointers(names, kinds) -> list[int]:
    """Ids of the value nodes named after an LLVM value: ``F:%X`` or ``@G``.

    The extractors name their temporaries ``F:%X.SUFFIX`` with a suffix from a fixed list
    (``.gep``, ``.any``, ``.slot1``, ``.icall.arg0``, ...), and those of a modelled external's
    body ``@F.model...``: those are left out, as are nodes
    without a ``%`` (``F:call.G``, ``<exception>``) and ``&@F`` (a function's address). An LLVM
    name that happens to end like a temporary (``%x.any``) is left out too; both runs of a
    comparison apply the same rule.
    """
    out = []
    for i, (name, k) in enumerate(zip(names, kinds)):
        if k != 0:
            continue
        if name.startswith("@"):
            if _TEMP.search(name) is None:  # @f.model...: a modelled external's body (model_bodies)
                out.append(i)
        elif ":%" in name and _TEMP.search(name, name.index(":%")) is None:
            out.append(i)
    return out


def node_keys(names) -> list[str]:
    """Each node's name, made unique: a name that several nodes share (two allocations of one model
    in one function, ``*F:callee().into``; a C++ function's locals of the same name) gets ``#k``,
    its rank among the nodes of that name by id. Two runs of one front end on one program give a
    node the same key, which is how :func:`_compare` matches pointers and objects."""
    seen: Counter = Counter(names)
    rank: Counter = Counter()
    out = []
    for x in names:
        if seen[x] > 1:
            out.append(f"{x}#{rank[x]}")
            rank[x] += 1
        else:
            out.append(x)
    return out


def measure(bc: Path, baseline: "Path | None", save: "Path | None", explain: bool = False,
            keep_cycle_fields: bool = False) -> dict:
    """Extract and solve one program; the row (and the lost-object sample) as a dict
    (``keep_cycle_fields``: without ``collapse_cycles``, every slot of every object kept apart)."""
    import numpy as np

    import andersen_gpu
    from constraints.llvm import extract_with_stats

    t0 = time.perf_counter()
    cs, stats = extract_with_stats([bc], **({"collapse_cycles": False} if keep_cycle_fields else {}))
    t1 = time.perf_counter()
    sol = andersen_gpu.solve(cs, backend="cpu")
    t2 = time.perf_counter()
    kinds = np.asarray(cs.kind)
    n = cs.n_nodes
    base = cs.slot_objects()  # a field's object
    names = cs.names
    ptrs = np.asarray(named_pointers(names, kinds.tolist()), np.int64)
    node_set = sol.node_set
    sets_of = node_set[ptrs]
    used = np.unique(sets_of)
    obj_sets = {}
    for s in used.tolist():
        lo, hi = sol.set_indptr[s], sol.set_indptr[s + 1]
        obj_sets[s] = np.unique(base[sol.set_indices[lo:hi]])
    sizes = np.array([len(obj_sets[s]) for s in sets_of.tolist()], np.int64)
    row = {"instructions": stats.instructions, "nodes": n, "named_pointers": len(ptrs),
           "avg_set_objects": round(float(sizes.mean()), 2) if len(sizes) else 0.0,
           "final_facts": int(np.diff(sol.set_indptr)[node_set].sum()),
           "empty_named": int((sizes == 0).sum()), "extract_s": round(t1 - t0, 1), "solve_s": round(t2 - t1, 1)}
    keys = node_keys(names)
    if save is not None:
        esc = [i for i, x in enumerate(names) if x == "<ptrtoint>"]
        escaped = np.unique(base[sol.points_to(esc[0])]) if esc else np.zeros(0, np.int64)
        np.savez_compressed(save, **_baseline(keys, ptrs, sets_of, obj_sets, escaped))
    if baseline is not None and baseline.is_file():
        row.update(_compare(np.load(baseline), keys, ptrs, sets_of, obj_sets, _folded(cs)))
        ids = {x: i for i, x in enumerate(keys)}
        kind_name = {1: "object", 3: "function"}
        for entry in row["lost_by_object"]:  # what the lost object is now: kind and slots
            i = ids.get(entry[0])
            entry += [kind_name.get(int(kinds[i]), "?"), int(cs.obj_size[i])] if i is not None else ["gone", 0]
    if explain:
        empty = ptrs[sizes == 0].tolist()
        row["empty_by_definition"] = "; ".join(f"{k} {v}" for k, v in explain_empty(bc, names, empty).items())
    return row


def _baseline(keys, ptrs, sets_of, obj_sets, escaped) -> dict:
    """What ``--save-baseline`` writes for one program (arrays, for ``np.savez_compressed``): the
    object-level sets over object keys (:func:`node_keys`), one per distinct set (``set_indptr``,
    ``set_indices`` into ``obj_names``), each named pointer's key and set (``ptr_names``, ``ptr_set``)
    and the keys of the objects in ``escaped`` (the ``<ptrtoint>`` set's objects)."""
    import numpy as np

    objs = sorted({int(o) for a in obj_sets.values() for o in a.tolist()})
    oid = {o: k for k, o in enumerate(objs)}
    order = sorted(obj_sets)
    sid = {s: k for k, s in enumerate(order)}
    indptr = np.zeros(len(order) + 1, np.int64)
    indptr[1:] = np.cumsum([len(obj_sets[s]) for s in order])
    indices = np.concatenate([np.array([oid[o] for o in obj_sets[s].tolist()], np.int32) for s in order]) \
        if order else np.zeros(0, np.int32)
    return dict(ptr_names=np.array([keys[i] for i in ptrs.tolist()]),
                escaped_objs=np.array(sorted({keys[int(o)] for o in escaped.tolist()}), dtype=str),
                ptr_set=np.array([sid[s] for s in sets_of.tolist()], np.int32),
                obj_names=np.array([keys[o] for o in objs]), set_indptr=indptr, set_indices=indices)


def explain_empty(bc: Path, names, empty_ids) -> dict:
    """Count the named pointers with an empty set by what defines them in the IR text.

    ``argument of an uncalled function``: no call site names the function and its address is
    never taken (dead code: nothing flows in at run time either); ``argument``: the function is
    called, but no caller passes a pointer to it (null, or a pointer with an empty set itself);
    otherwise the defining opcode (``load``: memory into which no pointer is ever stored;
    ``phi``/``select``/``getelementptr``/casts: of such values or of null; ``call``: a function
    that returns only such values or null).
    """
    import re
    import subprocess

    text = subprocess.run(["llvm-dis-19", str(bc), "-o", "-"], capture_output=True, text=True, check=True).stdout
    defs, params, used = {}, {}, set()
    fn = None
    ident = r'(?:"[^"]*"|[-\w$.]+)'
    for line in text.split("\n"):
        if line.startswith("define "):
            m = re.search(r"@(" + ident + r")\(", line)
            fn = m.group(1).strip('"') if m else None
            if fn is not None:
                for pm in re.finditer(r"%(" + ident + r")(?=[,)])", line[m.end():]):
                    params[f"{fn}:%{pm.group(1)}"] = fn
        elif line.startswith("}"):
            fn = None
        elif fn is not None and line.startswith("  %"):
            eq = line.find(" = ")
            if eq > 0:
                words = line[eq + 3:].split()
                while words and words[0] in ("tail", "musttail", "notail"):
                    words = words[1:]
                defs[f"{fn}:%{line[3:eq]}"] = words[0] if words else "?"
        for um in re.finditer(r"@(" + ident + r")", line if not line.startswith("define ") else ""):
            used.add(um.group(1).strip('"'))
    out: dict = {}
    for i in empty_ids:
        n = names[i]
        if n in params:
            why = "argument" if params[n] in used else "argument of an uncalled function"
        elif n.startswith("@"):
            why = "global address"
        else:
            why = defs.get(n, "?")
        out[why] = out.get(why, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def _folded(cs) -> dict:
    """{object: the object it is now}: globals whose memory is the one ``<constant data>``
    object (read-only plain data; ``constraints.llvm.extract_with_stats``), named ``*@G`` in a
    front end that gave each its own object."""
    import numpy as np

    names = cs.names
    const = [i for i, x in enumerate(names) if x == "<constant data>"]
    if not const:
        return {}
    dst = np.asarray(cs.addr_dst)[np.asarray(cs.addr_src) == const[0]]
    return {"*" + names[d]: const[0] for d in dst.tolist() if names[d].startswith("@")}


def _compare(old, keys, ptrs, sets_of, obj_sets, folded=None, sample: int = 40) -> dict:
    """Named pointers whose set lost an object against a saved baseline (pointers and objects by
    :func:`node_keys`).

    ``folded`` ({old object name: node}, :func:`_folded`): an old object that is now part of
    node is not lost from a set that holds that node.

    The sample lists first the pointers that lost an object outside the baseline's ``<ptrtoint>``
    set (``escaped_objs``: objects whose address the program turned into an integer), then the others.
    """
    import numpy as np

    old_sets = old["set_indptr"], old["set_indices"]
    old_obj = {str(x): k for k, x in enumerate(old["obj_names"].tolist())}
    escaped = {old_obj[str(x)] for x in old["escaped_objs"].tolist() if str(x) in old_obj} \
        if "escaped_objs" in old.files else set()
    old_ptr = {str(x): int(s) for x, s in zip(old["ptr_names"].tolist(), old["ptr_set"].tolist())}
    into_node = {}   # node -> the old objects folded into it
    for name, node in (folded or {}).items():
        if name in old_obj:
            into_node.setdefault(node, []).append(old_obj[name])
    mapped = {}
    lost_by_pair = {}
    by_object = Counter()  # old object id -> named pointers that lost it
    lost_ptrs, lost_total, other_ptrs, other_total, rows, later = 0, 0, 0, 0, [], []
    objs = old["obj_names"]
    for i, s in zip(ptrs.tolist(), sets_of.tolist()):
        o = old_ptr.get(keys[i])
        if o is None:
            continue
        key = (o, s)
        lost = lost_by_pair.get(key)
        if lost is None:
            if s not in mapped:
                mapped[s] = {old_obj.get(keys[z], -1) for z in obj_sets[s].tolist()}
                for z in obj_sets[s].tolist():
                    mapped[s].update(into_node.get(z, ()))
            before = old_sets[1][old_sets[0][o]:old_sets[0][o + 1]].tolist()
            lost = lost_by_pair[key] = [x for x in before if x not in mapped[s]]
        if lost:
            by_object.update(lost)
            lost_ptrs += 1
            lost_total += len(lost)
            other = [x for x in lost if x not in escaped]
            if other:
                other_ptrs += 1
                other_total += len(other)
            into = rows if other else later
            if len(into) < sample:
                shown = other or lost
                into.append({"pointer": keys[i], "lost": len(lost), "before": int(old_sets[0][o + 1] - old_sets[0][o]),
                             "after": len(obj_sets[s]), "lost_other": len(other),
                             "objects": ", ".join(str(objs[x]) for x in shown[:4])})
    return {"lost_pointers": lost_ptrs, "lost_objects": lost_total, "lost_other_pointers": other_ptrs,
            "lost_other_objects": other_total, "lost_distinct_objects": len(by_object),
            "lost_sample": (rows + later)[:sample],
            "lost_by_object": [[str(objs[x]), k] for x, k in by_object.most_common()]}


def _child(args) -> int:
    if args.code:
        sys.path.insert(0, str(Path(args.code).resolve()))
    else:
        sys.path.insert(0, str(ROOT))
    p = args.programs[0]
    bc = Path(args.corpus) / p / f"{p}.bc"
    save = Path(args.save_baseline) / f"{p}.npz" if args.save_baseline else None
    base = Path(args.baseline) / f"{p}.npz" if args.baseline else None
    row = measure(bc, base, save, args.explain_empty, args.keep_cycle_fields)
    Path(args.child_out).write_text(json.dumps(row))
    return 0


def _code_commit(code: "str | None") -> str:
    if code is None:
        sys.path.insert(0, str(ROOT))
        from bench._env import commit
        return commit()
    try:
        return subprocess.run(["git", "-C", code, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="*", help="corpus programs (default: every .corpus/P/P.bc)")
    ap.add_argument("--corpus", default=str(ROOT / ".corpus"))
    ap.add_argument("--code", help="checkout whose front end and solver to run (default: this one)")
    ap.add_argument("--label", default="after", help="the rows' label (e.g. before / after)")
    ap.add_argument("--timeout-s", type=float, default=900.0, help="per program")
    ap.add_argument("--save-baseline", help="directory: write each program's object-level sets there")
    ap.add_argument("--baseline", help="directory written by --save-baseline: count lost objects against it")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "precision"))
    ap.add_argument("--explain-empty", action="store_true",
                    help="count the empty named pointers by what defines them (explain_empty)")
    ap.add_argument("--keep-cycle-fields", action="store_true",
                    help="extract without collapse_cycles (objects walked by pointer arithmetic keep their slots)")
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child_out:
        return _child(args)
    corpus = Path(args.corpus)
    programs = args.programs or sorted(p.name for p in corpus.iterdir() if (p / f"{p.name}.bc").is_file())
    if args.save_baseline:
        Path(args.save_baseline).mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    from bench._env import host
    import datetime
    machine, code_commit = host(), _code_commit(args.code)
    rows, samples, by_object = [], {}, {}
    for p in programs:
        out = Path(args.out).parent / f".precision-{p}.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), p, "--child-out", str(out), "--corpus", str(corpus)]
        for opt in ("code", "save_baseline", "baseline"):
            if getattr(args, opt):
                cmd += [f"--{opt.replace('_', '-')}", str(Path(getattr(args, opt)).resolve())]
        if args.explain_empty:
            cmd.append("--explain-empty")
        if args.keep_cycle_fields:
            cmd.append("--keep-cycle-fields")
        row = {"program": p, "label": args.label, "commit": code_commit, "machine": machine,
               "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M+00:00")}
        t0 = time.perf_counter()
        try:
            r = subprocess.run(cmd, timeout=args.timeout_s, capture_output=True, text=True)
            if r.returncode == 0:
                got = json.loads(out.read_text())
                samples[p] = got.pop("lost_sample", [])
                by_object[p] = got.pop("lost_by_object", [])
                row.update(got, status="ok")
            else:
                row["status"] = f"failed ({r.returncode}): " + (r.stderr.strip().splitlines() or [""])[-1][:120]
        except subprocess.TimeoutExpired:
            row["status"] = f"timeout after {args.timeout_s:.0f} s"
        finally:
            out.unlink(missing_ok=True)
        print(f"{p:12s} {row['status']:10s} {time.perf_counter() - t0:7.1f} s  " +
              "  ".join(f"{k}={row[k]}" for k in FIELDS[6:12] + FIELDS[17:20] if k in row), flush=True)
        rows.append(row)
    _write(Path(args.out), rows, samples, args, by_object)
    return 0


def _write(out: Path, rows, samples, args, by_object=None) -> None:
    lost_path = out.parent / f"{out.name}-lost.json"  # the samples of every run, by program and label
    kept = json.loads(lost_path.read_text()) if lost_path.is_file() else {}
    kept.update({f"{p}\t{args.label}": rows_ for p, rows_ in samples.items()})
    objects_path = out.parent / f"{out.name}-lost-objects.json"  # the lost objects, likewise
    kept_objects = json.loads(objects_path.read_text()) if objects_path.is_file() else {}
    kept_objects.update({f"{p}\t{args.label}": rows_ for p, rows_ in (by_object or {}).items()})
    objects_path.write_text(json.dumps(kept_objects, indent=1, sort_keys=True) + "\n")
    lost_path.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")
    csv_path = out.with_suffix(".csv")
    keep = []
    if csv_path.is_file():
        with open(csv_path, newline="") as f:
            keep = [r for r in csv.DictReader(f) if (r["program"], r["label"]) not in
                    {(x["program"], x["label"]) for x in rows}]
    allrows = keep + [{k: r.get(k, "") for k in FIELDS} for r in rows]
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(allrows)
    sys.path.insert(0, str(ROOT))
    lines = ["# Front-end precision and soundness on the corpus", "",
             "`python3 bench/precision.py` (`bench/precision.py`'s docstring defines each column): extraction, then the "
             "cpu backend; `avg_set_objects` over named pointers at object level; `final_facts` at slot level over every "
             "node; `lost_pointers`: named pointers whose set lost an object against the baseline (the `before` run's "
             "sets). Machine and date per row in the CSV. `NOTES.precision.md` beside this file reads the table.", "",
             "| program | label | commit | status | named_pointers | avg_set_objects | final_facts | empty_named | "
             "lost_pointers | lost_objects | extract_s | solve_s | lost_other_pointers | lost_other_objects | "
             "lost_distinct_objects |",
             "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    order = {}
    for r in allrows:
        order.setdefault(r["program"], len(order))
    for r in sorted(allrows, key=lambda r: (order[r["program"]], r["label"] != "before", r["label"])):
        def fmt(k):
            v = r.get(k, "")
            try:
                if k in ("extract_s", "solve_s"):
                    return f"{float(v):,.1f}"
                return f"{float(v):,.2f}" if k == "avg_set_objects" else f"{int(float(v)):,}"
            except (TypeError, ValueError):
                return str(v)
        lines.append("| " + " | ".join([r["program"], r["label"], r["commit"], r["status"]] +
                                      [fmt(k) for k in FIELDS[6:14] + FIELDS[17:20]]) + " |")
    explained = [r for r in allrows if r.get("empty_by_definition")]
    if explained:
        lines += ["", "## Empty named pointers by what defines them (`--explain-empty`)", "",
                  "| program | label | empty_named | by definition |", "| --- | --- | ---: | --- |"]
        lines += [f"| {r['program']} | {r['label']} | {r['empty_named']} | {r['empty_by_definition']} |"
                  for r in explained]
    for key, rows_ in sorted(kept_objects.items()):
        if not rows_:
            continue
        p, label = key.split("\t")
        kinds_now = Counter((x[2], x[3]) for x in rows_ if len(x) > 3)
        lines += ["", f"## {p}: objects lost by some named pointer ({label} against the baseline; first 40 of "
                  f"{len(rows_)}: " + ", ".join(f"{n} {k} of {s} slots" for (k, s), n in sorted(kinds_now.items())) + ")",
                  "", "| object | pointers that lost it | now | slots now |", "| --- | ---: | --- | ---: |"]
        lines += [f"| `{x[0]}` | {x[1]} | {x[2] if len(x) > 2 else ''} | {x[3] if len(x) > 3 else ''} |"
                  for x in rows_[:40]]
    for key, rows_ in sorted(kept.items()):
        if not rows_:
            continue
        p, label = key.split("\t")
        lines += ["", f"## {p}: pointers whose set lost objects ({label} against the baseline; first {len(rows_)})",
                  "", "| pointer | lost | lost outside `<ptrtoint>` | before | after | lost objects (first 4; outside `<ptrtoint>` "
                  "where there are) |", "| --- | ---: | ---: | ---: | ---: | --- |"]
        lines += [f"| `{x['pointer']}` | {x['lost']} | {x.get('lost_other', '')} | {x['before']} | {x['after']} | "
                  f"{x['objects']} |" for x in rows_]
    md = out.with_suffix(".md")
    old = md.read_text() if md.is_file() else ""
    kept = old[old.index(KEPT):] if KEPT in old else ""  # sections written by hand stay as they are
    md.write_text("\n".join(lines) + "\n" + ("\n" + kept if kept else ""))


if __name__ == "__main__":
    sys.exit(main())
