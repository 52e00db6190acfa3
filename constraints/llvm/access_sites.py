"""Memory-access sites: where a program reads and writes memory, and through which nodes.

While extracting constraints (``extract_with_stats(..., record_sites=True)``)
the front end records every ``load``, ``store``, ``atomicrmw``/``cmpxchg``,
memory intrinsic (``llvm.memcpy``/``memmove``/``memset``) and call of each
defined function. A site is keyed by a **stable id** that survives re-printing
the module with another LLVM version:

``(function, block, index)``
    ``block`` is the block's label as printed (``entry``, ``for.body``, ``5``);
    an entry block printed without a label gets the number LLVM gives it (the
    count of unnamed arguments). ``index`` counts the block's instructions from
    0, leaving out debug records (``#dbg_value``) and calls to ``@llvm.dbg.*``,
    which older printers show as instructions.

For each site the table holds its kind, ``file:line`` (from ``!dbg``), the
pointer operand as written (``%p``, ``@g``), the node of every pointer operand
(``-1``: no node, e.g. ``null`` or a value that never holds a pointer) and the
number of field slots one access may touch from each pointee (``0``: all slots
to the end of the object). Calls also record how their callee is known (see
:data:`CALL_CLASSES`), the callee's name or the node of the function pointer,
and the node of a pointer result.

:func:`walk_function` is the one definition of the ``(block, index)`` numbering;
the annotator (``andersen_gpu.aliasfacts.annotate``) walks the user's own IR text
with it, so both sides agree on every id. This module reads text only: it does
not import llvmlite.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Iterator

from .irtext import parse_items, parse_typed, skip_words, skip_ws
from .types import parse_type

#: Kinds of access site.
SITE_KINDS = ("load", "store", "atomic", "memcpy", "memmove", "memset", "call")
#: Kinds whose location set the annotator attaches scoped-noalias metadata to.
ACCESS_KINDS = frozenset(("load", "store", "atomic", "memcpy", "memmove", "memset"))

#: How a call's callee is known.
#: ``defined``: a function of the program; ``indirect``: through a pointer
#: (``fp`` is its node); ``modelled``: an external with a model; ``unmodelled``:
#: an external without one (its effects are unknown); ``asm``: inline assembly;
#: ``intrinsic``: another ``llvm.*`` intrinsic; ``assertion``: MAYALIAS and friends.
CALL_CLASSES = ("defined", "indirect", "modelled", "unmodelled", "asm", "intrinsic", "assertion")

_LABEL = re.compile(r'("(?:[^"\\]|\\.)*"|[-\w$.]+):')
_CALLEE = re.compile(r'[%@](?:"[^"]*"|[-\w$.]+)\(')
_MEM_INTRINSIC = re.compile(r"llvm\.(memcpy|memmove|memset)(?:\.inline)?\.")
_ALLOCA_LITERAL = re.compile(r"= alloca (?:inalloca )?((?:\[\d+ x )*<?\{[^=\n]*?\}>?\]*)(?:, |$)", re.M)
_DEFINE = re.compile(r'@("[^"]*"|[-\w$.]+)\(')
_CALL_PREFIX = ("tail ", "musttail ", "notail ")


@dataclass
class AccessSites:
    """Columns of the recorded access sites, one entry per site (see module docstring).

    Attributes
    ----------
    function, block : str per site
    index : int per site (position in the block, debug records not counted)
    kind : one of :data:`SITE_KINDS`
    location : ``file:line`` or ""
    pointer : the pointer operand(s) as written, ``", "``-separated (calls: the callee)
    node_indptr, nodes : CSR of the nodes of each site's pointer operands
        (load/store/atomic: the address; memcpy/memmove: destination then
        source; memset: destination; call: every pointer argument); -1 = no node
    width : slots one access may touch from each pointee (0: to the object's end)
    call_class : one of :data:`CALL_CLASSES` for calls, "" otherwise
    callee : a direct callee's name ("" otherwise)
    fp : node of an indirect call's function pointer (-1 otherwise)
    result : node of a call's pointer result (-1 otherwise)
    function_class : every function of the module (defined or declared) by name,
        classified like a direct call to it (:data:`CALL_CLASSES`); indirect calls
        are resolved through it
    """

    function: list[str] = field(default_factory=list)
    block: list[str] = field(default_factory=list)
    index: list[int] = field(default_factory=list)
    kind: list[str] = field(default_factory=list)
    location: list[str] = field(default_factory=list)
    pointer: list[str] = field(default_factory=list)
    node_indptr: list[int] = field(default_factory=lambda: [0])
    nodes: list[int] = field(default_factory=list)
    width: list[int] = field(default_factory=list)
    call_class: list[str] = field(default_factory=list)
    callee: list[str] = field(default_factory=list)
    fp: list[int] = field(default_factory=list)
    result: list[int] = field(default_factory=list)
    function_class: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.function)

    def add(self, function, block, index, kind, location, pointer, nodes, width,
            call_class="", callee="", fp=-1, result=-1) -> None:
        """Append one site (arguments as the attributes above; ``nodes`` a sequence)."""
        self.function.append(function)
        self.block.append(block)
        self.index.append(index)
        self.kind.append(kind)
        self.location.append(location)
        self.pointer.append(pointer)
        self.nodes.extend(nodes)
        self.node_indptr.append(len(self.nodes))
        self.width.append(width)
        self.call_class.append(call_class)
        self.callee.append(callee)
        self.fp.append(fp)
        self.result.append(result)

    def operand_nodes(self, i: int) -> list[int]:
        """The pointer-operand nodes of site ``i``."""
        return self.nodes[self.node_indptr[i]:self.node_indptr[i + 1]]

    def key(self, i: int) -> tuple[str, str, int]:
        """The stable id ``(function, block, index)`` of site ``i``."""
        return self.function[i], self.block[i], self.index[i]


# ------------------------------------------------------------------ numbering
def entry_label(header: str) -> str:
    """Label of a function's entry block when the printer omits it.

    LLVM numbers unnamed values in order, arguments first, so an unlabelled
    entry block is ``%N`` with ``N`` the number of unnamed arguments.
    """
    m = _DEFINE.search(header)
    i = skip_ws(header, m.end())
    unnamed = 0
    while i < len(header) and not header.startswith(")", i):
        if header.startswith("...", i):
            i += 3
        else:
            _, v, i = parse_typed(header, i)
            if v is not None and v[0] == "%" and v[1].isdigit():
                unnamed += 1
        i = skip_ws(header, i)
        if header.startswith(",", i):
            i = skip_ws(header, i + 1)
    return str(unnamed)


def function_name(header: str) -> str:
    """The name of the function a ``define``/``declare`` line introduces (no ``@``)."""
    return _DEFINE.search(header).group(1)


def walk_function(lines: list[str], start: int, end: int, entry: str) -> Iterator[tuple[str, int, int]]:
    """Yield ``(block, index, line)`` for every instruction of a body.

    Parameters
    ----------
    lines : the module's lines
    start, end : the body's line range (after the ``define`` line, up to its ``}``)
    entry : the entry block's label if it is not printed (:func:`entry_label`)
    """
    block, index = entry, 0
    for li in range(start, end):
        line = lines[li]
        if line[:2] != "  ":
            m = _LABEL.match(line)
            if m is not None:
                block, index = m.group(1), 0
            continue
        c = line[2]
        if c == " " or c == ";" or c == "]":  # debug records, comments, a switch table's tail
            continue
        if "@llvm.dbg." in line and _is_dbg_call(line):
            continue
        if line.lstrip().startswith("to label") or line.lstrip().startswith("unwind "):
            continue  # an invoke's continuation line
        yield block, index, li
        index += 1


def _is_dbg_call(line: str) -> bool:
    s = line.lstrip()
    for p in _CALL_PREFIX:
        if s.startswith(p):
            s = s[len(p):]
    return s.startswith("call void @llvm.dbg.")


def function_bodies(lines: list[str]) -> Iterator[tuple[str, int, int, str]]:
    """Yield ``(name, start, end, entry label)`` of every ``define`` in a module's lines."""
    n = len(lines)
    i = 0
    while i < n:
        line = lines[i]
        if line.startswith("define "):
            try:
                close = lines.index("}", i)
            except ValueError:
                return
            yield function_name(line), i + 1, close, entry_label(line)
            i = close
        i += 1


def opcode_of(line: str) -> str:
    """The opcode of an instruction line (``call`` for ``tail call``)."""
    s = line.lstrip()
    if s.startswith("%"):
        s = s[s.find(" = ") + 3:]
    for p in _CALL_PREFIX:
        if s.startswith(p):
            s = s[len(p):]
            break
    sp = s.find(" ")
    op = s[:sp] if sp > 0 else s
    return op.rstrip(",")


# ------------------------------------------------------------------ recording
class SiteRecorder:
    """Records the access sites of each function after the extractor has read it.

    Parameters
    ----------
    mod : the :class:`~constraints.llvm.extractor.ModuleExtractor` (for its types,
        debug locations, global nodes and constant expressions)
    """

    def __init__(self, mod):
        self.mod = mod
        self.sites = AccessSites()
        self._windows: dict[int, int] = {}
        self._literals: list | None = None

    def scan(self, fn) -> None:
        """Record the sites of one function body (``fn`` a finished ``_Function``)."""
        mod, info = self.mod, fn.info
        if not self.sites.function_class:
            self.sites.function_class.update((name, _callee_class(mod, name)) for name in mod.funcs)
        start, end = info.body
        header = mod.lines[start - 1]
        for block, index, li in walk_function(mod.lines, start, end, entry_label(header)):
            op, rest = mod.split_instruction(li)
            if op in ("load", "store", "atomicrmw", "cmpxchg", "call", "invoke", "callbr"):
                self._record(fn, block, index, li, op, rest)

    def _node(self, fn, v) -> int:
        """Node of operand ``v`` without creating one for a local that never got one."""
        if v is None or v[0] == "i":
            return -1
        if v[0] == "%":
            return fn.locals.get(v[1], -1)
        node = fn.node_of(v)
        return -1 if node is None else node

    def _location(self, li: int) -> str:
        dbg = self.mod.line_dbg(li)
        return self.mod.md_location(dbg) if dbg is not None else ""

    def _width(self, ty) -> int:
        """Slots an access of type ``ty`` may cover: its own slots when it matches the
        field it lands on, else as many as its bytes can span in any type."""
        types = self.mod.types
        return max(types.n_slots(ty), self._window(max(1, types.size_align(ty)[0])))

    def _window(self, nbytes: int) -> int:
        """Most slots within ``nbytes`` bytes of any object: the extractor's bound over
        named structs and globals, widened by the literal struct types of allocas."""
        w = self._windows.get(nbytes)
        if w is None:
            if self._literals is None:
                self._literals = [parse_type(t, 0)[0] for t in set(_ALLOCA_LITERAL.findall(self.mod.text))]
            w = self.mod.window(nbytes)
            for ty in self._literals:
                offs = self.mod.types.slot_byte_offsets(ty)
                for j, o in enumerate(offs):
                    w = max(w, bisect_left(offs, o + nbytes) - j)
            self._windows[nbytes] = w
        return w

    def _record(self, fn, block, index, li, op, rest) -> None:
        add = self.sites.add
        where = (fn.fname, block, index)
        if op == "load":
            rest = skip_words(rest, ("atomic", "volatile"))
            ty, j = parse_type(rest, 0)
            _, p, k = parse_typed(rest, skip_ws(rest, j) + 1)
            add(*where, "load", self._location(li), _token(rest, j, k), [self._node(fn, p)], self._width(ty))
        elif op == "store":
            rest = skip_words(rest, ("atomic", "volatile"))
            ty, _, j = parse_typed(rest, 0)
            _, p, k = parse_typed(rest, skip_ws(rest, j) + 1)
            add(*where, "store", self._location(li), _token(rest, j, k), [self._node(fn, p)], self._width(ty))
        elif op in ("atomicrmw", "cmpxchg"):
            rest = skip_words(rest, ("weak", "volatile"))
            if op == "atomicrmw":
                rest = rest[rest.index(" ") + 1:]  # the operation: xchg, add, ...
            _, p, j = parse_typed(rest, 0)
            ty, _, _ = parse_typed(rest, skip_ws(rest, j) + 1)
            add(*where, "atomic", self._location(li), _token(rest, -1, j), [self._node(fn, p)], self._width(ty))
        else:
            self._record_call(fn, where, li, rest)

    def _record_call(self, fn, where, li, rest) -> None:
        mod = self.mod
        loc = self._location(li)
        res = mod.lines[li].lstrip()
        res = res[1:res.find(" = ")] if res.startswith("%") else None
        result = fn.locals.get(res, -1) if res is not None else -1
        if " asm " in rest or rest.startswith("asm "):
            self.sites.add(*where, "call", loc, "asm", [], 0, "asm", "", -1, result)
            return
        m = _CALLEE.search(rest)
        callee_text = m.group(0)[:-1]
        items, _ = parse_items(rest, m.end(), ")")
        ptr_args = [self._node(fn, v) for ty, v in items if mod.types.has_ptr(ty)]
        callee = callee_text[1:]
        mi = _MEM_INTRINSIC.match(callee)
        if mi is not None:
            kind = mi.group(1)
            n_ops = 1 if kind == "memset" else 2
            size = items[2][1] if len(items) > 2 else None
            nbytes = size[1] if size is not None and size[0] == "i" else None
            width = self._window(nbytes) if nbytes is not None and nbytes > 0 else 0
            ops = ", ".join(_value_text(v) for _, v in items[:n_ops])
            self.sites.add(*where, kind, loc, ops, ptr_args[:n_ops], width)
            return
        if callee_text[0] == "%":
            cls, name, fp = "indirect", "", fn.locals.get(callee, -1)
        else:
            name, fp = callee, -1
            cls = _callee_class(mod, callee)
            if cls == "indirect":  # an alias or a global called as a function
                fp, name = mod.global_node(callee), ""
        self.sites.add(*where, "call", loc, callee_text, ptr_args, 0, cls, name, fp, result)


def _callee_class(mod, callee: str) -> str:
    from .externals import ALIAS_CHECKS, model_for

    info = mod.funcs.get(callee)
    if info is None:
        return "indirect"
    if info.defined:
        return "defined"
    bare = callee
    mm = re.match(r"_Z(\d+)", callee)
    if mm:
        bare = callee[mm.end(1):mm.end(1) + int(mm.group(1))]
    if callee in ALIAS_CHECKS or bare in ALIAS_CHECKS:
        return "assertion"
    if model_for(callee) is not None:
        return "modelled"
    if callee.startswith("llvm."):
        return "intrinsic"
    return "unmodelled"


def _token(rest: str, j: int, k: int) -> str:
    """The value text of the typed operand ending at ``k`` (``ptr %p`` gives ``%p``)."""
    text = rest[j + 1:k].strip() if j >= 0 else rest[:k].strip()
    return text.rsplit(" ", 1)[-1] if not text.endswith(")") else text.split(" ", 1)[-1]


def _value_text(v) -> str:
    if v is None:
        return "null"
    if v[0] in "%@":
        return v[0] + v[1]
    return "<const>"
