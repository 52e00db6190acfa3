"""Constraints from a whole program's textual LLVM IR.

One pass over the module's lines declares every type, global and function;
a second pass emits the constraints of global initializers and of every
instruction. The IR text is scanned directly (with compiled regexes and a
small recursive-descent parser in :mod:`.irtext`): walking llvmlite's value
objects costs a foreign call per operand, far too slow for whole programs.

The model (DESIGN.md, "The constraint model"):

* every global, ``alloca`` and allocation call site is a memory object with one
  field slot per scalar of its type (:mod:`.types`); heap objects, whose type is
  unknown, get as many slots as the largest struct of the program, or, when the
  allocation size is a constant, as many as any of the program's types places in
  that many bytes (:meth:`ModuleExtractor.window`: 16 bytes hold at most two
  pointers, not 16 slots); a field past them lies outside the block;
* allocation wrappers (``xmalloc``: a function whose result is only ever a fresh
  block, which it lets escape nowhere else; :meth:`ModuleExtractor.wrapper`) may
  give each direct call its own heap object (``clone_alloc_wrappers=True``; off by
  default: see there why);
* a function ``@f`` is an object whose slots are ``@f`` itself, its return slot
  ``@f#ret``, one slot per parameter ``@f#argK`` and, when variadic, ``@f#va``;
  a direct call copies actuals into the parameter slots (copied on to the formals)
  and the return slot back; an indirect call through ``fp`` is a gep to the slot
  then a store (arguments) or load (result), resolved while solving;
* ``getelementptr`` adds the flattened field offset of its struct indices; array
  indices (and the first, pointer-arithmetic index) keep the slot; a byte (``i8``)
  gep with a variable or non-zero offset may land on any later slot of the object
  and is modelled by :meth:`Builder.smear`, the sound over-approximation;
* aggregate SSA values (``{ptr, i64}``, vectors) are one node holding all their
  pointers; ``extractvalue``/``insertvalue`` copy;
* integers and pointers (``ptrtoint``/``inttoptr``): see :meth:`_Function.int_sources`.
  An ``inttoptr`` whose integer can be traced (through arithmetic, ``phi``,
  ``select``, casts and loads) to ``ptrtoint`` values points anywhere inside those
  values' objects; when the trace reaches an integer of unknown origin (an
  argument, a call result), the result also points to every object whose address
  was ever turned into an integer and to the int-to-pointer object ``I2P``
  (``ConstraintSet.int_to_pointer``). ``i64`` and ``i8`` values stored to memory
  that trace back to ``ptrtoint`` or to a load are stored as the pointers they came
  from (a hand-written ``memcpy`` loop moves a pointer one ``i8`` at a time; an ``i8``
  only when a load is stored as it is);
* exceptions: ``__cxa_throw``/``resume`` feed one exception node that every
  ``landingpad`` reads;
* ``va_start`` points the ``va_list`` at the function's ``@f#va`` slot, which
  receives every variadic actual.

``reader/extract.cpp`` applies the same rules to LLVM's objects inside
``read_bitcode`` (the fast path for one ``.bc``, :mod:`.fast_extract`); this
module is its reference: a rule changed here must change there too, and
tests/test_fast_extract.py checks that both give the same constraint set.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from .access_sites import AccessSites, SiteRecorder
from .builder import FIELD, FUNCTION, OBJECT, VALUE, Builder
from .externals import ALIAS_CHECKS, ALLOC_SIZE_ARGS, RECORD_SLOTS, STATIC_RECORDS, model_for
from .irtext import NAME, MetadataTable, parse_items, parse_typed, parse_value, skip_group, skip_words, skip_ws
from .types import PTR, TypeTable, parse_type

_FUNC_NAME = re.compile(r'@("[^"]*"|[-\w$.]+)\(')
_CALLEE = re.compile(r'[%@](?:"[^"]*"|[-\w$.]+)\(')
_MANGLED = re.compile(r"_Z(\d+)")
_DBG = re.compile(r"!dbg !(\d+)")
_DBG_DECLARE = re.compile(r'#dbg_declare\(ptr %("[^"]*"|[-\w$.]+), !(\d+)')
_PTRTOINT_GLOBAL = re.compile(r'ptrtoint \(ptr @("[^"]*"|[-\w$.]+)')
_GEP_LITERAL = re.compile(r"getelementptr (?:inbounds |nuw |nusw )*(<?\{(?:[^{}]|\{[^{}]*\})*\}>?|\[[^\[\]{}]*\]), ")
_MD_DILOC = re.compile(r"!DILocation\(line: (\d+), (?:column: \d+, )?scope: !(\d+)")
_MD_LINE = re.compile(r"\bline: (\d+)")
_MD_SCOPE = re.compile(r"\bscope: !(\d+)")
_MD_FILE = re.compile(r"\bfile: !(\d+)")
_MD_FILENAME = re.compile(r'filename: "([^"]*)"')
_MD_VAR = re.compile(r"\bvar: !(\d+)")
_GLOBAL_KW = re.compile(r"\b(global|constant|alias|ifunc) ")

# opcodes that move no pointer (their integer results are traced on demand)
_NO_POINTER_OPS = frozenset((
    "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor",
    "fadd", "fsub", "fmul", "fdiv", "frem", "fneg", "icmp", "fcmp", "trunc", "zext", "sext", "fptrunc",
    "fpext", "fptoui", "fptosi", "uitofp", "sitofp", "br", "switch", "unreachable", "fence", "indirectbr",
    "catchpad", "cleanuppad", "catchswitch", "catchret", "cleanupret"))
_COPY_OPS = frozenset(("bitcast", "addrspacecast", "freeze"))
_CALL_PREFIX = frozenset(("tail", "musttail", "notail"))


@dataclass
class AliasCheck:
    """One alias assertion call found in the program."""

    kind: str          # MAYALIAS, NOALIAS, ...
    a: int             # node of the first argument
    b: int             # node of the second argument
    location: str      # file:line of the call (or function name when no debug info)
    function: str


@dataclass
class ExtractStats:
    """What the extractor saw and what it could not model.

    Attributes
    ----------
    inputs : the input files
    instructions : LLVM instructions read
    opcodes : instructions per opcode
    functions_defined, functions_declared, globals : module contents
    unmodelled_calls : external functions without a model that can move pointers (a
        pointer argument or result), with call counts: their results point to an object
        of their own and into their arguments; other effects are not modelled
    callbacks : ``(external, function)`` pairs, with counts: a function handed to an
        unmodelled external, which may call it with what it was given
    unknown_instructions : opcodes the extractor does not know, with counts
    inline_asm : calls to inline assembly (no pointer effect modelled)
    alias_checks : alias assertions found (MAYALIAS, NOALIAS, ...)
    seconds : time per phase
    """

    inputs: list[str] = field(default_factory=list)
    instructions: int = 0
    opcodes: Counter = field(default_factory=Counter)
    functions_defined: int = 0
    functions_declared: int = 0
    globals: int = 0
    unmodelled_calls: Counter = field(default_factory=Counter)
    callbacks: Counter = field(default_factory=Counter)
    unknown_instructions: Counter = field(default_factory=Counter)
    inline_asm: int = 0
    wrapper_calls: int = 0
    alias_checks: list[AliasCheck] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    node_kinds: dict[str, int] = field(default_factory=dict)
    constraints: dict[str, int] = field(default_factory=dict)
    # access sites (loads, stores, memory intrinsics, calls): only with record_sites=True
    access_sites: "AccessSites | None" = None

    def lines(self, unmodelled_limit: int | None = None) -> list[str]:
        """A readable report: counts per kind, then every unmodelled call."""
        out = [f"inputs: {', '.join(self.inputs)}",
               f"instructions: {self.instructions}  functions: {self.functions_defined} defined, "
               f"{self.functions_declared} declared  globals: {self.globals}",
               "nodes: " + "  ".join(f"{k} {v}" for k, v in self.node_kinds.items()),
               "constraints: " + "  ".join(f"{k} {v}" for k, v in self.constraints.items())]
        if self.seconds:
            out.append("time: " + "  ".join(f"{k} {v:.2f}s" for k, v in self.seconds.items()))
        if self.wrapper_calls:
            out.append(f"calls of allocation wrappers given their own heap object: {self.wrapper_calls}")
        if self.alias_checks:
            out.append(f"alias assertions: {len(self.alias_checks)}")
        if self.inline_asm:
            out.append(f"inline asm calls (not modelled): {self.inline_asm}")
        for op, n in sorted(self.unknown_instructions.items()):
            out.append(f"unknown instruction (not modelled): {op} x{n}")
        items = sorted(self.unmodelled_calls.items(), key=lambda kv: (-kv[1], kv[0]))
        out.append(f"unmodelled external functions: {len(items)} ({sum(self.unmodelled_calls.values())} calls)")
        shown = items if unmodelled_limit is None else items[:unmodelled_limit]
        for name, n in shown:
            out.append(f"  {name} x{n}")
        if len(shown) < len(items):
            out.append(f"  ... and {len(items) - len(shown)} more")
        if self.callbacks:
            cbs = sorted(self.callbacks.items(), key=lambda kv: (-kv[1], kv[0]))
            out.append(f"functions handed to unmodelled externals (may be called back): {len(cbs)}")
            shown = cbs if unmodelled_limit is None else cbs[:unmodelled_limit]
            for (ext, f), n in shown:
                out.append(f"  {ext} <- @{f} x{n}")
            if len(shown) < len(cbs):
                out.append(f"  ... and {len(cbs) - len(shown)} more")
        return out


@dataclass
class _FuncInfo:
    name: str
    params: list            # [(type, local name or None)]
    vararg: bool
    defined: bool
    obj: int = -1           # id of the function object
    dbg: int | None = None
    body: tuple[int, int] = (0, 0)   # line range of the body
    ret_ptr: bool = False   # the return type is ``ptr``
    taken: bool = False     # its address is used as a value (see ModuleExtractor.model_bodies)
    exported: bool = False  # defined and neither internal nor private (see ModuleExtractor.exported)

    @property
    def va_slot(self) -> int:
        return self.obj + 2 + len(self.params)


@dataclass(frozen=True)
class _Wrapper:
    """Summary of an allocation wrapper (see :meth:`ModuleExtractor.wrapper`).

    ``sizes``: one entry per allocation the result may come from, the factors of its
    size in bytes (``("i", k)`` a constant, ``("p", k)`` the call's argument ``k``),
    or None when unknown; ``ret_params``: arguments the result may also be (the old
    block of a ``realloc``, a pass-through); ``copy_params``: arguments whose
    pointees' slots move into the new block (``realloc``).
    """

    sizes: tuple
    ret_params: frozenset
    copy_params: frozenset

    def nbytes(self, args_items) -> int | None:
        """Size of the new block at a call with ``args_items`` (None: unknown)."""
        best = 0
        for factors in self.sizes:
            if factors is None:
                return None
            total = 1
            for tag, k in factors:
                if tag == "p":
                    v = args_items[k][1] if k < len(args_items) else None
                    if v is None or v[0] != "i":
                        return None
                    k = v[1]
                total *= k
            best = max(best, total)
        return best if best > 0 else None


class ModuleExtractor:
    """Extract the constraints of one module's textual IR (see module docstring)."""

    def __init__(self, text: str, inputs=(), progress=None, record_sites: bool = False,
                 clone_alloc_wrappers: bool = False):
        self.text = text
        self.clone_alloc_wrappers = clone_alloc_wrappers  # see wrapper()
        self.lines = text.split("\n")
        self.b = Builder()
        self.stats = ExtractStats(inputs=list(inputs))
        self.progress = progress
        self.named_types: dict = {}
        self.types = TypeTable(self.named_types)
        self.funcs: dict[str, _FuncInfo] = {}
        self.global_obj: dict[str, int] = {}     # variable name -> object id
        self.global_val: dict[str, int] = {}     # variable / alias name -> address node
        self.global_type: dict[str, object] = {}  # variable name -> its type
        self.global_lines: list[tuple[str, int, str]] = []   # (name, line index, kind)
        self.aliases: dict[str, str] = {}        # alias name -> aliasee text
        self.func_addr: dict[str, int] = {}
        self.md = {}                             # metadata id -> text (a MetadataTable once read)
        self.const_cache: dict = {}
        self.static_objs: dict[str, int] = {}
        self.window_cache: dict[int, int] = {}
        self._offsets: list | None = None        # see _offset_tables
        self._named_offsets: tuple | None = None  # see named_window
        self.named_window_cache: dict[int, int] = {}
        self.max_slots = 1
        self._i2p = -1
        self._esc_raw = -1
        self._esc = -1
        self._exc = -1
        self._exported = -1
        self._global_types: set = set()
        self._md_cache: dict[int, str] = {}
        self._md_files: dict[int, str] = {}
        self._type_text: dict[str, object] = {}
        self.gep_plans: dict = {}
        self._wrappers: dict[str, _Wrapper | None] = {}
        # --- access-site recording (constraints/llvm/access_sites.py) ---
        self.recorder = SiteRecorder(self) if record_sites else None
        if record_sites:
            self.stats.access_sites = self.recorder.sites

    # ================================================================ passes
    def run(self):
        import time
        t0 = time.perf_counter()
        self._declare()
        t1 = time.perf_counter()
        self._define()
        t2 = time.perf_counter()
        cs = self._finish()
        t3 = time.perf_counter()
        self.stats.seconds.update(declare=t1 - t0, instructions=t2 - t1, build=t3 - t2)
        return cs, self.stats

    def _declare(self) -> None:
        """Pass 1: types, globals, functions, metadata (lines at column 0)."""
        lines = self.lines
        n = len(lines)
        i = 0
        while i < n:
            line = lines[i]
            c = line[:1]
            if c == "%":
                eq = line.find(" = type ")
                if eq > 0:
                    name = line[1:eq]
                    body = line[eq + 8:].strip()
                    self.named_types[name] = "opaque" if body == "opaque" else parse_type(body, 0)[0]
            elif c == "@":
                self._declare_global(line, i)
            elif c == "d" and (line.startswith("define ") or line.startswith("declare ")):
                info = self._parse_header(line)
                if line.startswith("define "):
                    start = i + 1
                    try:
                        i = lines.index("}", i)
                    except ValueError:
                        raise InputError(f"function @{info.name} has no closing brace") from None
                    info.body = (start, i)
                self.funcs[info.name] = info
            elif c == "!" and line[1:2].isdigit():
                self.md = MetadataTable(lines, i)  # metadata comes last, read on demand
                break
            i += 1
        b = self.b
        for info in self.funcs.values():
            fnames = [f"@{info.name}", f"@{info.name}#ret"] + [f"@{info.name}#arg{k}" for k in range(len(info.params))]
            if info.vararg:
                fnames.append(f"@{info.name}#va")
            info.obj = b.obj(fnames[0], len(fnames), FUNCTION, loc=info.dbg, field_names=fnames)
            if info.defined:
                self.stats.functions_defined += 1
            else:
                self.stats.functions_declared += 1
        sizes = [self.types.n_slots(("N", t)) for t, body in self.named_types.items() if body != "opaque"]
        self.max_slots = max([1] + sizes)

    def _declare_global(self, line: str, index: int) -> None:
        m = NAME.match(line)
        name = m.group(0)[1:]
        kw = _GLOBAL_KW.search(line, m.end())
        if kw is None:
            raise InputError(f"cannot read global declaration: {line[:80]!r}")
        if kw.group(1) in ("alias", "ifunc"):
            rest = line[kw.end():]
            _, j = parse_type(rest, 0)
            self.aliases[name] = rest[skip_ws(rest, j) + 1:]
            return
        ty, j = parse_type(line, kw.end())
        dbg = _DBG.search(line, j)
        loc = int(dbg.group(1)) if dbg else None
        slots, reach = self.object_layout(ty) if kw.group(1) == "global" else (self.types.n_slots(ty), None)
        obj = self.b.obj(f"*@{name}", slots, OBJECT, loc=loc, reach=reach)
        addr = self.b.node(f"@{name}", VALUE, loc=loc)
        self.b.addr(addr, obj)
        self.global_obj[name] = obj
        self.global_val[name] = addr
        self.global_type[name] = ty
        self.global_lines.append((name, index, line[kw.end():]))
        self._global_types.add(ty)
        self.stats.globals += 1

    def _parse_header(self, line: str) -> _FuncInfo:
        m = _FUNC_NAME.search(line)
        name = m.group(1)
        i = m.end()
        params, vararg = [], False
        i = skip_ws(line, i)
        while not line.startswith(")", i):
            if line.startswith("...", i):
                vararg = True
                i += 3
            else:
                ty, v, i = parse_typed(line, i)
                params.append((ty, v[1] if v and v[0] == "%" else None))
            i = skip_ws(line, i)
            if line.startswith(",", i):
                i = skip_ws(line, i + 1)
        dbg = _DBG.search(line, i)
        head = line[:m.start()]
        return _FuncInfo(name, params, vararg, line.startswith("define "),
                         dbg=int(dbg.group(1)) if dbg else None,
                         ret_ptr=head.rstrip().endswith(" ptr"),
                         exported=line.startswith("define ") and " internal " not in head and " private " not in head)

    def _define(self) -> None:
        """Pass 2: global initializers, then every function body."""
        # a global whose address becomes an integer in any constant (member
        # function pointers, tagged tables) escapes, wherever that constant is
        # (in the order the text names them first: node ids must not depend on set order)
        text = self.text_for_scan()
        for name in dict.fromkeys(_PTRTOINT_GLOBAL.findall(text)):
            if name in self.global_val or name in self.funcs or name in self.aliases:
                self.escape(self.global_node(name))
        # literal struct types indexed by a gep (``{ ptr, ptr }``) lay out memory
        # too: they bound heap objects' and copies' slots with the named ones
        for ty_text in set(_GEP_LITERAL.findall(text)):
            try:
                ty = parse_type(ty_text, 0)[0]
            except InputError:
                continue
            self._global_types.add(ty)
            self.max_slots = max(self.max_slots, self.types.n_slots(ty))
        for name, _, rest in self.global_lines:
            ty, v, _ = parse_typed(rest, 0) if self._has_initializer(rest) else (None, None, 0)
            if v is not None and self.types.has_ptr(ty):
                self._init(ty, v, self.global_obj[name], 0)
        for name, _, rest in self.global_lines:
            if not self._has_initializer(rest):
                self.library_global(name)
        bodies = [f for f in self.funcs.values() if f.defined]
        bar = self.progress(total=sum(f.body[1] - f.body[0] for f in bodies)) if self.progress else None
        for info in bodies:
            fn = _Function(self, info)
            fn.run()
            if self.recorder is not None:
                self.recorder.scan(fn)
            if bar is not None:
                bar.update(info.body[1] - info.body[0])
        if bar is not None:
            bar.close()
        self.model_bodies()

    def text_for_scan(self) -> str:
        return self.text

    @staticmethod
    def _has_initializer(rest: str) -> bool:
        # "external global ptr" prints no initializer: the type is followed by "," or nothing
        try:
            _, j = parse_type(rest, 0)
        except InputError:
            return False
        j = skip_ws(rest, j)
        return j < len(rest) and rest[j] != ","

    def _init(self, ty, v, obj: int, slot: int) -> None:
        """Global initializer ``v`` of type ``ty`` placed at ``obj + slot``."""
        if v is None or not self.types.has_ptr(ty):
            return
        r = self.types.resolve(ty)
        if r == PTR or not isinstance(r, tuple):
            if v[0] == "@" and v[1] in self.global_obj:
                self.b.addr(obj + slot, self.global_obj[v[1]])
            elif v[0] == "@" and v[1] in self.funcs:
                self.funcs[v[1]].taken = True
                self.b.addr(obj + slot, self.funcs[v[1]].obj)
            else:
                node = self.const_node(v)
                if node is not None:
                    self.b.copy(obj + slot, node)
        elif v[0] == "agg":
            if r[0] == "S":
                for (fty, fv), off in zip(v[1], self.types.field_prefix(r)):
                    self._init(fty, fv, obj, slot + off)
            else:
                for ety, ev in v[1]:
                    self._init(ety, ev, obj, slot)
        else:
            node = self.const_node(v)
            if node is not None:
                for k in self.types.ptr_slots(ty):
                    self.b.copy(obj + slot + k, node)

    # ======================================================= shared helpers
    def global_node(self, name: str) -> int:
        """Node of ``@name`` used as a value: the address of a global or function."""
        node = self.global_val.get(name)
        if node is not None:
            return node
        if name in self.funcs:
            node = self.func_addr.get(name)
            if node is None:
                self.funcs[name].taken = True
                node = self.b.node(f"&@{name}")
                self.b.addr(node, self.funcs[name].obj)
                self.func_addr[name] = node
            return node
        if name in self.aliases:
            node = self.b.node(f"@{name}")
            self.global_val[name] = node
            text = self.aliases[name]
            _, v, _ = parse_typed(text, 0)
            target = self.const_node(v)
            if target is not None:
                self.b.copy(node, target)
            return node
        raise InputError(f"reference to unknown global @{name}")

    def const_node(self, v, fn: "_Function | None" = None):
        """Node holding the pointers of constant ``v`` (None when it holds none)."""
        if v is None or v[0] == "i":
            return None
        if v[0] == "@":
            return self.global_node(v[1])
        if v[0] == "%":
            return fn.local(v[1]) if fn is not None else None
        if fn is None or not _mentions_local(v):
            cached = self.const_cache.get(v)
            if cached is not None or v in self.const_cache:
                return cached
            node = self._build_const(v, None)
            self.const_cache[v] = node
            return node
        return self._build_const(v, fn)

    def _build_const(self, v, fn):
        b = self.b
        tag = v[0]
        if tag == "gep":
            base = self.const_node(v[2], fn)
            if base is None:
                return None
            if v[2][0] == "@" and v[2][1] in self.global_type:
                slot = self.byte_slot(self.global_type[v[2][1]], v[1], v[3])
                if slot is not None:
                    return self.b.offset(base, slot, "cexpr")
            return self.gep_node(v[1], base, v[3], "cexpr")
        if tag == "cast":
            op = v[1]
            if op in ("bitcast", "addrspacecast"):
                return self.const_node(v[2], fn)
            if op == "ptrtoint":
                inner = self.const_node(v[2], fn)
                if inner is not None:
                    self.escape(inner)
                return None
            if op == "inttoptr":
                return self.int_to_ptr_node(self._const_int_sources(v[2], fn), "cexpr.inttoptr")
            return None
        if tag == "agg":
            nodes = [self.const_node(x, fn) for _, x in v[1]]
            nodes = [x for x in nodes if x is not None]
            if not nodes:
                return None
            if len(nodes) == 1:
                return nodes[0]
            t = b.node("cexpr.agg")
            for x in nodes:
                b.copy(t, x)
            return t
        return None  # integer expressions hold no pointer in a pointer context

    def _const_int_sources(self, v, fn):
        """(nodes, arithmetic, opaque) of a constant integer expression."""
        if v is None or v[0] == "i":
            return [], False, False
        if v[0] == "cast":
            if v[1] == "ptrtoint":
                n = self.const_node(v[2], fn)
                return ([n] if n is not None else []), False, False
            return self._const_int_sources(v[2], fn)
        if v[0] == "int":
            nodes, opaque = [], False
            for x in v[1]:
                ns, _, op = self._const_int_sources(x, fn)
                nodes += ns
                opaque |= op
            return nodes, True, opaque
        if v[0] == "%" and fn is not None:
            return fn.int_sources(v[1])
        return [], False, True

    def type_of_text(self, text: str):
        t = self._type_text.get(text)
        if t is None:
            t = self._type_text[text] = parse_type(text, 0)[0]
        return t

    def has_ptr_text(self, text: str) -> bool:
        return self.types.has_ptr(self.type_of_text(text))

    def gep_plan(self, ty, indices) -> tuple[int, bool]:
        """``(offset, smear)`` of ``getelementptr ty, base, indices`` (module docstring).

        ``indices`` are values (``("i", k)`` constants, anything else variable).
        ``smear`` says the result may be any slot at or after ``base + offset``.
        """
        r = self.types.resolve(ty)
        if isinstance(r, str) and r.startswith("i") and not indices[1:]:
            first = indices[0] if indices else ("i", 0)
            if first is not None and first[0] == "i" and first[1] == 0:
                return 0, False
            return 0, r in ("i8", "i1")  # byte arithmetic may cross fields
        off = 0
        t = ty
        for idx in indices[1:]:
            rt = self.types.resolve(t)
            if isinstance(rt, tuple) and rt[0] == "S":
                if idx is None or idx[0] != "i":  # a vector of struct indices: any field
                    return off, True
                off += self.types.field_prefix(rt)[idx[1]]
                t = rt[1][idx[1]]
            elif isinstance(rt, tuple) and rt[0] in ("A", "V"):
                t = rt[2]
            else:
                break
        return off, False

    def byte_slot(self, obj_type, gep_type, indices) -> int | None:
        """Exact slot of a constant byte gep (``i8``, one index) into an object of known type."""
        if gep_type != "i8" or len(indices) != 1 or indices[0] is None or indices[0][0] != "i":
            return None
        return self.types.byte_to_slot(obj_type, indices[0][1])

    def gep_node(self, ty, base: int, indices, name: str) -> int:
        """Node for ``getelementptr ty, base, indices``."""
        off, smear = self.gep_plan(ty, indices)
        node = self.b.offset(base, off, name)
        return self.b.smear(node, name + ".any") if smear else node

    def heap_object(self, name: str, nbytes: int | None, loc) -> int:
        """A heap object of ``nbytes`` bytes (None: unknown): as many slots as the
        program's types can place in that many bytes (:meth:`window`), at most the
        largest struct's. A field beyond them lies outside the block."""
        n = self.max_slots if nbytes is None else max(1, min(self.max_slots, self.window(nbytes)))
        return self.b.obj(name, n, OBJECT, loc=loc)

    def window(self, nbytes: int | None) -> int:
        """How many slots a copy of ``nbytes`` bytes may touch (sound bound)."""
        if nbytes is None or nbytes <= 0:
            return self.max_slots
        w = self.window_cache.get(nbytes)
        if w is None:  # the most slots of any named struct or global's type inside nbytes bytes
            w = self.window_cache[nbytes] = _most_slots_in(self._offset_tables(), nbytes)
        return w

    def object_layout(self, ty, count: int | None = 1) -> tuple[int, int | None]:
        """``(slots, reach)`` of a variable (a non-constant global, an ``alloca``) of ``count``
        (None: unknown) values of type ``ty`` (``reach``: see :meth:`Builder.obj`).

        The slots of ``ty``; or, when ``ty`` is or holds an array or the ``alloca`` has a
        count (storage the program may read through another struct type: a
        ``sockaddr_storage`` as a ``sockaddr_in6``, a table through its header struct,
        ``alloca(n)`` as a struct), a tail after them up to as many slots as any named struct
        of the program places in its bytes (:meth:`named_window`), so that such a field lands
        in the object instead of past its end. The tail is reached from the object's address
        only, so that pointers into the declared type (and their smears) stay as they were."""
        n = self.types.n_slots(ty)
        if count == 1 and not self.types.has_array(ty):
            return n, None
        k = self.named_window(None if count is None else self.types.size_align(ty)[0] * count)
        return (n, None) if k <= n else (k, n)

    def named_window(self, nbytes: int | None) -> int:
        """The most slots of any named struct inside ``nbytes`` consecutive bytes (None or
        not positive: the most slots of any named struct); at least 1, at most ``nbytes``.
        Like :meth:`window`, without the global and literal types (not all known yet when
        globals are declared)."""
        if self._named_offsets is None:
            tables, most = {}, 1
            for t, body in self.named_types.items():
                if body == "opaque":
                    continue
                most = max(most, self.types.n_slots(("N", t)))
                offs = self.types.slot_byte_offsets(("N", t))
                if len(offs) > 1:
                    tables[tuple(offs)] = None
            self._named_offsets = (sorted((np.array(t, np.int64) for t in tables), key=len, reverse=True), most)
        offsets, most = self._named_offsets
        if nbytes is None or nbytes <= 0:
            return most
        w = self.named_window_cache.get(nbytes)
        if w is None:
            w = self.named_window_cache[nbytes] = _most_slots_in(offsets, nbytes)
        return w

    def _offset_tables(self) -> list:
        """Slot byte offsets (numpy) of every named struct and global type, longest first."""
        if self._offsets is None:
            tys = [("N", n) for n, body in self.named_types.items() if body != "opaque"]
            tables = {}
            for ty in tys + list(self._global_types):
                offs = self.types.slot_byte_offsets(ty)
                if len(offs) > 1:
                    tables[tuple(offs)] = None
            self._offsets = sorted((np.array(t, np.int64) for t in tables), key=len, reverse=True)
        return self._offsets

    def static_obj(self, callee: str) -> int:
        """The library-owned object of ``callee`` (getenv's string, getpwnam's
        struct, ...). Pointers inside it point into library memory, which the
        program sees only through this object: every slot may point anywhere in it."""
        o = self.static_objs.get(callee)
        if o is None:
            o = self.static_objs[callee] = self.self_linked(f"*{callee}()", None, None,
                                                            self._record_slots(callee))
        return o

    def _record_slots(self, callee: str) -> int | None:
        """Slots of the C record ``callee`` returns (:data:`.externals.STATIC_RECORDS`):
        those of the program's ``struct TAG`` (the most of its linked copies), one
        when the program never names it; None when the record is not known."""
        if callee not in STATIC_RECORDS:
            return None
        tag = STATIC_RECORDS[callee]
        if tag is None:
            return 1
        name = "struct." + tag
        sizes = [self.types.n_slots(("N", t)) for t, body in self.named_types.items()
                 if body != "opaque" and (t == name or t.startswith(name + ".") and t[len(name) + 1:].isdigit())]
        return max([RECORD_SLOTS.get(tag, 1)] + sizes)

    def static_text_obj(self, callee: str) -> int:
        """The library-owned string or plain record of ``callee`` (getenv's string,
        strerror's message, readdir's entry): no pointer inside, so no self-links, and
        one slot, or its record's (:meth:`_record_slots`: readdir's ``struct dirent``).
        What the program itself stores into it is still modelled."""
        key = callee + "()text"
        o = self.static_objs.get(key)
        if o is None:
            o = self.static_objs[key] = self.b.obj(f"*{callee}()", self._record_slots(callee) or 1, OBJECT)
        return o

    def unknown_obj(self, callee: str) -> int:
        """The object the pointer results of unmodelled ``callee`` point to, one per
        function; its type is unknown, so it has a heap object's slots."""
        key = callee + "()unknown"
        o = self.static_objs.get(key)
        if o is None:
            o = self.static_objs[key] = self.heap_object(f"*{callee}()", None, None)
        return o

    def unmodelled(self, callee: str, args, result, name: str, callbacks) -> None:
        """A call of ``callee``, which has no model: ``result`` (None: no pointer) points to
        :meth:`unknown_obj` and anywhere inside what the call was given (``args``); the
        functions in ``callbacks`` (:class:`_FuncInfo`) may be called with what it was given."""
        if result is None and not callbacks:
            return
        b = self.b
        given = -1
        for a in args:
            if a is not None:
                if given < 0:
                    given = b.node(name + ".given")
                b.copy(given, a)
        if result is not None:
            b.addr(result, self.unknown_obj(callee))
            if given >= 0:
                b.copy(result, b.smear(given, name + ".returned"))
        if given >= 0:
            for target in callbacks:
                for k in range(len(target.params)):
                    b.copy(target.obj + 2 + k, given)

    def library_global(self, name: str) -> None:
        """``@name`` is defined outside the program (``environ``, ``stdout``, ``optarg``): each
        pointer slot of it points to library memory, one self-linked object (slots that may
        point anywhere inside it: ``environ``'s strings, a ``FILE``'s buffers) with the slots
        of the record :data:`.externals.STATIC_RECORDS` names for it, else one."""
        ty = self.global_type[name]
        slots = self.types.ptr_slots(ty)
        if not slots:
            return
        o = self.self_linked(f"*@{name}.lib", None, None, self._record_slots(name) or 1)
        for k in slots:
            self.b.addr(self.global_obj[name] + k, o)

    def model_bodies(self) -> None:
        """Every external function whose address the program takes (``_FuncInfo.taken``) gets
        its model applied once to its function object, arguments in its parameter slots
        (``@f#argK``, varargs in ``@f#va``) and result in ``@f#ret``, so that a call through a
        pointer (``calloc`` passed to a library as its allocator) has the effects of a direct
        call; what a direct call makes per call site (a heap object) is one object per function
        here (``*@calloc.model``). One without a model gets :meth:`unmodelled`'s default."""
        for info in self.funcs.values():
            if info.defined or not info.taken or info.name in ALIAS_CHECKS:
                continue
            F = info.obj
            args = [F + 2 + k if self.types.has_ptr(ty) else None for k, (ty, _) in enumerate(info.params)]
            if info.vararg:
                args += [info.va_slot] * 8
            result = F + 1 if info.ret_ptr else None
            name = f"@{info.name}.model"
            model = model_for(info.name)
            if model is None:
                self.unmodelled(info.name, args, result, name, ())
            else:
                self.apply_model(info.name, model, args, lambda k: None, result, name, None, None)

    def self_linked(self, name: str, nbytes: int | None, loc, slots: int | None = None) -> int:
        """A heap object whose every slot may point anywhere inside it (a
        library-built structure: getaddrinfo's list, a static struct passwd);
        ``slots`` when its layout is known."""
        b = self.b
        o = self.heap_object(name, nbytes, loc) if slots is None else b.obj(name, slots, OBJECT, loc=loc)
        t = b.node(name + ".self")
        b.addr(t, o)
        anywhere = b.smear(t, name + ".any")
        for k in range(b.size[o]):
            b.copy(o + k, anywhere)
        return o

    @property
    def i2p(self) -> int:
        if self._i2p < 0:
            self._i2p = self.b.obj("<int-to-pointer>", 1, OBJECT)
        return self._i2p

    def escape(self, node: int) -> None:
        """``node``'s pointees had their address turned into an integer."""
        if self._esc_raw < 0:
            self._esc_raw = self.b.node("<ptrtoint>")
        self.b.copy(self._esc_raw, node)

    @property
    def escaped(self) -> int:
        """Node pointing anywhere inside every object whose address became an integer."""
        if self._esc < 0:
            if self._esc_raw < 0:
                self._esc_raw = self.b.node("<ptrtoint>")
            self._esc = self.b.smear(self._esc_raw, "<escaped-to-int>")
        return self._esc

    @property
    def exported(self) -> int:
        """Node pointing to every function the program exports (defined, neither
        ``internal`` nor ``private``), in module order; made on first use."""
        if self._exported < 0:
            self._exported = self.b.node("<exported functions>")
            for info in self.funcs.values():
                if info.exported:
                    self.b.addr(self._exported, info.obj)
        return self._exported

    @property
    def exception(self) -> int:
        if self._exc < 0:
            self._exc = self.b.node("<exception>")
        return self._exc

    def int_to_ptr_node(self, sources, name: str) -> int:
        nodes, arith, opaque = sources
        b = self.b
        t = b.node(name)
        for n in nodes:
            b.copy(t, b.smear(n, name + ".any") if arith else n)
        if opaque or not nodes:
            b.addr(t, self.i2p)
        if opaque:
            b.copy(t, self.escaped)
        return t

    def indirect_call(self, fp: int, args, result, nfixed: int | None, name: str) -> None:
        """Call through ``fp``: store each actual into its slot, load the return slot."""
        b = self.b
        for k, a in enumerate(args):
            if a is None:
                continue
            slot = 2 + (k if nfixed is None or k < nfixed else nfixed)
            t = b.node(f"{name}.arg{k}")
            b.gep(t, fp, slot)
            b.store(t, a)
        if result is not None:
            t = b.node(f"{name}.ret")
            b.gep(t, fp, 1)
            b.load(result, t)

    def apply_model(self, callee: str, model: tuple, args: list, const_arg, result, name: str, loc,
                    fn: "_Function | None") -> None:
        """The effects of ``callee``'s model (:mod:`.externals`) at one call.

        ``args``: the node of each argument (None: no pointer); ``const_arg(k)``: argument
        ``k``'s value when it is an integer constant, else None; ``result``: the result's
        node (None: no pointer); ``name``: the prefix of the nodes made here; ``loc``: their
        location; ``fn``: the calling function (None for a function object's body, see
        :meth:`model_bodies`).
        """
        b = self.b

        def ref(r):
            if r == "ret":
                return result
            if isinstance(r, int):
                return args[r] if r < len(args) else None
            if r[:2] == "*+":  # what any slot of argument a's objects holds
                a = args[int(r[2:])] if int(r[2:]) < len(args) else None
                if a is None:
                    return None
                t = b.node(f"{name}.deref_any")
                b.load(t, b.smear(a, f"{name}.elem"))
                return t
            a = args[int(r[1:])] if int(r[1:]) < len(args) else None
            if a is None:
                return None
            if r[0] == "*":
                t = b.node(f"{name}.deref")
                b.load(t, a)
                return t
            return b.smear(a, f"{name}.elem")

        for eff in model:
            kind = eff[0]
            if kind == "alloc":
                if result is None:
                    continue
                obj = self.heap_object(f"*{name}", self._alloc_bytes(callee, const_arg), loc)
                b.addr(result, obj)
            elif kind == "alloc_out":
                dst = ref(eff[1])
                if dst is not None:
                    if eff[2:] == ("linked",):
                        obj = self.self_linked(f"*{name}.out", None, loc)
                    else:
                        obj = self.heap_object(f"*{name}.out", None, loc)
                    t = b.node(f"{name}.out")
                    b.addr(t, obj)
                    b.store(dst, t)
            elif kind == "alloc_into":
                dst = ref(eff[1])
                if dst is not None:
                    obj = (self.self_linked(f"*{name}.into", None, loc) if eff[2:] == ("linked",)
                           else self.heap_object(f"*{name}.into", None, loc))
                    t = b.node(f"{name}.into")
                    b.addr(t, obj)
                    b.store(b.smear(dst, f"{name}.fields"), t)
            elif kind == "smear_fields":
                a = ref(eff[1])
                if a is not None:
                    fields = b.smear(a, f"{name}.fields")
                    t = b.node(f"{name}.advanced")
                    b.load(t, fields)
                    b.store(fields, b.smear(t, f"{name}.advanced.any"))
            elif kind == "static":
                if result is not None:
                    b.addr(result, self.static_obj(callee))
            elif kind == "static_text":
                if result is not None:
                    b.addr(result, self.static_text_obj(callee))
            elif kind == "keep":
                a = ref(eff[1])
                if a is not None:
                    b.copy(self.static_obj(eff[2] if len(eff) > 2 else callee), a)
            elif kind == "ret_kept":
                if result is not None:
                    b.copy(result, self.static_obj(eff[1] if len(eff) > 1 else callee))
            elif kind == "ret_exported":
                if result is not None and eff[1] < len(args) and args[eff[1]] is None and fn is not None:
                    b.copy(result, self.exported)  # a null handle (at a call site, not in a body)
            elif kind == "store_exported":
                if result is not None and eff[1] < len(args) and args[eff[1]] is None and fn is not None:
                    b.store(result, self.exported)
            elif kind == "ret_arg":
                a = ref(eff[1])
                if result is not None and a is not None:
                    b.copy(result, a)
            elif kind == "ret_into":
                a = ref(eff[1])
                if result is not None and a is not None:
                    b.copy(result, b.smear(a, f"{name}.into"))
            elif kind == "copy":
                d, s_ = ref(eff[1]), ref(eff[2])
                if d is not None and s_ is not None:
                    nbytes = const_arg(2) if eff[1] == 0 else None
                    self.copy_slots(d, s_, self.window(nbytes), name)
            elif kind == "store_into":
                d, s_ = ref(eff[1]), ref(eff[2])
                if d is not None and s_ is not None:
                    b.store(d, b.smear(s_, f"{name}.into"))
            elif kind == "call":
                fp = ref(eff[1])
                if fp is None:
                    continue
                cargs = []
                for r in eff[2]:
                    if r == "int":
                        cargs.append(None)
                    elif r == "static":
                        t = b.node(f"{name}.static")
                        b.addr(t, self.static_obj(callee))
                        cargs.append(t)
                    else:
                        cargs.append(ref(r))
                self.indirect_call(fp, cargs, None, None, f"{name}.callback")
            elif kind == "throw":
                a = ref(eff[1])
                if a is not None:
                    b.copy(self.exception, a)
            elif kind == "va_start":
                a = ref(eff[1])
                if a is not None and fn is not None and fn.info.vararg:
                    t = b.node(f"{fn.fname}:va_start")
                    b.addr(t, fn.info.va_slot)
                    b.store(b.smear(a, f"{fn.fname}:va_list"), t)
            elif kind == "va_copy":
                d, s_ = ref(eff[1]), ref(eff[2])
                if d is not None and s_ is not None:
                    t = b.node(f"{name}.va_copy")
                    b.load(t, b.smear(s_, f"{name}.va_src"))
                    b.store(b.smear(d, f"{name}.va_dst"), t)

    def _alloc_bytes(self, callee, const_arg):
        which = ALLOC_SIZE_ARGS.get(callee)
        if which is None:
            return None
        total = 1
        for k in which:
            v = const_arg(k)
            if v is None:
                return None
            total *= v
        return total

    def copy_slots(self, d, s_, width, name):
        """``*(d + k) = *(s_ + k)`` for the first ``width`` slots (a memcpy)."""
        b = self.b
        for k in range(width):
            t = b.node(f"{name}.copy{k}")
            b.load(t, b.offset(s_, k, f"{name}.src{k}"))
            b.store(b.offset(d, k, f"{name}.dst{k}"), t)

    # ================================================ allocation wrappers
    def wrapper(self, name: str) -> "_Wrapper | None":
        """The summary of ``@name`` when it is an allocation wrapper, else None.

        A defined function returning ``ptr`` is an allocation wrapper when every
        value it may return is, through ``phi``/``select``/casts, ``null``, one of
        its parameters, the result of an allocation call (an external whose model
        is ``("alloc",)``, ``realloc``/``reallocarray`` of a parameter or ``null``,
        or another wrapper), and no such value escapes: its only other uses are
        comparisons, stores of constants into it and calls of externals with no
        effect on pointers (``free``, ``memset``, ``printf``, ...). The new block
        then reaches the caller only through the result, so a direct call may name
        it by the call site (heap cloning of ``xmalloc``): the abstract objects are
        finer, and every pointer to the block still points to its object. Calls
        through a function pointer keep the wrapper's own object (its return slot).

        Off by default (``clone_alloc_wrappers``): sound and more precise, but on the
        corpus the clones mostly join the one large points-to class that generic
        containers and unions already form there, so they multiply the final edges
        (bash: 115 M to 1.07 G; make: 11 M to 32 M) for little alias precision.
        """
        memo = self._wrappers
        if name in memo:
            return memo[name]
        memo[name] = None  # recursion (a cycle of calls): not a wrapper
        info = self.funcs.get(name)
        w = self._scan_wrapper(info) if info is not None and info.defined and info.ret_ptr else None
        memo[name] = w
        return w

    def _scan_wrapper(self, info: _FuncInfo) -> "_Wrapper | None":
        lines = self.lines
        start, end = info.body
        params = {pname: k for k, (_, pname) in enumerate(info.params) if pname is not None}
        body, defs, rets = [], {}, []
        for li in range(start, end):
            line = lines[li]
            if line[:2] != "  " or line[2] in " ;]":
                continue
            res = None
            if line[2] == "%":
                eq = line.find(" = ", 3)
                res = line[3:eq]
                defs[res] = len(body)
            op, rest = self.split_instruction(li)
            if op == "ret":
                if not rest.startswith("ptr "):
                    return None
                v = rest[4:].strip()
                if v in ("null", "undef", "poison"):
                    continue
                if v[0] != "%":
                    return None
                rets.append(v[1:])
            body.append((res, op, rest))
        if not rets:
            return None
        flow: set[str] = set()           # values the result may come from
        sizes, ret_params, copy_params = [], set(), set()
        work = list(rets)
        while work:
            v = work.pop()
            if v in flow:
                continue
            flow.add(v)
            if v in params:
                ret_params.add(params[v])
                continue
            d = defs.get(v)
            if d is None:
                return None
            _, op, rest = body[d]
            if op in _COPY_OPS:
                vals = [parse_typed(rest, 0)[1]]
            elif op == "phi":
                vals, i = [], rest.find("[")
                while i >= 0:
                    x, j = parse_value(rest, i + 1)
                    vals.append(x)
                    i = rest.find("[", j)
            elif op == "select":
                items, _ = parse_items(_skip_flags(rest), 0, "\0")
                vals = [x for _, x in items[1:]]
            elif op in ("call", "invoke"):
                site = self._wrapper_site(rest, params)
                if site is None:
                    return None
                sizes.append(site[0])
                ret_params |= site[1]
                copy_params |= site[2]
                continue
            else:
                return None
            for x in vals:
                if x is None:
                    continue
                if x[0] != "%":
                    return None
                work.append(x[1])
        if not sizes:
            return None  # no allocation: not a wrapper
        fresh = flow - params.keys()
        for res, op, rest in body:
            used = [t for t in _LOCAL.findall(rest) if t in fresh]
            if not used or op == "ret" or op == "icmp":
                continue
            if op in _COPY_OPS or op in ("phi", "select"):
                if res in flow:
                    continue
                return None
            if op in ("call", "invoke"):
                m = _CALLEE.search(rest)
                callee = m.group(0)[1:-1] if m is not None and m.group(0)[0] == "@" else None
                target = self.funcs.get(callee) if callee is not None else None
                if target is not None and not target.defined and (
                        model_for(callee) == () or callee.startswith(("llvm.dbg.", "llvm.lifetime."))):
                    continue  # free, memset, printf, ...: no effect on pointers
                return None
            if op == "store":
                m = _STORE_FAST.match(rest)
                if m is not None and m.group(2)[0] not in "%@" and m.group(3)[1:] in fresh:
                    continue
            return None
        return _Wrapper(tuple(sizes), frozenset(ret_params), frozenset(copy_params))

    def _wrapper_site(self, rest: str, params: dict):
        """``(size factors, ret_params, copy_params)`` of an allocation call inside a
        candidate wrapper, or None when the call is not one."""
        m = _CALLEE.search(rest)
        if m is None or m.group(0)[0] != "@":
            return None
        callee = m.group(0)[1:-1]
        items, _ = parse_items(rest, m.end(), ")")

        def arg(k):
            v = items[k][1] if k < len(items) else None
            if v is not None and v[0] == "i":
                return ("i", v[1])
            if v is not None and v[0] == "%" and v[1] in params:
                return ("p", params[v[1]])
            return None

        def factors(which):
            if which is None:
                return None
            out = tuple(arg(k) for k in which)
            return None if None in out else out

        info = self.funcs.get(callee)
        if info is None:
            return None
        if info.defined:
            w = self.wrapper(callee)
            if w is None:
                return None
            mapped = []
            for f in w.sizes:
                if f is not None:
                    f = tuple(x if x[0] == "i" else arg(x[1]) for x in f)
                    f = None if None in f else f
                mapped.append(f)
            rp, cp = set(), set()
            for ks, out in ((w.ret_params, rp), (w.copy_params, cp)):
                for k in ks:
                    v = items[k][1] if k < len(items) else None
                    if v is None:
                        continue  # null
                    if v[0] != "%" or v[1] not in params:
                        return None
                    out.add(params[v[1]])
            # one entry per allocation: an inner wrapper of several sizes is unknown
            return (mapped[0] if len(mapped) == 1 else None), frozenset(rp), frozenset(cp)
        model = model_for(callee)
        if model == (("alloc",),):
            return factors(ALLOC_SIZE_ARGS.get(callee)), frozenset(), frozenset()
        if callee in ("realloc", "reallocarray"):
            v = items[0][1] if items else None
            if v is None:
                return factors(ALLOC_SIZE_ARGS.get(callee)), frozenset(), frozenset()
            if v[0] != "%" or v[1] not in params:
                return None
            k = frozenset((params[v[1]],))
            return factors(ALLOC_SIZE_ARGS.get(callee)), k, k
        return None

    def wrapper_call(self, fn: "_Function", w: _Wrapper, args, args_items, result: int, res: str) -> None:
        """A direct call of allocation wrapper ``w``: the result points to a new
        block of this call site (and may be the arguments in ``ret_params``)."""
        b = self.b
        name = f"{fn.fname}:%{res}"
        obj = self.heap_object(f"*{name}", w.nbytes(args_items), -1 - fn.li)
        b.addr(result, obj)
        for k in sorted(w.ret_params):
            if k < len(args) and args[k] is not None:
                b.copy(result, args[k])
        if w.copy_params:
            t = b.node(f"{name}.new")
            b.addr(t, obj)
            for k in sorted(w.copy_params):
                if k < len(args) and args[k] is not None:
                    self.copy_slots(t, args[k], self.window(None), f"{name}.move{k}")
        self.stats.wrapper_calls += 1

    # ================================================================ finish
    def _finish(self):
        b = self.b
        locs = self._node_locations()
        cs = b.build(locs, self._i2p)
        kinds = Counter(b.kind)
        self.stats.node_kinds = {"value": kinds[VALUE], "object": kinds[OBJECT], "field": kinds[FIELD],
                                 "function": kinds[FUNCTION]}
        self.stats.constraints = {k: cs.count(k) for k in ("addr", "copy", "load", "store", "gep")}
        return cs

    def _node_locations(self) -> list[str]:
        """``file:line`` of every node (``_location`` of each ``Builder.loc``, with the
        common case inlined: a line index whose ``!dbg`` is a ``DILocation``)."""
        seen: dict = {None: ""}  # many nodes share a location (an object's fields, a line's temporaries)
        lines, md, cache, files = self.lines, self.md, self._md_cache, self._md_files
        out = []
        append = out.append
        for x in self.b.loc:
            s = seen.get(x)
            if s is None:
                s = ""
                if x.__class__ is int and x < 0:
                    line = lines[-1 - x]
                    k = line.find("!dbg !")
                    if k > 0:
                        e = line.find(",", k)
                        mid = int(line[k + 6:e] if e > 0 else line[k + 6:])
                        s = cache.get(mid)
                        if s is None:
                            text = md.get(mid, "")
                            m = _MD_DILOC.match(text)
                            if m is not None:
                                scope = int(m.group(2))
                                f = files.get(scope)
                                s = cache[mid] = f"{(f if f is not None else self._md_file(scope)) or '?'}:{m.group(1)}"
                            else:
                                s = self.md_location(mid)
                    else:
                        s = self._location(x)  # an invoke's !dbg is on its second line
                else:
                    s = self._location(x)
                seen[x] = s
            append(s)
        return out

    def _location(self, x) -> str:
        if x is None:
            return ""
        if isinstance(x, str):
            return x
        if x < 0:  # -1 - line index: the !dbg of that instruction
            x = self.line_dbg(-1 - x)
            if x is None:
                return ""
        return self.md_location(x)

    def line_dbg(self, li: int) -> int | None:
        """The ``!dbg`` id attached to line ``li`` (None when there is none)."""
        line = self.lines[li]
        k = line.find("!dbg !")
        if k < 0:
            nxt = self.lines[li + 1] if li + 1 < len(self.lines) else ""
            if not nxt.lstrip().startswith("to label"):  # invoke continues on the next line
                return None
            line = nxt
            k = line.find("!dbg !")
            if k < 0:
                return None
        e = line.find(",", k)
        return int(line[k + 6:e] if e > 0 else line[k + 6:])

    def split_instruction(self, li: int) -> tuple[str, str]:
        """(opcode, operand text without metadata) of the instruction on line ``li``."""
        line = self.lines[li].lstrip()
        if line.startswith("%"):
            line = line[line.find(" = ") + 3:]
        k = line.find(", !")
        if k > 0:
            line = line[:k]
        op, _, rest = line.partition(" ")
        if op in _CALL_PREFIX:
            op, _, rest = rest.partition(" ")
        return op, rest

    def md_location(self, mid: int) -> str:
        """``file:line`` of metadata node ``!mid`` (DILocation, variable, subprogram)."""
        hit = self._md_cache.get(mid)
        if hit is not None:
            return hit
        text = self.md.get(mid, "")
        out = ""
        m = _MD_DILOC.match(text)
        if m is not None:
            f = self._md_file(int(m.group(2)))
            out = f"{f or '?'}:{m.group(1)}"
        elif "DIGlobalVariableExpression" in text:
            m = _MD_VAR.search(text)
            out = self.md_location(int(m.group(1))) if m else ""
        else:
            line = _MD_LINE.search(text)
            if line:
                f = self._md_file(mid)
                out = f"{f}:{line.group(1)}" if f else f"?:{line.group(1)}"
        self._md_cache[mid] = out
        return out

    def _md_file(self, mid: int, depth: int = 0) -> str:
        hit = self._md_files.get(mid)
        if hit is None:
            hit = self._md_files[mid] = self._md_file_uncached(mid, depth)
        return hit

    def _md_file_uncached(self, mid: int, depth: int) -> str:
        text = self.md.get(mid, "")
        if text.startswith("!DIFile") or "DIFile(" in text[:20]:
            m = _MD_FILENAME.search(text)
            return m.group(1) if m else ""
        m = _MD_FILE.search(text)
        if m:
            return self._md_file(int(m.group(1)), depth + 1)
        m = _MD_SCOPE.search(text)
        if m and depth < 50:
            return self._md_file(int(m.group(1)), depth + 1)
        return ""


def _most_slots_in(tables: list, nbytes: int) -> int:
    """The most slots of any of ``tables`` (slot byte offsets, numpy, longest first) that lie
    within ``nbytes`` consecutive bytes; at least 1, at most ``nbytes``. The tables come
    longest first, so the scan stops at the first one too short to beat the best so far."""
    w = 1
    for offs in tables:
        if len(offs) <= w:
            break
        w = max(w, int((np.searchsorted(offs, offs + nbytes) - np.arange(len(offs))).max()))
    return max(1, min(w, nbytes))


def _mentions_local(v) -> bool:
    if v is None:
        return False
    if v[0] == "%":
        return True
    if v[0] == "i" or v[0] == "@":
        return False
    return any(_mentions_local(x) for x in _children(v))


def _children(v):
    tag = v[0]
    if tag == "gep":
        return (v[2],) + tuple(v[3])
    if tag == "cast":
        return (v[2],)
    if tag == "agg":
        return tuple(x for _, x in v[1])
    if tag == "int":
        return tuple(v[1])
    return ()


class _Function:
    """Constraints of one function body."""

    def __init__(self, mod: ModuleExtractor, info: _FuncInfo):
        self.mod = mod
        self.b = mod.b
        self.info = info
        self.fname = info.name
        self.locals: dict[str, int] = {}
        self._defs: dict[str, int] | None = None  # see defs
        self.pending_int: list = []
        self._int_memo: dict[str, tuple] = {}
        self._alloca_obj: dict[str, int] = {}
        self._alloca_type: dict[str, object] = {}
        self.li = -1                          # line index of the instruction being read

    @property
    def dbg(self) -> int | None:
        """The ``!dbg`` metadata id of the current instruction, if any."""
        return self.mod.line_dbg(self.li)

    @property
    def defs(self) -> dict[str, int]:
        """Local name -> line index of its definition (built on first use: only
        integer tracing needs it, and few functions trace integers)."""
        if self._defs is None:
            self._defs = {}
            lines = self.mod.lines
            for li in range(*self.info.body):
                line = lines[li]
                if line.startswith("  %"):
                    eq = line.find(" = ", 3)
                    if eq > 0:
                        self._defs[line[3:eq]] = li
        return self._defs

    def local(self, name: str) -> int:
        node = self.locals.get(name)
        if node is None:
            node = self.b.node(f"{self.fname}:%{name}", VALUE, loc=-1 - self.li)
            self.locals[name] = node
        return node

    def _object_type(self, operand: str):
        """The type of the object ``%x``/``@g`` is the address of (an alloca or global), or None."""
        if operand[0] == "%":
            return self._alloca_type.get(operand[1:])
        return self.mod.global_type.get(operand[1:])

    def _operand(self, text: str) -> int:
        """Node of a plain ``%x`` or ``@g`` operand token."""
        if text[0] == "%":
            name = text[1:]
            node = self.locals.get(name)
            return node if node is not None else self.local(name)
        return self.mod.global_node(text[1:])

    def node_of(self, v):
        if v is None:
            return None
        tag = v[0]
        if tag == "%":
            return self.local(v[1])
        if tag == "@":
            return self.mod.global_node(v[1])
        if tag == "i":
            return None
        return self.mod.const_node(v, self)

    def run(self) -> None:
        mod, b, info = self.mod, self.b, self.info
        F = info.obj
        for k, (ty, name) in enumerate(info.params):
            if name is not None and mod.types.has_ptr(ty):
                b.copy(self.local(name), F + 2 + k)
        if info.name == "main" and len(info.params) >= 2:
            strings = b.obj("*main:argv[]", 1, OBJECT)
            argv = b.obj("*main:argv", 1, OBJECT)
            b.addr(argv, strings)
            b.addr(F + 3, argv)
            if len(info.params) >= 3:
                b.addr(F + 4, argv)
        stats = mod.stats
        opcodes = self.opcodes = {}
        lines = mod.lines
        no_ptr = _NO_POINTER_OPS
        handlers = _HANDLERS
        start, end = info.body
        n_instr = 0
        for li in range(start, end):
            line = lines[li]
            if line[:2] != "  ":
                continue  # labels, blank lines
            c = line[2]
            if c == " " or c == ";" or c == "]":  # debug records, comments, the end of a switch's table
                if line.startswith("#dbg_declare(", 4):
                    m = _DBG_DECLARE.match(line, 4)
                    obj = self._alloca_obj.get(m.group(1)) if m else None
                    if obj is not None:  # the variable's declaration line, not the alloca's
                        b.loc[obj] = int(m.group(2))
                continue
            if c == "%":
                eq = line.find(" = ", 3)
                res = line[3:eq]
                p = eq + 3
            else:
                res = None
                p = 2
            sp = line.find(" ", p)
            op = line[p:sp] if sp > 0 else line[p:]
            if op[-1] == ",":  # "unreachable, !dbg !7"
                op = op[:-1]
            if op in _CALL_PREFIX:
                p = sp + 1
                sp = line.find(" ", p)
                op = line[p:sp]
            n_instr += 1
            opcodes[op] = opcodes.get(op, 0) + 1
            if op in no_ptr:
                continue
            handler = handlers.get(op)
            if handler is None:
                stats.unknown_instructions[op] += 1
                continue
            k = line.find(", !", sp)
            rest = line[sp + 1:k] if k > 0 else line[sp + 1:]
            self.li = li
            handler(self, res, rest)
        stats.instructions += n_instr
        for op, n in opcodes.items():
            stats.opcodes[op] += n
        for item in self.pending_int:
            item()

    # ---------------------------------------------------------- instructions
    def i_alloca(self, res, rest):
        if rest.startswith("inalloca "):
            rest = rest[9:]
        ty, j = parse_type(rest, 0)
        m = _ALLOCA_COUNT.match(rest, j)  # "T, i64 N": N values of T
        count = 1 if m is None else (int(m.group(1)) if m.group(1)[0] != "%" else None)
        slots, reach = self.mod.object_layout(ty, count)
        obj = self.b.obj(f"*{self.fname}:%{res}", slots, OBJECT, loc=-1 - self.li, reach=reach)
        self._alloca_obj[res] = obj
        self._alloca_type[res] = ty
        self.b.addr(self.local(res), obj)

    def i_load(self, res, rest):
        m = _LOAD_FAST.match(rest)
        if m is not None:
            ty = m.group(1)
            if ty == "ptr":
                self.b.load(self.local(res), self._operand(m.group(2)))
                return
            if not self.mod.has_ptr_text(ty):
                return
        i = 0
        while rest.startswith(("atomic ", "volatile "), i):
            i = rest.index(" ", i) + 1
        ty, j = parse_type(rest, i)
        types = self.mod.types
        if not types.has_ptr(ty):
            return
        _, p, _ = parse_typed(rest, j + 1)
        src = self.node_of(p)
        if src is None:
            return
        dst = self.local(res)
        if ty == PTR:
            self.b.load(dst, src)
            return
        for k in types.ptr_slots(ty):
            self.b.load(dst, self.b.offset(src, k, f"{self.fname}:%{res}.slot{k}"))

    def i_store(self, res, rest):
        m = _STORE_FAST.match(rest)
        if m is not None:
            ty, val = m.group(1), m.group(2)
            if ty == "ptr":
                if val[0] in "%@":
                    self.b.store(self._operand(m.group(3)), self._operand(val))
                return
            if not self.mod.has_ptr_text(ty):
                if val[0] == "%" and _carries_bytes(ty):
                    j, sized = m.start(3) - 6, ty == "i64"  # ", ptr " precedes the address
                    self.pending_int.append(lambda: self._store_int(val[1:], rest, j, sized))
                return
        i = 0
        while rest.startswith(("atomic ", "volatile "), i):
            i = rest.index(" ", i) + 1
        ty, v, j = parse_typed(rest, i)
        types = self.mod.types
        if not types.has_ptr(ty):
            if v is not None and v[0] == "%" and isinstance(ty, str) and _carries_bytes(ty):
                sized = ty == "i64"
                self.pending_int.append(lambda: self._store_int(v[1], rest, j, sized))
            return
        val = self.node_of(v)
        if val is None:
            return
        _, p, _ = parse_typed(rest, j + 1)
        dst = self.node_of(p)
        if dst is None:
            return
        if ty == PTR:
            self.b.store(dst, val)
            return
        for k in types.ptr_slots(ty):
            self.b.store(self.b.offset(dst, k, f"{self.fname}.store.slot{k}"), val)

    def _store_int(self, name, rest, j, pointer_sized):
        """An integer store: the pointers the value traces back to are stored. An ``i8``
        only when it is a load stored as it is (a byte of a pointer copied, as a
        hand-written memcpy does; not bytes computed or converted, as a compressor's)."""
        if not pointer_sized:
            d = self.defs.get(name)
            if d is None or self.mod.split_instruction(d)[0] != "load":
                return
        nodes, arith, _ = self.int_sources(name)
        if not nodes:
            return
        _, p, _ = parse_typed(rest, j + 1)
        dst = self.node_of(p)
        if dst is None:
            return
        for n in nodes:
            self.b.store(dst, self.b.smear(n, f"{self.fname}:%{name}.any") if arith else n)

    def i_gep(self, res, rest):
        m = _GEP_FAST.match(rest)
        if m is not None:
            indices = m.group(3)
            # a plan depends on which indices are variable, not on their names
            key = (m.group(1), _GEP_LOCAL.sub("%", indices) if "%" in indices else indices)
            plan = self.mod.gep_plans.get(key)
            if plan is None:
                idx = tuple(("i", int(x)) if x[0] != "%" else ("%", x) for x in _GEP_INDEX.findall(indices))
                plan = self.mod.gep_plans[key] = self.mod.gep_plan(self.mod.type_of_text(m.group(1)), idx)
            base = self._operand(m.group(2))
            dst = self.local(res)
            b = self.b
            off, smear = plan
            if smear and m.group(1) == "i8":  # a byte offset into an object whose type is known
                known = self._object_type(m.group(2))
                if known is not None:
                    idx = _GEP_INDEX.findall(m.group(3))
                    if len(idx) == 1 and idx[0][0] != "%":
                        slot = self.mod.types.byte_to_slot(known, int(idx[0]))
                        if slot is not None:
                            off, smear = slot, False
            if smear:
                b.copy(dst, b.smear(b.offset(base, off, f"{self.fname}:%{res}.gep"), f"{self.fname}:%{res}.any"))
            elif off:
                b.gep(dst, base, off)
            else:
                b.copy(dst, base)
            return
        i = 0
        while True:
            i = skip_ws(rest, i)
            if rest.startswith("inbounds ", i) or rest.startswith("nuw ", i) or rest.startswith("nusw ", i):
                i = rest.index(" ", i) + 1
            elif rest.startswith("inrange(", i):
                i = skip_group(rest, i + 7)
            else:
                break
        ty, j = parse_type(rest, i)
        items, _ = parse_items(rest, j + 1 if rest[j] == "," else skip_ws(rest, j) + 1, "\0")
        base = self.node_of(items[0][1])
        if base is None:
            return
        name = f"{self.fname}:%{res}"
        node = self.mod.gep_node(ty, base, tuple(v for _, v in items[1:]), name + ".gep")
        self.b.copy(self.local(res), node)

    def i_copy(self, res, rest):
        ty, v, _ = parse_typed(rest, 0)
        if self.mod.types.has_ptr(ty):
            src = self.node_of(v)
            if src is not None:
                self.b.copy(self.local(res), src)

    def i_phi(self, res, rest):
        if rest.startswith("ptr ["):
            vals = _PHI_FAST.findall(rest)
            if len(vals) == rest.count("["):
                dst = self.local(res)
                for v in vals:
                    if v[0] in "%@":
                        self.b.copy(dst, self._operand(v))
                return
        rest = _skip_flags(rest)
        ty, i = parse_type(rest, 0)
        if not self.mod.types.has_ptr(ty):
            return
        dst = self.local(res)
        n = len(rest)
        while True:
            i = rest.find("[", i)
            if i < 0:
                break
            v, i = parse_value(rest, i + 1)
            src = self.node_of(v)
            if src is not None:
                self.b.copy(dst, src)
            i = rest.find("]", i)
            if i < 0 or i >= n:
                break

    def i_select(self, res, rest):
        items, _ = parse_items(_skip_flags(rest), 0, "\0")
        if len(items) < 3 or not self.mod.types.has_ptr(items[1][0]):
            return
        dst = self.local(res)
        for _, v in items[1:]:
            src = self.node_of(v)
            if src is not None:
                self.b.copy(dst, src)

    def i_extractvalue(self, res, rest):
        self.i_copy(res, rest)

    def i_insertvalue(self, res, rest):
        ty, agg, j = parse_typed(rest, 0)
        if not self.mod.types.has_ptr(ty):
            return
        _, v, _ = parse_typed(rest, skip_ws(rest, j) + 1)  # then untyped indices
        dst = self.local(res)
        for v in (agg, v):
            src = self.node_of(v)
            if src is not None:
                self.b.copy(dst, src)

    def i_vector(self, res, rest):
        items, _ = parse_items(rest, 0, "\0")
        if not items or not self.mod.types.has_ptr(items[0][0]):
            return
        dst = self.local(res)
        for ty, v in items:
            if self.mod.types.has_ptr(ty):
                src = self.node_of(v)
                if src is not None:
                    self.b.copy(dst, src)

    def i_ptrtoint(self, res, rest):
        ty, v, _ = parse_typed(rest, 0)
        src = self.node_of(v)
        if src is not None:
            self.mod.escape(src)

    def i_inttoptr(self, res, rest):
        ty, v, _ = parse_typed(rest, 0)
        dst = self.local(res)

        def later():
            if v is not None and v[0] == "%":
                sources = self.int_sources(v[1])
            else:
                sources = self.mod._const_int_sources(v, self)
            self.b.copy(dst, self.mod.int_to_ptr_node(sources, f"{self.fname}:%{res}.int"))
        self.pending_int.append(later)

    def i_ret(self, res, rest):
        if rest.startswith("void"):
            return
        ty, v, _ = parse_typed(rest, 0)
        if self.mod.types.has_ptr(ty):
            src = self.node_of(v)
            if src is not None:
                self.b.copy(self.info.obj + 1, src)

    def i_cmpxchg(self, res, rest):
        rest = skip_words(rest, ("weak", "volatile"))
        items, _ = parse_items(rest, 0, "\0")
        if len(items) >= 3 and items[2][0] == "i64":
            self._int_exchange(items[0][1], items[2][1])
            return
        if len(items) >= 3:
            self._swap(res, items[2][0], items[0][1], items[2][1])

    def i_atomicrmw(self, res, rest):
        rest = skip_words(rest, ("volatile",))
        sp = rest.index(" ")
        items, _ = parse_items(rest[sp + 1:], 0, "\0")
        if len(items) >= 2 and items[1][0] == "i64" and rest.startswith("xchg "):
            self._int_exchange(items[0][1], items[1][1])
            return
        if len(items) >= 2:
            self._swap(res, items[1][0], items[0][1], items[1][1])

    def _swap(self, res, ty, ptr, val):
        """``res = *ptr; *ptr = val`` for an atomic exchange of a value of type ``ty`` (cmpxchg's
        new value, atomicrmw's operand); nothing unless ``ty`` can hold a pointer."""
        if not self.mod.types.has_ptr(ty):
            return
        p, v = self.node_of(ptr), self.node_of(val)
        if p is None:
            return
        self.b.load(self.local(res), p)
        if v is not None:
            self.b.store(p, v)

    def _int_exchange(self, p, v):
        """An atomic exchange of a pointer-sized integer: the new value is stored
        as a pointer when it traces back to one (the old one is traced on demand)."""
        def later():
            dst = self.node_of(p)
            if dst is None or v is None or v[0] != "%":
                return
            nodes, arith, _ = self.int_sources(v[1])
            for n in nodes:
                self.b.store(dst, self.b.smear(n, f"{self.fname}:xchg.any") if arith else n)
        self.pending_int.append(later)

    def i_va_arg(self, res, rest):
        ty, v, j = parse_typed(rest, 0)
        rty, _ = parse_type(rest, skip_ws(rest, j) + 1)
        ap = self.node_of(v)
        if ap is None or not self.mod.types.has_ptr(rty):
            return
        b = self.b
        name = f"{self.fname}:%{res}"
        area = b.node(name + ".va_area")
        b.load(area, b.smear(ap, name + ".va_list"))
        b.load(self.local(res), b.smear(area, name + ".va_args"))

    def i_landingpad(self, res, rest):
        self.b.copy(self.local(res), self.mod.exception)

    def i_resume(self, res, rest):
        ty, v, _ = parse_typed(rest, 0)
        src = self.node_of(v)
        if src is not None:
            self.b.copy(self.mod.exception, src)

    # ----------------------------------------------------------------- calls
    def i_call(self, res, rest):
        mod, b = self.mod, self.b
        if " asm " in rest or rest.startswith("asm "):
            mod.stats.inline_asm += 1
            return
        m = _CALLEE.search(rest)
        if m is None:
            raise InputError(f"cannot find the callee in call: {rest[:80]!r}")
        callee_text = m.group(0)[:-1]
        prefix = rest[:m.start()].rstrip()
        args_items = self._simple_args(rest, m.end())
        if args_items is None:
            args_items, _ = parse_items(rest, m.end(), ")")
        # the call's function type, when printed: "RET (PARAMS)" before the callee
        nfixed = None
        if prefix.endswith(")"):
            depth, k = 0, len(prefix) - 1
            while k >= 0:
                if prefix[k] == ")":
                    depth += 1
                elif prefix[k] == "(":
                    depth -= 1
                    if depth == 0:
                        break
                k -= 1
            if k > 0 and prefix[k - 1] == " ":
                fnty = prefix[k:]
                if "..." in fnty:
                    nfixed = fnty.count(",")  # "(T, T, ...)" has nfixed commas
                prefix = prefix[:k].rstrip()
        ret_ptr = res is not None and _ends_with_ptr_type(prefix, mod.types)
        result = self.local(res) if ret_ptr else None
        types = mod.types
        args = [self.node_of(v) if types.has_ptr(ty) else None for ty, v in args_items]
        if callee_text[0] == "%":
            fp = self.local(callee_text[1:])
            mod.indirect_call(fp, args, result, nfixed, f"{self.fname}:%{res or 'call'}.icall")
            return
        callee = callee_text[1:]
        info = mod.funcs.get(callee)
        if info is None:  # an alias or a global used as a function
            mod.indirect_call(mod.global_node(callee), args, result, nfixed, f"{self.fname}:call.{callee}")
            return
        if info.defined:
            F, np_ = info.obj, len(info.params)
            for k, a in enumerate(args):
                if a is None:
                    continue
                if k < np_:
                    b.copy(F + 2 + k, a)
                elif info.vararg:
                    b.copy(info.va_slot, a)
            if result is not None:
                w = mod.wrapper(callee) if info.ret_ptr and mod.clone_alloc_wrappers else None
                if w is None:
                    b.copy(result, F + 1)
                else:
                    mod.wrapper_call(self, w, args, args_items, result, res)
            return
        self._external(callee, info, args, args_items, result, res)

    def _simple_args(self, rest: str, j: int):
        """``(type, value)`` of each argument when the list is plain (no nested
        brackets, strings or constant expressions); None otherwise."""
        close = rest.find(")", j)
        text = rest[j:close]
        if not text:
            return ()
        if "(" in text or '"' in text or "{" in text or "<" in text or "[" in text:
            return None
        items = []
        for piece in text.split(", "):
            sp = piece.find(" ")
            ty = piece[:sp]
            v = piece[piece.rfind(" ") + 1:]
            c = v[0]
            if c == "%" or c == "@":
                val = (c, v[1:])
            elif c.isdigit() or c == "-":
                try:
                    val = ("i", int(v))
                except ValueError:
                    val = None
            elif v in ("null", "undef", "poison", "zeroinitializer", "true", "false", "none") or \
                    ty == "metadata":
                val = None
            else:
                return None  # a constant expression word: use the full parser
            items.append((ty if ty == "ptr" else self.mod.type_of_text(ty), val))
        return items

    def _external(self, callee, info, args, args_items, result, res):
        mod, b = self.mod, self.b
        check = callee if callee in ALIAS_CHECKS else None
        if check is None:
            mm = _MANGLED.match(callee)  # _Z8MAYALIASPvS_
            if mm and callee[mm.end(1):mm.end(1) + int(mm.group(1))] in ALIAS_CHECKS:
                check = callee[mm.end(1):mm.end(1) + int(mm.group(1))]
        if check is not None:
            nodes = [a if a is not None else b.node(f"{self.fname}:null") for a in args[:2]]
            if len(nodes) == 2:
                loc = mod.md_location(self.dbg) if self.dbg is not None else ""
                mod.stats.alias_checks.append(AliasCheck(check, nodes[0], nodes[1], loc or self.fname, self.fname))
            return
        model = model_for(callee)
        name = f"{self.fname}:%{res}" if res else f"{self.fname}:{callee}()"
        if model is None:
            if result is None and not any(mod.types.has_ptr(ty) for ty, _ in args_items):
                return  # no pointer in, none out: nothing to model, nothing to report
            mod.stats.unmodelled_calls[callee] += 1
            # functions handed to unknown code may be called back with what it was given
            fargs = [v[1] for _, v in args_items if v is not None and v[0] == "@" and v[1] in mod.funcs]
            for f in fargs:
                mod.stats.callbacks[(callee, f)] += 1
            mod.unmodelled(callee, args, result, name, [mod.funcs[f] for f in fargs])
            return

        def const_arg(k):
            v = args_items[k][1] if k < len(args_items) else None
            return v[1] if v is not None and v[0] == "i" else None

        mod.apply_model(callee, model, args, const_arg, result, name, -1 - self.li, self)

    # ------------------------------------------------------ integer tracing
    def int_sources(self, name: str):
        """Trace integer ``%name`` back to pointers: ``(nodes, arithmetic, opaque)``.

        ``nodes`` hold the pointers the integer may have come from (through
        ``ptrtoint``, or loads, which may read a pointer stored in memory);
        ``arithmetic`` says an offset may have been added; ``opaque`` says some
        path reaches an integer of unknown origin (argument, call result).
        """
        memo = self._int_memo.get(name)
        if memo is not None:
            return memo
        self._int_memo[name] = ([], False, False)  # cycles through phi: no new sources
        d = self.defs.get(name)
        result: tuple = ([], False, True)
        if d is not None:
            op, rest = self.mod.split_instruction(d)
            if op == "ptrtoint":
                _, v, _ = parse_typed(rest, 0)
                n = self.node_of(v)
                result = ([n] if n is not None else []), False, False
            elif op in ("add", "sub", "or", "and", "xor", "mul", "shl", "lshr", "ashr", "udiv", "sdiv",
                        "urem", "srem", "trunc", "zext", "sext", "bitcast", "freeze", "select", "phi"):
                vals = self._int_operands(op, rest)
                nodes, arith, opaque = [], op not in ("trunc", "zext", "sext", "bitcast", "freeze", "select",
                                                      "phi"), False
                for v in vals:
                    if v is None or v[0] == "i":
                        continue
                    if v[0] == "%":
                        ns, ar, opq = self.int_sources(v[1])
                    else:
                        ns, ar, opq = self.mod._const_int_sources(v, self)
                    nodes += ns
                    arith |= ar
                    opaque |= opq
                result = list(dict.fromkeys(nodes)), arith, opaque  # once each: diamonds would repeat them
            elif op == "extractvalue":
                _, v, _ = parse_typed(rest, 0)
                if v is not None and v[0] == "%":
                    result = self.int_sources(v[1])
            elif op in ("load", "atomicrmw", "cmpxchg"):
                r = skip_words(rest, ("atomic", "volatile", "weak", "xchg", "add", "sub", "and", "or", "xor",
                                       "nand", "max", "min", "umax", "umin"))
                if op == "load":
                    _, j = parse_type(r, 0)
                    _, p, _ = parse_typed(r, j + 1)
                else:
                    _, p, _ = parse_typed(r, 0)
                src = self.node_of(p)
                if src is not None:
                    t = self.b.node(f"{self.fname}:%{name}.asptr")
                    self.b.load(t, src)
                    result = [t], False, False
                else:
                    result = [], False, False
        self._int_memo[name] = result
        return result

    def _int_operands(self, op, rest):
        if op == "phi":
            i = rest.find("[")
            out = []
            while i >= 0:
                v, j = parse_value(rest, i + 1)
                out.append(v)
                i = rest.find("[", j)
            return out
        if op == "select":
            items, _ = parse_items(_skip_flags(rest), 0, "\0")
            return [v for _, v in items[1:]]
        rest = skip_words(rest, ("nuw", "nsw", "exact", "disjoint", "nneg"))
        if op in ("trunc", "zext", "sext", "bitcast", "freeze"):
            _, v, _ = parse_typed(rest, 0)
            return [v]
        ty, j = parse_type(rest, 0)
        a, j = parse_value(rest, j)
        j = skip_ws(rest, j)
        bv, _ = parse_value(rest, j + 1)
        return [a, bv]


_VAL = r'[%@](?:[-\w$.]+|"[^"]*")'
_LOAD_FAST = re.compile(r"(?:atomic |volatile )*([^ ,{<\[]+), ptr (" + _VAL + r")(?:,|$| )")
_STORE_FAST = re.compile(r"(?:atomic |volatile )*([^ ,{<\[]+) (" + _VAL + r"|null|undef|poison|-?\d+|true|false|"
                         r"zeroinitializer), ptr (" + _VAL + r")(?:,|$| )")
_GEP_FAST = re.compile(r"(?:inbounds |nuw |nusw )*([^,{<]+?), ptr (" + _VAL + r")((?:, i\d+ (?:-?\d+|%[-\w$.]+))*)$")
_ALLOCA_COUNT = re.compile(r", i\d+ (-?\d+|%[-\w$.]+|%\"[^\"]*\")")
_GEP_INDEX = re.compile(r", i\d+ (-?\d+|%[-\w$.]+)")
_GEP_LOCAL = re.compile(r"%[-\w$.]+")
_LOCAL = re.compile(r'%("[^"]*"|[-\w$.]+)')
_PHI_FAST = re.compile(r"\[ (" + _VAL + r"|null|undef|poison), %")
_FAST_MATH = ("fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc")


def _carries_bytes(ty: str) -> bool:
    """Whether a stored integer of type ``ty`` may carry a pointer or a byte of one:
    ``i64``, and ``i8`` (a byte-by-byte copy moves a pointer one ``i8`` at a time;
    ``i16``/``i32`` copies are mostly of int fields, and copying what their slots hold
    costs more precision than copies of pointers in them are common)."""
    return ty == "i64" or ty == "i8"


def _skip_flags(s: str) -> str:
    return skip_words(s, _FAST_MATH)


def _ends_with_ptr_type(prefix: str, types: TypeTable) -> bool:
    """Whether the return type that ends ``prefix`` can hold a pointer."""
    if prefix.endswith("ptr"):
        return True
    if not prefix:
        return False
    last = prefix[-1]
    if last in "}]>":
        opener = {"}": "{", "]": "[", ">": "<"}[last]
        depth, k = 0, len(prefix) - 1
        while k >= 0:
            if prefix[k] == last:
                depth += 1
            elif prefix[k] == opener:
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        if last == "}" and k > 0 and prefix[k - 1] == "<":
            k -= 1
        text = prefix[k:]
    elif last == ")":  # ptr addrspace(N)
        return "ptr addrspace(" in prefix[-30:]
    else:
        text = prefix.rsplit(" ", 1)[-1]
    if text.startswith("%"):
        return types.has_ptr(("N", text[1:]))
    if "ptr" in text:
        return True
    return False


_HANDLERS = {
    "alloca": _Function.i_alloca, "load": _Function.i_load, "store": _Function.i_store,
    "getelementptr": _Function.i_gep, "bitcast": _Function.i_copy, "addrspacecast": _Function.i_copy,
    "freeze": _Function.i_copy, "phi": _Function.i_phi, "select": _Function.i_select,
    "extractvalue": _Function.i_extractvalue, "insertvalue": _Function.i_insertvalue,
    "extractelement": _Function.i_vector, "insertelement": _Function.i_vector,
    "shufflevector": _Function.i_vector, "ptrtoint": _Function.i_ptrtoint, "inttoptr": _Function.i_inttoptr,
    "ret": _Function.i_ret, "cmpxchg": _Function.i_cmpxchg, "atomicrmw": _Function.i_atomicrmw,
    "va_arg": _Function.i_va_arg, "landingpad": _Function.i_landingpad, "resume": _Function.i_resume,
    "call": _Function.i_call, "invoke": _Function.i_call, "callbr": _Function.i_call,
}
