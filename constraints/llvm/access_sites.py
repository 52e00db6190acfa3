"""Memory-access sites: where a program reads and writes memory, and through which nodes.

While extracting constraints (``extract_with_stats(..., record_sites=True)``)
the front end (``reader/extract.cpp``, ``read_bitcode --sites``) records every
``load``, ``store``, ``atomicrmw``/``cmpxchg``, memory intrinsic
(``llvm.memcpy``/``memmove``/``memset``) and call of each defined function. A
site is keyed by a **stable id** that survives re-printing the module with
another LLVM version:

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

:func:`walk_function` numbers the instructions of a function in IR text the same
way; the annotator (``andersen_gpu.aliasfacts.annotate``) walks the user's own IR
text with it, so both sides agree on every id.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Iterator


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
_DEFINE = re.compile(r'@("[^"]*"|[-\w$.]+)\(')
_UNNAMED = re.compile(r"%\d+$")
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
    entry block is ``%N`` with ``N`` the number of unnamed arguments (each
    parameter is printed ``TYPE [ATTRIBUTES] %NAME``, a numbered one ``%K``).
    """
    m = _DEFINE.search(header)
    unnamed = 0
    for param in top_level_parts(header, m.end()):   # the define's parameters
        words = param.split()
        if words and _UNNAMED.match(words[-1]):
            unnamed += 1
    return str(unnamed)


def top_level_parts(text: str, i: int = 0) -> list[str]:
    """The comma-separated parts of ``text`` from ``i`` on (as they are, not stripped), split
    outside brackets and quotes, up to its end or to the first closing bracket that no opening
    one after ``i`` matches (the ``)`` of an argument list that started just before ``i``)."""
    parts, depth, start, quoted = [], 0, i, False
    for k in range(i, len(text)):
        c = text[k]
        if quoted:
            quoted = c != '"'
        elif c == '"':
            quoted = True
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            if depth == 0:
                parts.append(text[start:k])
                return parts
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return parts


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
