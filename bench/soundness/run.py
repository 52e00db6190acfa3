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
object, and which bytes of it, each load, store, atomic and memory intrinsic with a known set
touches: globals, allocas and heap objects of the allocation calls the front end gives an object
of their own are registered as address intervals under their node, so an address is traced back
to the object the analysis named for it (``runtime.cc`` says how frames and frees retire them).
``check`` reads ``DIR/log`` and reports (:func:`lost_objects`) every (site, object) pair observed
whose object the site's set lacks, and (:func:`shared_bytes`) every pair of sites of one function
that the facts call disjoint but that touched the same bytes of one object: pointees the model
lost, which ``annotate`` would turn into a wrong NoAlias. Exit 1 when there is one, 0 otherwise.

What it cannot see: accesses to memory no instrumented code allocated (libc's own objects,
``argv``, string literals, which share ``<constant data>``, objects handed back through an out
parameter), which are counted as unresolved; and, like any test, the paths the workload does not
take.
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

from constraints.llvm.access_sites import function_bodies, opcode_of, top_level_parts, walk_function  # noqa: E402
from constraints.model import NodeKind  # noqa: E402

RUNTIME = Path(__file__).resolve().parent / "runtime.cc"

#: Allocation functions whose result glibc's malloc_usable_size can measure.
MALLOC_FAMILY = frozenset((
    "malloc", "calloc", "realloc", "reallocarray", "strdup", "strndup", "aligned_alloc", "memalign",
    "valloc", "pvalloc", "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
    "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t"))
#: Allocation functions outside malloc whose extent is an argument (its position).
SIZED = {"mmap": 1, "mmap64": 1}
ACCESS = ("load", "store", "atomic", "memcpy", "memmove", "memset")

HOOKS = """
declare void @__ag_access(i32, ptr, i64)
declare void @__ag_alloca(i32, ptr, i64, i64)
declare void @__ag_heap(i32, ptr, i32, i64, ptr, ptr)
declare void @__ag_global(i32, ptr, i64)
declare i64 @__ag_enter()
declare void @__ag_leave(i64)
"""

_LOCAL = r'%(?:[-\w$.]+|"[^"]*")'
_DEF = re.compile(rf"^  ({_LOCAL}) = (.*)$")
_CALLEE = re.compile(r'@([-\w$.]+|"[^"]*")\(')
_LABEL_LINE = re.compile(r'^([-\w$.]+|"[^"]*"):')
_GLOBAL = re.compile(r'^@([-\w$.]+|"[^"]*") = (.*)$')
_OPAQUE = re.compile(r'^(%[-\w$.]+|%"[^"]*") = type opaque')
_ORDERING = re.compile(r'(?: syncscope\("[^"]*"\))?(?: (?:unordered|monotonic|acquire|release|acq_rel|seq_cst))+$')
# a parameter attribute before an argument's value: a keyword (not a constant expression's
# opcode), `align N`, `dereferenceable(N)`, or `name(` with its parenthesised operand following
_ATTRIBUTE = re.compile(r"(?:align \d+ |[a-z_]+\(|(?!(?:getelementptr|bitcast|inttoptr|ptrtoint|addrspacecast|trunc|"
                        r"zext|sext|add|sub|mul|shl|lshr|ashr|and|or|xor|icmp|select|extractelement|insertelement|"
                        r"shufflevector|null|undef|poison|zeroinitializer|true|false|inbounds|nuw|nsw|nusw)\b)[a-z_]+ )")


def split_top(s: str) -> list[str]:
    """``s`` split at its commas outside brackets and quotes, each part stripped."""
    return [p.strip() for p in top_level_parts(s)]


def _past_close(s: str, j: int) -> int:
    """Just past the bracket that closes a group whose contents start at ``s[j]``."""
    parts = top_level_parts(s, j)
    return min(len(s), j + sum(map(len, parts)) + len(parts))


def type_end(s: str, i: int = 0) -> int:
    """Where the LLVM type that starts at ``s[i]`` ends (an index into ``s``)."""
    if s[i] in "[{<":
        return _past_close(s, i + 1)
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
    k = arg.index(" ") + 1 if " " in arg else len(arg)
    while True:
        m = _ATTRIBUTE.match(arg, k)
        if m is None or m.end() >= len(arg):
            return arg[k:]
        if "(" in m.group(0):             # byval(%T), range(i64 0, 100), initializes((0, 8))
            k = _past_close(arg, m.end())
            k += arg[k:k + 1] == " "
        else:
            k = m.end()


def _call_parts(rest: str) -> tuple[str | None, str, list[str]]:
    """``(callee, return type, arguments)`` of the text after ``= `` (or the whole line) of a call."""
    m = _CALLEE.search(rest)
    if m is None:
        return None, "", []
    head = rest[:m.start()].split()
    ret = head[-1] if head else ""
    if ret.startswith("(") or ret.endswith(")"):      # call ptr (ptr, ...) @f(...)
        ret = rest[:m.start()].split("(")[0].split()[-1]
    return _unquote(m.group(1)), ret, [p.strip() for p in top_level_parts(rest, m.end())]


def instrument(text: str, site_index: dict, objects: dict) -> tuple[str, dict]:
    """The IR ``text`` with the hooks of runtime.cc.

    Parameters
    ----------
    text : the module's IR, as printed by llvm-dis-19 (the text the facts were computed from)
    site_index : ``{(function, block, index): site}`` of the access sites to trace (their index in the facts)
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
        labels = {}
        for li in range(start, end):
            m = _LABEL_LINE.match(lines[li])
            if m is not None:
                labels[m.group(1)] = li
        body_text = "\n".join(lines[start:end])
        first = True
        prev_musttail = False
        for block, index, li in walk_function(lines, start, end, entry):
            line = lines[li]
            if first:
                before[li].append("  %__ag.frame = call i64 @__ag_enter()")
                first = False
            op = opcode_of(line)
            site = site_index.get((fname, block, index))
            if site is not None:
                operands, size = _operands(line, op)
                if " " in size and not size.startswith("ptrtoint"):      # an i32 length
                    tmp += 1
                    before[li].append(f"  %__ag.n{tmp} = zext {size} to i64")
                    size = f"%__ag.n{tmp}"
                for operand in operands:
                    if operand in ("null", "undef", "poison") or "addrspace(" in operand:
                        counts["operands_skipped"] += 1
                        continue
                    before[li].append(f"  call void @__ag_access(i32 {site}, ptr {operand}, i64 {size})")
                    counts["accesses"] += 1
            if op == "ret" and not prev_musttail:
                before[li].append("  call void @__ag_leave(i64 %__ag.frame)")
            prev_musttail = " musttail call " in line or line.lstrip().startswith("musttail call ")
            m = _DEF.match(line)
            if m is None:
                continue
            node = objects.get(f"*{fname}:{m.group(1)}")     # names as printed (quoted where LLVM quotes)
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
                callee, ret, args_of_call = _call_parts(rest)
                if ret != "ptr" or "musttail " in line:
                    continue
                kind, size = int(callee in MALLOC_FAMILY), "0"
                if callee in SIZED and op == "call":
                    ity, val = args_of_call[SIZED[callee]].split(" ")[0], _value(args_of_call[SIZED[callee]])
                    if ity == "i64":
                        kind, size = 2, val
                given = [_value(a) for a in args_of_call if a.startswith("ptr ")][:2]
                given = [g if g.startswith(("%", "@", "null")) else "null" for g in given] + ["null"] * (2 - len(given))
                hook = (f"  call void @__ag_heap(i32 {node}, ptr {m.group(1)}, i32 {kind}, i64 {size}, "
                        f"ptr {given[0]}, ptr {given[1]})")
                if op == "call":
                    after[li].append(hook)
                else:
                    target = _normal_dest(lines, li)
                    refs = len(re.findall(rf"label %{re.escape(target)}(?![-\w$.])", body_text)) if target else 0
                    if target not in labels or refs != 1:
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
        if line.startswith("  call void @llvm.lifetime."):
            # without lifetime markers no two allocas share a stack slot (stack colouring), so
            # that each keeps the address it was registered with
            continue
        if line.startswith("@") and "unnamed_addr " in line:
            # two equal constants that may share an address (ConstantMerge, the linker's merged
            # sections) would look like one object touched through the other's pointers
            line = re.sub(r"\b(?:local_)?unnamed_addr ", "", line, count=1)
        out.append(line)
        out.extend(after.get(li, ()))
    out.append(_globals_function(lines, objects, counts))
    out.append(HOOKS)
    return "\n".join(out), dict(counts)


def _operands(line: str, op: str) -> tuple[list[str], str]:
    """The pointer operands of an access instruction (memcpy/memmove: destination and source), and
    the bytes it touches from each as an ``i64`` operand (a size expression, or the intrinsic's
    length; ``iN`` lengths other than i64 as ``iN VALUE``), read off its line: the facts' copy of
    the operand text abbreviates long constants."""
    rest = line.split(" = ", 1)[1] if line.lstrip().startswith("%") else line.strip()
    if op in ("call", "invoke"):
        name = rest[:rest.find("(")]
        args = _call_parts(rest)[2]
        ptrs = [_value(a) for a in args if a.startswith("ptr ")][:1 if "memset" in name else 2]
        ity, val = args[2].split(" ")[0], _value(args[2])
        return ptrs, val if ity == "i64" else f"{ity} {val}"
    parts = split_top(rest[rest.index(op) + len(op):])
    part = parts[1] if op in ("load", "store") else parts[0]
    at = part.find("ptr ")
    if at < 0:
        return [], "0"
    typed = re.sub(r"^(?:atomic |volatile |weak )*", "", parts[0] if op in ("load", "store") else parts[1])
    ty = typed[:type_end(typed)]
    return [_ORDERING.sub("", part[at + 4:])], "1" if "vscale" in ty else _sizeof(ty)   # scalable: its first byte


def _normal_dest(lines: list[str], li: int) -> str | None:
    for k in (li, li + 1):
        m = re.search(r'to label %([-\w$.]+|"[^"]*")', lines[k])
        if m:
            return m.group(1)
    return None


def _globals_function(lines: list[str], objects: dict, counts) -> str:
    """``@__ag_register_globals``: one __ag_global per global that has an object of its own."""
    opaque = {m.group(1) for line in lines if (m := _OPAQUE.match(line))}
    body = []
    for line in lines:
        m = _GLOBAL.match(line)
        if m is None:
            continue
        node = objects.get(f"*@{m.group(1)}")
        if node is None or m.group(1).startswith("llvm.") or " ifunc " in line:   # llvm.global_ctors and kin
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
    from andersen_gpu.aliasfacts.annotate import site_lines

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    text = Path(args.program).read_text()
    t0 = time.monotonic()
    facts, cs, solution, _ = analyze([args.program], backend=args.backend, text=text)
    sites = facts.sites
    base = cs.slot_objects()
    objects = {}
    for z, (name, k) in enumerate(zip(cs.names, cs.kind)):
        if k == NodeKind.OBJECT and name.startswith("*"):
            objects.setdefault(name, z)
    site_objects = [np.unique(base[facts.location_set(s)]) if s >= 0 else np.zeros(0, np.int64)
                    for s in facts.site_set]
    site_index = {sites.key(i): i for i in range(len(sites)) if sites.kind[i] in ACCESS and facts.site_set[i] >= 0}
    site_lines(text.split("\n"), facts)     # raises when a site's numbering does not fit the text
    analysed = time.monotonic() - t0
    itext, counts = instrument(text, site_index, objects)
    (out / "program.ll").write_text(itext)
    (out / "log").unlink(missing_ok=True)   # ids of an earlier build would be read against these facts
    np.savez_compressed(
        out / "facts.npz", site_set=facts.site_set, set_indptr=facts.set_indptr, set_indices=facts.set_indices,
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


class Log:
    """A run's log (runtime.cc's format), every process's blocks added up.

    Attributes
    ----------
    count : ``{(site, node): times}``
    ranges : ``{(site, node): {(offset, bytes)}}``, the byte ranges of the object each site touched
        (at most 16 per process; ``more`` holds the pairs that touched others too)
    processes, accesses, unresolved : int
    empty : zero-length memory intrinsics (touch nothing; not traced)
    """

    def __init__(self, path: Path):
        self.count: dict = defaultdict(int)
        self.ranges: dict = defaultdict(set)
        self.more: set = set()
        self.processes = self.accesses = self.unresolved = self.empty = 0
        for line in path.read_text().splitlines():
            w = line.split()
            if line.startswith("#"):
                self.processes += 1
                self.accesses += int(w[4])
                self.unresolved += int(w[6])
                self.empty += int(w[8])
            elif w:
                key = int(w[0]), int(w[1])
                self.count[key] += int(w[2])
                if w[3] == "1":
                    self.more.add(key)
                self.ranges[key].update(tuple(int(x) for x in r.split(":")) for r in w[4:])


class Facts:
    """``facts.npz`` of ``build``: the location sets (slots) and object sets of the access sites."""

    def __init__(self, path: Path):
        f = np.load(path, allow_pickle=True)
        self.site_set, self.set_indptr, self.set_indices = f["site_set"], f["set_indptr"], f["set_indices"]
        self.obj_indptr, self.obj = f["obj_indptr"], f["obj"]
        self.names = f["names"]
        self.function, self.kind, self.pointer, self.location = (
            f["site_function"], f["site_kind"], f["site_pointer"], f["site_location"])
        self._disjoint: dict = {}

    def objects(self, site: int) -> np.ndarray:
        return self.obj[self.obj_indptr[site]:self.obj_indptr[site + 1]]

    def disjoint(self, a: int, b: int) -> bool:
        """Whether the facts say sites ``a`` and ``b`` touch no common location (annotate's NoAlias)."""
        sa, sb = sorted((int(self.site_set[a]), int(self.site_set[b])))
        if sa < 0:
            return False
        hit = self._disjoint.get((sa, sb))
        if hit is None:
            la = self.set_indices[self.set_indptr[sa]:self.set_indptr[sa + 1]]
            lb = self.set_indices[self.set_indptr[sb]:self.set_indptr[sb + 1]]
            hit = self._disjoint[sa, sb] = sa != sb and np.intersect1d(la, lb).size == 0 or la.size == 0
        return hit

    def describe(self, site: int) -> str:
        return f"{self.kind[site]} {self.pointer[site]} ({self.location[site] or 'no location'})"


def lost_objects(facts: Facts, log: Log) -> list[dict]:
    """The (site, object) pairs of the run whose object is not in the site's set (sites with a known set)."""
    lost = []
    for (s, z), c in sorted(log.count.items()):
        objs = facts.objects(s)
        if facts.site_set[s] >= 0 and not np.isin(z, objs):
            lost.append({"site": s, "function": str(facts.function[s]), "access": facts.describe(s),
                         "object": str(facts.names[z]), "times": c,
                         "set": [str(facts.names[o]) for o in objs[:8]] + (["..."] if len(objs) > 8 else [])})
    return lost


def shared_bytes(facts: Facts, log: Log) -> tuple[list[dict], int]:
    """Pairs of sites of one function that the facts call disjoint (annotate gives them NoAlias)
    but that touched the same bytes of one object during the run: each abstract object stands
    for all its instances, so such a pair shares a location the facts lost from one of the sets.
    Also returns how many (site, site, object) triples touched common bytes (the pairs checked)."""
    by: dict = defaultdict(list)
    for (s, z), ranges in log.ranges.items():
        if facts.site_set[s] >= 0:
            for off, n in ranges:
                by[str(facts.function[s]), z].append((off, off + max(n, 1), s))
    found: dict = {}
    examined: set = set()
    for (fn, z), spans in by.items():
        spans.sort()
        active: list = []
        for start, end, s in spans:
            active = [a for a in active if a[0] > start]
            for end2, s2, start2 in active:
                key = (min(s, s2), max(s, s2), z)
                if s2 != s:
                    examined.add(key)
                if s2 != s and key not in found and facts.disjoint(s, s2):
                    found[key] = {"function": fn, "object": str(facts.names[z]),
                                  "a": facts.describe(key[0]), "b": facts.describe(key[1]),
                                  "bytes": [max(start, start2), min(end, end2)]}
            active.append((end, s, start))
    return list(found.values()), len(examined)


def check(args) -> int:
    d = Path(args.dir)
    if not (d / "log").is_file():
        print(f"error: {d / 'log'}: no log (run DIR/program with AG_LOG={d / 'log'} first)", file=sys.stderr)
        return 2
    facts, log = Facts(d / "facts.npz"), Log(d / "log")
    lost, (shared, overlapping) = lost_objects(facts, log), shared_bytes(facts, log)
    sites = {s for s, _ in log.count}
    report = {"processes": log.processes, "accesses": log.accesses, "unresolved": log.unresolved,
              "resolved": log.accesses - log.unresolved, "sites_reached": len(sites), "pairs": len(log.count),
              "empty": log.empty, "pairs_past_16_ranges": len(log.more), "lost_pairs": len(lost),
              "lost_sites": len({x["site"] for x in lost}), "noalias_sharing": len(shared),
              "overlapping_pairs": overlapping,
              "lost": lost[:args.show], "shared": shared[:args.show]}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{log.processes} processes, {log.accesses:,} accesses ({log.unresolved:,} in memory no traced "
              f"allocation made), {len(sites):,} sites reached, {len(log.count):,} (site, object) pairs; "
              f"not in the site's set: {len(lost)} pairs at {report['lost_sites']} sites; "
              f"NoAlias pairs that touched the same bytes: {len(shared)} (of {overlapping:,} pairs of sites "
              f"that did; {len(log.more):,} (site, object) pairs touched more than the 16 byte ranges kept)")
        for x in lost[:args.show]:
            print(f"  {x['function']}: {x['access']} touched {x['object']} ({x['times']} times), set {x['set']}")
        for x in shared[:args.show]:
            print(f"  {x['function']}: {x['a']} and {x['b']} both touched bytes {x['bytes'][0]}..{x['bytes'][1]} "
                  f"of {x['object']}")
    return 1 if lost or shared else 0


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
