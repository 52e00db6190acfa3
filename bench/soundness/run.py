"""Soundness of the alias facts on a real run: every object an access touches is in its set.

Usage::

    python3 bench/soundness/run.py build PROGRAM.ll -o DIR [--cxx] [--backend B] [-- LINK_FLAGS...]
    AG_LOG=DIR/log DIR/program ...          # the workload, as many runs as you like
    python3 bench/soundness/run.py check DIR [--json]

``build`` computes the alias facts of ``PROGRAM.ll`` (:func:`andersen_gpu.aliasfacts.analyze`, the
facts ``annotate`` turns into NoAlias metadata), writes ``DIR/facts.npz`` (each access site's
location set at object level, and the node names) and an instrumented copy of the IR,
``DIR/program.ll`` (:func:`instrument`), and compiles that with clang-19 -O1 and
``runtime.cc`` beside this file into ``DIR/program``. The instrumented program records which
object each load, store, atomic and memory intrinsic touches: globals, allocas and heap objects
of the allocation calls the front end gives an object of their own are registered as address
intervals under their node, so an address is traced back to the object the analysis named for it
(``runtime.cc`` says how frames and frees retire them). ``check`` reads ``DIR/log`` and reports
every (site, object) pair observed where the site's set is known and does not hold the object:
a pointee the model lost, which ``annotate`` would turn into a wrong NoAlias. Exit 1 when there is
one, 0 otherwise.

What it cannot see: accesses to memory no instrumented code allocated (libc's own objects,
``argv``, string literals, which share ``<constant data>``, mmap), which are counted as
unresolved; objects at slot level (a wrong field is not detected, only a wrong object); and,
like any test, the paths the workload does not take.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from constraints.llvm.access_sites import function_bodies, opcode_of, walk_function  # noqa: E402
from constraints.model import NodeKind  # noqa: E402

RUNTIME = Path(__file__).resolve().parent / "runtime.cc"

#: Allocation functions whose result glibc's malloc_usable_size can measure.
MALLOC_FAMILY = frozenset((
    "malloc", "calloc", "realloc", "reallocarray", "strdup", "strndup", "aligned_alloc", "memalign",
    "valloc", "pvalloc", "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
    "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t"))
#: Functions whose first argument is freed (realloc's is registered again at its result).
FREE_FAMILY = frozenset((
    "free", "cfree", "realloc", "reallocarray", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm",
    "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t", "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t"))
ACCESS = ("load", "store", "atomic", "memcpy", "memmove", "memset")

HOOKS = """
declare void @__ag_access(i32, ptr)
declare void @__ag_alloca(i32, ptr, i64, i64)
declare void @__ag_heap(i32, ptr, i32)
declare void @__ag_global(i32, ptr, i64)
declare void @__ag_free(ptr)
declare void @__ag_enter()
declare void @__ag_leave()
"""

_LOCAL = r'%(?:[-\w$.]+|"[^"]*")'
_DEF = re.compile(rf"^  ({_LOCAL}) = (.*)$")
_CALLEE = re.compile(r'@([-\w$.]+|"[^"]*")\(')
_GLOBAL = re.compile(r'^@([-\w$.]+|"[^"]*") = (.*)$')
_OPAQUE = re.compile(r'^(%[-\w$.]+|%"[^"]*") = type opaque')
_ORDERING = re.compile(r'(?: syncscope\("[^"]*"\))?(?: (?:unordered|monotonic|acquire|release|acq_rel|seq_cst))+$')
_PARAM_ATTRS = frozenset((
    "noundef", "nonnull", "noalias", "nocapture", "readonly", "writeonly", "readnone", "returned", "signext",
    "zeroext", "inreg", "nofree", "nest", "swiftself", "swifterror", "immarg", "allocptr", "noundef"))


def split_top(s: str) -> list[str]:
    """``s`` split at its commas outside brackets and quotes, each part stripped."""
    parts, depth, start, quoted = [], 0, 0, False
    for k, c in enumerate(s):
        if quoted:
            quoted = c != '"'
        elif c == '"':
            quoted = True
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(s[start:k].strip())
            start = k + 1
    parts.append(s[start:].strip())
    return parts


def type_end(s: str, i: int = 0) -> int:
    """Where the LLVM type that starts at ``s[i]`` ends (an index into ``s``)."""
    if s[i] in "[{<":
        depth, quoted, k = 0, False, i
        while k < len(s):
            c = s[k]
            if quoted:
                quoted = c != '"'
            elif c == '"':
                quoted = True
            elif c in "([{<":
                depth += 1
            elif c in ")]}>":
                depth -= 1
                if depth == 0:
                    return k + 1
            k += 1
        return k
    if s.startswith('%"', i):
        return s.index('"', i + 2) + 1
    m = re.compile(r"[^\s,()]+").match(s, i)
    k = m.end()
    if s.startswith(" addrspace(", k):        # ptr addrspace(N)
        k = s.index(")", k) + 1
    return k


def _sizeof(ty: str) -> str:
    return f"ptrtoint (ptr getelementptr ({ty}, ptr null, i32 1) to i64)"


def _unquote(name: str) -> str:
    return name[1:-1] if name.startswith('"') else name


def _value(arg: str) -> str:
    """The value of a call argument ``ptr [attributes] VALUE``."""
    words = arg.split(" ")
    k = 1
    while k < len(words) - 1:
        w = words[k]
        if w == "align":
            k += 2
        elif w in _PARAM_ATTRS or re.match(r"[a-z_]+\(", w):   # noundef, byval(%T), dereferenceable(8)
            k += 1
        else:
            break
    return " ".join(words[k:])


def _call_parts(rest: str) -> tuple[str | None, str, list[str]]:
    """``(callee, return type, arguments)`` of the text after ``= `` (or the whole line) of a call."""
    m = _CALLEE.search(rest)
    if m is None:
        return None, "", []
    head = rest[:m.start()].split()
    ret = head[-1] if head else ""
    if ret.startswith("(") or ret.endswith(")"):      # call ptr (ptr, ...) @f(...)
        ret = rest[:m.start()].split("(")[0].split()[-1]
    close, depth = m.end(), 1
    while depth:
        c = rest[close]
        depth += c == "(" and 1 or c == ")" and -1 or 0
        close += 1
    return _unquote(m.group(1)), ret, split_top(rest[m.end():close - 1])


def instrument(text: str, site_index: dict, objects: dict) -> tuple[str, dict]:
    """The IR ``text`` with the hooks of runtime.cc.

    Parameters
    ----------
    text : the module's IR, as printed by llvm-dis-19 (the text the facts were computed from)
    site_index : ``{(function, block, index): site}`` of the access sites to trace
    objects : ``{object name: node}`` for the front end's objects (``*f:%x``, ``*@g``)

    Returns
    -------
    (text, counts) : the instrumented module, and how many hooks of each kind went in
    """
    lines = text.split("\n")
    before: dict[int, list[str]] = defaultdict(list)
    after: dict[int, list[str]] = defaultdict(list)
    counts = defaultdict(int)
    tmp = 0
    for fname, start, end, entry in function_bodies(lines):
        fn = _unquote(fname)
        labels = {}
        for li in range(start, end):
            line = lines[li]
            if line and line[0] not in " ;}" and ":" in line:
                labels[line.split(":")[0].strip('"')] = li
        body_text = "\n".join(lines[start:end])
        first = True
        prev_musttail = False
        for block, index, li in walk_function(lines, start, end, entry):
            line = lines[li]
            if first:
                before[li].append("  call void @__ag_enter()")
                first = False
            op = opcode_of(line)
            site = site_index.get((fname, block, index))
            if site is not None:
                for operand in _operands(line, op):
                    if operand in ("null", "undef", "poison") or "addrspace(" in operand:
                        continue
                    before[li].append(f"  call void @__ag_access(i32 {site[0]}, ptr {operand})")
                    counts["accesses"] += 1
            if op == "ret" and not prev_musttail:
                before[li].append("  call void @__ag_leave()")
            prev_musttail = " musttail call " in line or line.lstrip().startswith("musttail call ")
            if op in ("call", "invoke"):
                callee, ret, args = _call_parts(line)
                if callee in FREE_FAMILY and args and args[0].startswith("ptr"):
                    before[li].append(f"  call void @__ag_free(ptr {_value(args[0])})")
            m = _DEF.match(line)
            if m is None:
                continue
            node = objects.get(f"*{fn}:%{_unquote(m.group(1)[1:])}")
            if node is None:
                continue
            rest = m.group(2)
            if op == "alloca":
                spec = re.sub(r"^alloca (?:inalloca |swifterror )*", "", rest)
                if "addrspace(" in spec:
                    continue
                k = type_end(spec)
                ty, parts = spec[:k], split_top(spec[k:].lstrip(", ")) if spec[k:].strip() else []
                count = "1"
                if parts and re.match(r"i\d+ ", parts[0]):
                    ity, val = parts[0].split(" ", 1)
                    if ity == "i64" or re.fullmatch(r"-?\d+", val):
                        count = val
                    else:
                        tmp += 1
                        after[li].append(f"  %__ag.n{tmp} = zext {ity} {val} to i64")
                        count = f"%__ag.n{tmp}"
                after[li].append(f"  call void @__ag_alloca(i32 {node}, ptr {m.group(1)}, i64 {_sizeof(ty)}, i64 {count})")
                counts["allocas"] += 1
            elif op in ("call", "invoke"):
                callee, ret, _ = _call_parts(rest)
                if ret != "ptr":
                    continue
                hook = f"  call void @__ag_heap(i32 {node}, ptr {m.group(1)}, i32 {int(callee in MALLOC_FAMILY)})"
                if op == "call":
                    after[li].append(hook)
                else:
                    target = _normal_dest(lines, li)
                    if target is None or target not in labels or body_text.count(f"label %{target}") != 1:
                        counts["heap_skipped"] += 1
                        continue
                    at = labels[target] + 1
                    while opcode_of(lines[at]) == "phi" or not lines[at].startswith("  ") or lines[at].startswith("   "):
                        at += 1
                    before[at].insert(0, hook)
                counts["heap"] += 1
    out = []
    for li, line in enumerate(lines):
        out.extend(before.get(li, ()))
        out.append(line)
        out.extend(after.get(li, ()))
    out.append(_globals_function(lines, objects, counts))
    out.append(HOOKS)
    return "\n".join(out), dict(counts)


def _operands(line: str, op: str) -> list[str]:
    """The pointer operands of an access instruction (memcpy/memmove: destination and source),
    read off its line (the facts' copy of the operand text abbreviates long constants)."""
    rest = line.split(" = ", 1)[1] if line.lstrip().startswith("%") else line.strip()
    if op in ("call", "invoke"):
        args = _call_parts(rest)[2]
        return [_value(a) for a in args[:2] if a.startswith("ptr ")][:2 if "memset" not in rest[:rest.find("(")] else 1]
    parts = split_top(rest[rest.index(op) + len(op):])
    part = parts[1] if op in ("load", "store") else parts[0]
    at = part.find("ptr ")
    return [_ORDERING.sub("", part[at + 4:])] if at >= 0 else []


def _normal_dest(lines: list[str], li: int) -> str | None:
    for k in (li, li + 1):
        m = re.search(r'to label %([-\w$.]+|"[^"]*")', lines[k])
        if m:
            return _unquote(m.group(1))
    return None


def _globals_function(lines: list[str], objects: dict, counts) -> str:
    """``@__ag_register_globals``: one __ag_global per global that has an object of its own."""
    opaque = {m.group(1) for line in lines if (m := _OPAQUE.match(line))}
    body = []
    for line in lines:
        m = _GLOBAL.match(line)
        if m is None:
            continue
        node = objects.get(f"*@{_unquote(m.group(1))}")
        if node is None:
            continue
        words = m.group(2).split(" ")
        kw = next((k for k, w in enumerate(words) if w in ("global", "constant")), None)
        if kw is None or any(w.startswith(("thread_local", "addrspace(")) for w in words[:kw]):
            continue
        rest = " ".join(words[kw + 1:])
        ty = rest[:type_end(rest)]
        if ty in opaque:
            continue
        body.append(f"  call void @__ag_global(i32 {node}, ptr @{m.group(1)}, i64 {_sizeof(ty)})")
    counts["globals"] = len(body)
    return "define void @__ag_register_globals() {\n" + "\n".join(body + ["  ret void", "}"])


# ------------------------------------------------------------------ build and check
def build(args) -> int:
    from andersen_gpu.aliasfacts import analyze

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    text = Path(args.program).read_text()
    t0 = time.monotonic()
    facts, cs, solution, _ = analyze([args.program], backend=args.backend, text=text)
    sites = facts.sites
    base = object_of(cs)
    objects = {}
    for z, (name, k) in enumerate(zip(cs.names, cs.kind)):
        if k == NodeKind.OBJECT and name.startswith("*"):
            objects.setdefault(name, z)
    site_objects = [np.unique(base[facts.location_set(s)]) if s >= 0 else np.zeros(0, np.int64)
                    for s in facts.site_set]
    site_index = {sites.key(i): (i, sites.pointer[i]) for i in range(len(sites))
                  if sites.kind[i] in ACCESS and facts.site_set[i] >= 0}
    analysed = time.monotonic() - t0
    itext, counts = instrument(text, site_index, objects)
    (out / "program.ll").write_text(itext)
    np.savez_compressed(
        out / "facts.npz", site_set=facts.site_set,
        obj_indptr=np.cumsum([0] + [len(o) for o in site_objects]),
        obj=np.concatenate(site_objects + [np.zeros(0, np.int64)]).astype(np.int64),
        names=np.asarray(cs.names, dtype=object), site_location=np.asarray(sites.location, dtype=object),
        site_function=np.asarray(sites.function, dtype=object), site_kind=np.asarray(sites.kind, dtype=object),
        site_pointer=np.asarray(sites.pointer, dtype=object))
    rt = out / "runtime.o"
    subprocess.run(["clang++-19", "-O2", "-c", str(RUNTIME), "-o", str(rt)], check=True)
    cc = "clang++-19" if args.cxx else "clang-19"
    cmd = [cc, "-O1", "-x", "ir", str(out / "program.ll"), "-x", "none", str(rt), "-o", str(out / "program"),
           "-lstdc++", *args.link]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print(res.stderr[-4000:], file=sys.stderr)
        return 2
    print(json.dumps({"program": args.program, "analysis_s": round(analysed, 1), **counts,
                      "sites": len(sites), "traced_sites": len(site_index)}))
    return 0


def object_of(cs) -> np.ndarray:
    """``int64[n_nodes]``: the object each node is a slot of (itself for objects; -1 for values)."""
    base = np.full(cs.n_nodes, -1, np.int64)
    size = np.asarray(cs.obj_size)
    for z in np.flatnonzero((np.asarray(cs.kind) == NodeKind.OBJECT) | (np.asarray(cs.kind) == NodeKind.FUNCTION)):
        if base[z] < 0:
            base[z:z + max(1, int(size[z]))] = z
    return base


def read_log(path: Path) -> tuple[dict, dict]:
    """``({(site, node): count}, {"processes", "accesses", "unresolved"})`` of a log."""
    pairs: dict = defaultdict(int)
    totals = {"processes": 0, "accesses": 0, "unresolved": 0}
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            w = line.split()
            totals["processes"] += 1
            totals["accesses"] += int(w[4])
            totals["unresolved"] += int(w[6])
        elif line:
            s, z, c = line.split()
            pairs[int(s), int(z)] += int(c)
    return pairs, totals


def check(args) -> int:
    d = Path(args.dir)
    f = np.load(d / "facts.npz", allow_pickle=True)
    if not (d / "log").is_file():
        print(f"error: {d / 'log'}: no log (run DIR/program with AG_LOG={d / 'log'} first)", file=sys.stderr)
        return 2
    pairs, totals = read_log(d / "log")
    names, indptr, obj = f["names"], f["obj_indptr"], f["obj"]
    lost = []
    for (s, z), c in sorted(pairs.items()):
        objs = obj[indptr[s]:indptr[s + 1]]
        if f["site_set"][s] >= 0 and not np.isin(z, objs):
            lost.append({"site": s, "function": str(f["site_function"][s]), "kind": str(f["site_kind"][s]),
                         "pointer": str(f["site_pointer"][s]), "location": str(f["site_location"][s]),
                         "object": str(names[z]), "times": c,
                         "set": [str(names[o]) for o in objs[:8]] + (["..."] if len(objs) > 8 else [])})
    sites = {s for s, _ in pairs}
    report = {**totals, "resolved": totals["accesses"] - totals["unresolved"], "sites_reached": len(sites),
              "pairs": len(pairs), "lost_pairs": len(lost), "lost_sites": len({x["site"] for x in lost}),
              "lost": lost[:args.show]}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{totals['processes']} processes, {totals['accesses']:,} accesses ({totals['unresolved']:,} "
              f"in memory no traced allocation made), {len(sites):,} sites reached, {len(pairs):,} (site, object) "
              f"pairs; not in the site's set: {len(lost)} pairs at {report['lost_sites']} sites")
        for x in lost[:args.show]:
            print(f"  {x['function']} {x['location']} {x['kind']} {x['pointer']}: touched {x['object']} "
                  f"({x['times']} times), set {x['set']}")
    return 1 if lost else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("program")
    b.add_argument("-o", "--out", required=True)
    b.add_argument("--cxx", action="store_true", help="link with clang++-19")
    b.add_argument("--backend", default="cpu")
    c = sub.add_parser("check")
    c.add_argument("dir")
    c.add_argument("--json", action="store_true")
    c.add_argument("--show", type=int, default=30)
    argv = sys.argv[1:] if argv is None else list(argv)
    link = argv[argv.index("--") + 1:] if "--" in argv else []
    args = ap.parse_args(argv[:len(argv) - len(link) - (1 if "--" in argv else 0)])
    args.link = link
    return build(args) if args.cmd == "build" else check(args)


if __name__ == "__main__":
    sys.exit(main())
