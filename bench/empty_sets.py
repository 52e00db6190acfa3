"""Why named pointers have an empty points-to set: each one grouped by a cause read off the IR.

Usage::

    python3 bench/empty_sets.py PROGRAM.bc OUT.json [--resolve] [--as-loaded]
    python3 bench/empty_sets.py --table DIR LABEL_BEFORE LABEL_AFTER PROGRAM...

The first form extracts and solves (cpu backend) one program, keeps the solved facts it
needs beside ``OUT.json`` (``OUT.solved.json``; ``--resolve`` solves again), and writes every
empty named pointer (``bench/precision.py``'s ``named_pointers``) with its group. The groups,
from the IR text (``llvm-dis-19``) and the solved call graph:

* ``unreached: ...``: the function is not reachable from ``main`` (and the global
  constructors) over direct calls, indirect calls through their solved target sets, and
  functions passed directly to an external; ``never named``: no instruction or initializer
  names it; ``named only in unreached functions``; ``address taken, no modelled call
  reaches it``: its address is taken but no call above reaches it (callbacks an external
  makes from a record, such as sigaction's, are not followed here: read each).
  Unless ``--as-loaded``, a call through the pointer ``dlsym(NULL, name)`` returns (which the
  model lets reach every exported function) reaches only the functions whose name ends with
  a string constant of the function calling ``dlsym`` (lighttpd: ``*_plugin_init``).
* ``reached: null-only: ...``: every caller passes null, the callee returns only null, a
  local or a global hook is only ever given null (or integers, or empty pointers), an
  ``inttoptr`` of an integer with no pointer origin;
* ``reached: derived: ...``: computed only from null or empty pointers (a load through one,
  a gep or phi of them, a call through one, a callee that returns nothing, as a
  ``noreturn`` one);
* ``reached: dead code``: a load from ``poison`` (code the compiler proved unreachable);
  ``code label``: a ``blockaddress`` table (computed goto, never memory);
* ``(read)`` or ``GAP?`` (a gep, phi or cast of a pointer whose set is not empty, a call
  through one): not decided by these rules: read the IR.

A text-level aid, not a proof: its rules are the ones listed, and a group marked ``(read)``
or ``GAP?`` needs reading. The second form prints a markdown table (program, named pointers,
empty before and after, the after run's groups) from ``DIR/LABEL-PROGRAM.json`` files: the
counts of ``bench/results/precision.md``'s section on empty sets, whose columns merge those groups.
"""
import collections
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def table(folder, before, after, programs):
    """Markdown rows: program, named pointers, empty before and after, the after run's groups."""
    lines = ["| program | named pointers | empty before | empty after | groups after (count) |",
             "| --- | ---: | ---: | ---: | --- |"]
    for p in programs:
        a = json.loads((Path(folder) / f"{before}-{p}.json").read_text())
        b = json.loads((Path(folder) / f"{after}-{p}.json").read_text())
        groups = collections.Counter(r["group"] for r in b["rows"]).most_common()
        lines.append(f"| {p} | {a['named']:,} | {a['empty']:,} | {b['empty']:,} | "
                     + "; ".join(f"{g} {n}" for g, n in groups) + " |")
    return "\n".join(lines)


def main(argv):
    if argv and argv[0] == "--table":
        print(table(argv[1], argv[2], argv[3], argv[4:]))
        return 0
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    import numpy as np
    import andersen_gpu
    from constraints.llvm import extract_with_stats
    from precision import named_pointers
    bc, out = argv[0], argv[1]
    cache = Path(out).with_suffix(".solved.json")
    text = subprocess.run(["llvm-dis-19", bc, "-o", "-"], capture_output=True, text=True, check=True).stdout
    if cache.is_file() and "--resolve" not in argv:
        C = json.loads(cache.read_text())
    else:
        cs, stats = extract_with_stats([bc])
        sol = andersen_gpu.solve(cs, backend="cpu")
        kinds = np.asarray(cs.kind); names = cs.names
        ptrs = named_pointers(names, kinds.tolist())
        sizes = np.diff(sol.set_indptr)[sol.node_set[ptrs]]
        idx = {n: i for i, n in enumerate(names)}
        want = set(re.findall(r"^define [^@]*@(\S+?)\(", text, re.M))
        icv = {}
        fn = None
        for line in text.split("\n"):
            if line.startswith("define "): fn = re.search(r"@([^(]+)\(", line).group(1).strip('"'); continue
            m = re.search(r"\b(?:call|invoke)\b[^@%]*?(%[-\w$.]+)\(", line)
            if fn and m: icv[f"{fn}:{m.group(1)}"] = None
        icv["<exported functions>"] = None
        for v in icv:
            i = idx.get(v)
            if i is not None:
                st = sol.node_set[i]
                icv[v] = [names[j] for j in sol.set_indices[sol.set_indptr[st]:sol.set_indptr[st + 1]] if kinds[j] == 3]
        C = {"named": len(ptrs), "empty": [names[p] for p, z in zip(ptrs, sizes.tolist()) if z == 0],
             "known": [names[p] for p in ptrs], "pts": icv, "stats": stats.lines()[:40]}
        cache.write_text(json.dumps(C))
    known = set(C["known"]); idx = known
    def pts(v): return C["pts"].get(v)
    empty = C["empty"]; emptyset = set(empty)
    ptrs = C["known"]
    ident = r'(?:"[^"]*"|[-\w$.]+)'
    defs, params, funcs, linkage = {}, {}, {}, {}
    callees = collections.defaultdict(set); icalls = collections.defaultdict(list); taken = collections.defaultdict(set)
    extcb = set(); declared = set(); ctor = set()
    fn = None
    for line in text.split("\n"):
        if line.startswith("declare "):
            m = re.search(r"@(" + ident + r")\(", line)
            if m: declared.add(m.group(1).strip('"'))
    for line in text.split("\n"):
        if line.startswith("define "):
            m = re.search(r"@(" + ident + r")\(", line)
            fn = m.group(1).strip('"'); funcs[fn] = line
            linkage[fn] = "internal" if (" internal " in line or " private " in line) else "exported"
            for pm in re.finditer(r"%(" + ident + r")(?=[,)])", line[m.end():]):
                params[f"{fn}:%{pm.group(1)}"] = fn
            continue
        if line.startswith("}"):
            fn = None; continue
        if fn is None:
            if line.startswith("@llvm.global_ctors") or line.startswith("@llvm.global_dtors"):
                ctor |= {x.strip('"') for x in re.findall(r"@(" + ident + r")", line)}
            for um in re.findall(r"@(" + ident + r")", line.split("=", 1)[1] if "=" in line else ""):
                taken["<global>"].add(um.strip('"'))
            continue
        s = line.strip()
        if s.startswith("%") and " = " in s:
            eq = s.find(" = "); body = s[eq + 3:]
            defs[f"{fn}:{s[:eq]}"] = body
        else:
            body = s
        cm = re.search(r"\b(?:call|invoke)\b[^@%]*?(@" + ident + r"|%" + ident + r")\(", body)
        rest = body
        if cm:
            c = cm.group(1)
            if c.startswith("@"):
                callees[fn].add(c[1:].strip('"'))
                if c[1:].strip('"') in declared:
                    for a in re.findall(r"@(" + ident + r")", body[cm.end():]):
                        extcb.add((fn, a.strip('"')))
            else:
                icalls[fn].append(f"{fn}:{c}")
            rest = body[:cm.start(1)] + body[cm.end(1):]
        for a in re.findall(r"@(" + ident + r")", rest):
            taken[fn].add(a.strip('"'))

    # reachability in the model: direct calls, indirect calls by the solved sets, functions handed to externals
    reach = set(); work = [f for f in ("main",) if f in funcs] + [f for f in ctor if f in funcs]
    targets_of = {}
    exported = {x[1:] for x in (pts("<exported functions>") or [])}
    # dlsym(NULL, name) at run time: only functions named by the strings of the functions that call dlsym
    dl_strings = set()
    strings = dict(re.findall(r'^@(' + ident + r') = .*? c"([^"]*)\\00"', text, re.M))
    for f in funcs:
        if "dlsym" in callees[f]:
            dl_strings |= {strings[x] for x in taken[f] if x in strings and strings[x]}
    dl_found = {f for f in funcs if any(f.endswith(t) for t in dl_strings)}
    RUNTIME = "--as-loaded" not in argv
    def icall_targets(v):
        if v not in targets_of:
            p = pts(v) or []
            t = {x[1:] for x in p if x.startswith("@") and "#" not in x and x[1:] in funcs}
            if RUNTIME and exported and exported <= t:
                t = (t - exported) | dl_found
            targets_of[v] = t
        return targets_of[v]
    while work:
        f = work.pop()
        if f in reach or f not in funcs: continue
        reach.add(f)
        nxt = set(callees[f]) | {a for (g, a) in extcb if g == f}
        for v in icalls[f]: nxt |= icall_targets(v)
        work += [g for g in nxt if g in funcs and g not in reach]
    referenced = collections.defaultdict(set)  # function -> functions (or <global>) naming it
    for f, cs_ in callees.items():
        for g in cs_: referenced[g].add(f)
    for f, ts in taken.items():
        for g in ts: referenced[g].add(f)

    # the ret operands of each function, and the args of each direct call site
    def body_lines():
        """(function, instruction text) of every line inside a function's body."""
        fn = None
        for line in text.split("\n"):
            if line.startswith("define "):
                fn = re.search(r"@(" + ident + r")\(", line).group(1).strip('"')
            elif line.startswith("}"):
                fn = None
            elif fn is not None:
                yield fn, line.strip()

    rets = collections.defaultdict(list); sites = collections.defaultdict(list)
    for fn, st in body_lines():
        if st.startswith("ret "):
            rets[fn].append(st.split(",")[0])
        cm = re.search(r"\b(?:call|invoke)\b[^@%]*?@(" + ident + r")\((.*)$", st)
        if cm: sites[cm.group(1).strip('"')].append((fn, cm.group(2)))
    stores = collections.defaultdict(list); passed = set(); gstores = collections.defaultdict(list); guses = collections.Counter()
    ginit = dict(re.findall(r'^@(' + ident + r') = [^\n]*?(?:global|constant) ([^\n]*)$', text, re.M))
    for fn, st in body_lines():
        st = re.sub(r", !dbg.*", "", st)
        m = re.match(r"store (?:volatile )?ptr (.+?), ptr (%" + ident + r"|@" + ident + r")(,|$)", st)
        if m:
            if m.group(2).startswith("@"): gstores[m.group(2)[1:].strip('"')].append((fn, m.group(1)))
            else: stores[(fn, m.group(2))].append(m.group(1))
        if re.search(r"\b(call|invoke)\b", st):
            for a in re.findall(r"ptr (?:noundef |nonnull |noalias |nocapture |readonly |writeonly |align \d+ |dereferenceable\(\d+\) )*(%" + ident + r")", st.split("(", 1)[1] if "(" in st else ""):
                passed.add((fn, a))
        for g in re.findall(r"@(" + ident + r")", st):
            if not re.match(r"(%\S+ = )?load (volatile )?ptr, ptr @" + re.escape(g) + r"(,|$)", st) and not (m and m.group(2) == "@" + g):
                guses[g.strip('"')] += 1
    def all_null_or_empty(fn, vals):
        return all(operand_kind(fn, v) in ("null", "empty", "int") for v in vals)
    def base_alloca(fn, a):
        """The alloca (or global) an address is a constant gep of, following getelementptr."""
        for _ in range(6):
            d = defs.get(f"{fn}:{a}", "")
            if d.startswith("alloca"): return a
            m = re.match(r"getelementptr (?:inbounds )?[^,]+, ptr (%" + ident + r"|@" + ident + r")", d)
            if not m: return None
            a = m.group(1)
            if a.startswith("@"): return a
        return None
    def split_args(a):
        out, depth, cur = [], 0, ""
        for ch in a:
            if ch == "(" : depth += 1
            if ch == ")":
                if depth == 0: out.append(cur); return out
                depth -= 1
            if ch == "," and depth == 0: out.append(cur); cur = ""; continue
            cur += ch
        out.append(cur); return out
    def operand_kind(fn, tok):
        if fn is None:
            tok = tok.strip()
            return "null" if re.search(r"\b(null|undef|poison|zeroinitializer)\s*$", tok) or re.search(r"^-?\d+$", tok) else "nonempty"
        tok = tok.strip()
        m = re.search(r"(%" + ident + r")\s*$", tok)
        if m: 
            v = f"{fn}:{m.group(1)}"
            return "empty" if v in emptyset else ("int" if v not in idx else "nonempty")
        if re.search(r"\b(null|undef|poison|zeroinitializer)\s*$", tok) or re.search(r"inttoptr \(i64 -?\d+ to ptr\)", tok) or re.search(r"-?\d+\s*$", tok): return "null"
        return "nonempty"
    memo = {}
    def cause(n, depth=0):
        if n in memo: return memo[n]
        memo[n] = "cycle of empty values"
        f, _, v = n.partition(":")
        if n in params:
            k = [pm.group(1) for pm in re.finditer(r"%(" + ident + r")(?=[,)])", funcs[f].split("(", 1)[1])].index(v[1:])
            live = [(g, a) for g, a in sites.get(f, []) if g in reach]
            kinds_ = []
            for g, a in live:
                args = split_args(a)
                kinds_.append(operand_kind(g, args[k]) if k < len(args) else "missing")
            if not live: r = "param: no direct caller (only indirect calls, passing nothing here)"
            elif all(x in ("null", "missing") for x in kinds_): r = "null-only: every caller passes null"
            elif all(x in ("null", "missing", "empty") for x in kinds_): r = "derived: callers pass null or empty pointers"
            else: r = "GAP? param: a caller passes a nonempty pointer"
        else:
            d = defs.get(n, "?"); op = d.split()[0] if d.split() else "?"
            while op in ("tail", "musttail", "notail"): d = d.split(None, 1)[1]; op = d.split()[0]
            if op == "call" or op == "invoke":
                cm = re.search(r"@(" + ident + r")\(", d)
                g = cm.group(1).strip('"') if cm else None
                if g in funcs:
                    rs = rets.get(g, [])
                    if rs and all(re.search(r"ret ptr null$", x) for x in rs): r = "null-only: callee returns only null"
                    else: r = "derived: callee returns null or empty pointers"
                elif g is None:
                    cv = re.search(r"(%" + ident + r")\(", d)
                    r = "derived: call through an empty pointer (a hook only ever null: never called)" if cv and f"{f}:{cv.group(1)}" in emptyset else "GAP? call through an unresolved pointer"
                else: r = f"GAP? external call {g}"
            elif op == "load":
                m = re.search(r"ptr (%" + ident + r")", d.split(",", 1)[1] if "," in d else "")
                a = f"{f}:{m.group(1)}" if m else None
                gm = re.search(r"ptr (?:getelementptr[^@]*)?@(" + ident + r")", d.split(",", 1)[1] if "," in d else "")
                if re.search(r"ptr (poison|undef|null)\b", d): r = "dead code: load from poison/undef/null (the compiler proved it unreachable)"
                elif a in emptyset: r = "derived: load through an empty pointer"
                elif m is None and gm:
                    g = gm.group(1).strip('"')
                    if "blockaddress" in ginit.get(g, ""): r = "code label: a blockaddress table (computed goto)"
                    elif guses[g] == 0 and all_null_or_empty(None, [v for _, v in gstores[g]]) and re.search(r"(ptr null|zeroinitializer)", ginit.get(g, "")): r = "null-only: a global hook only ever null"
                    else: r = "load: from a global (read)"
                else:
                    b = base_alloca(f, m.group(1)) if m else None
                    if b and b.startswith("@") and "blockaddress" in ginit.get(b[1:], ""): r = "code label: a blockaddress table (computed goto)"
                    elif b and not b.startswith("@") and (f, b) not in passed and all(all_null_or_empty(f, stores[(f, x)]) for x in [b] + [k[1] for k in stores if k[0] == f and base_alloca(f, k[1]) == b]):
                        r = "null-only: a local only ever given null, integers or empty pointers"
                    elif b and not b.startswith("@") and (f, b) in passed: r = "load: a local written by a call (read)"
                    else: r = "load: memory never given a pointer (read)"
            elif op in ("getelementptr", "bitcast", "addrspacecast", "phi", "select", "freeze", "inttoptr", "extractvalue"):
                ops = re.findall(r"(%" + ident + r")", d)
                ks = [operand_kind(f, o) for o in ops] + (["null"] if re.search(r"\bnull\b", d) else [])
                base = re.search(r"getelementptr (?:inbounds |nuw |nusw )*[^,]+, ptr (%" + ident + r")", d) if op == "getelementptr" else None
                if op == "inttoptr": r = "null-only: inttoptr of an integer with no pointer origin" if "nonempty" not in ks else "GAP? inttoptr"
                elif base and operand_kind(f, base.group(1)) == "nonempty": r = "GAP? getelementptr of a nonempty pointer"
                elif "nonempty" in [operand_kind(f, o) for o in ops if f"{f}:{o}" in idx and not o.startswith("%idx")] and op in ("phi", "select", "bitcast", "addrspacecast", "freeze"): r = f"GAP? {op} of a nonempty pointer"
                else:
                    r = f"derived: {op} of null or empty pointers"
            else:
                r = f"other: {op}"
        memo[n] = r
        return r

    rows = []
    for n in empty:
        f, _, v = n.partition(":")
        if n.startswith("@"):
            rows.append({"ptr": n, "group": "global", "fn": None, "def": ""}); continue
        if f not in reach:
            refs = referenced.get(f, set())
            if not refs: g = f"unreached: never named ({linkage.get(f)})"
            elif all(r != "<global>" and r not in reach for r in refs) and f not in {a for (_, a) in extcb}:
                tk = any(f in taken[r] for r in refs)
                g = "unreached: named only in unreached functions" + (" (address taken)" if tk else "")
            else:
                g = "unreached: address taken, no modelled call reaches it"
        else:
            g = "reached: " + cause(n)
        d = "param" if n in params else defs.get(n, "?").split(",")[0][:90]
        rows.append({"ptr": n, "group": g, "fn": f, "def": d})
    Path(out).write_text(json.dumps({"named": len(ptrs), "empty": len(empty), "rows": rows}, indent=0))
    print(len(ptrs), len(empty), collections.Counter(r["group"] for r in rows).most_common())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
