"""Scanning pieces of textual LLVM IR: values, typed values, argument lists.

Values are parsed into small hashable tuples, resolved to nodes by the
extractor:

* ``("%", name)`` a local value, ``("@", name)`` a global (variable, function, alias)
* ``("i", k)`` an integer constant; ``None`` a constant that holds no pointer
  (``null``, ``undef``, floats, strings, ``zeroinitializer``, ``blockaddress``)
* ``("agg", items)`` an aggregate constant, ``items`` a tuple of values
* ``("gep", type, base, indices)`` a ``getelementptr`` constant expression
* ``("cast", op, value)`` a cast constant expression (``bitcast``, ``inttoptr``, ...)
* ``("int", items)`` any other constant expression (integer arithmetic, ``select``)
"""

from __future__ import annotations

import re

from ..errors import InputError
from .types import parse_type

NAME = re.compile(r'[%@](?:"[^"]*"|[-\w$.]+)')
NUM = re.compile(r"-?(?:0x[0-9A-Fa-fKLMHR]+|[\d.]+(?:e[+-]?\d+)?)")
WORD = re.compile(r"[A-Za-z_][\w.]*")
NO_PTR_WORDS = frozenset(("null", "undef", "poison", "zeroinitializer", "none", "blockaddress"))
CASTS = frozenset(("bitcast", "addrspacecast", "ptrtoint", "inttoptr", "trunc", "zext", "sext", "fptrunc",
                   "fpext", "fptoui", "fptosi", "uitofp", "sitofp"))
EXPR_WORDS = frozenset(("add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "icmp", "fcmp",
                        "select", "extractelement", "insertelement", "shufflevector", "udiv", "sdiv",
                        "urem", "srem", "fneg", "extractvalue", "insertvalue"))
VALUE_WORDS = NO_PTR_WORDS | CASTS | EXPR_WORDS | {"true", "false", "getelementptr", "dso_local_equivalent",
                                                   "no_cfi", "splat", "ptrauth", "asm"}
_VALUE_START = frozenset('%@-0123456789{[<"!')


def skip_ws(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i] == " ":
        i += 1
    return i


def skip_words(s: str, words) -> str:
    """``s`` without its leading space-separated keywords that are in ``words``
    (``skip_words("volatile atomic ptr %p", ("atomic", "volatile"))`` gives ``"ptr %p"``)."""
    while True:
        sp = s.find(" ")
        if sp > 0 and s[:sp] in words:
            s = s[sp + 1:]
        else:
            return s


def skip_group(s: str, i: int) -> int:
    """``s[i]`` opens a bracket; return the index just after its match (strings respected)."""
    depth = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
            if depth == 0:
                return i + 1
        elif c == '"':
            i = s.index('"', i + 1)
        i += 1
    raise InputError(f"unbalanced brackets in {s[:80]!r}")


def skip_to_sep(s: str, i: int) -> int:
    """Index of the next top-level ``,`` or closing bracket at or after ``i``."""
    n = len(s)
    while i < n:
        c = s[i]
        if c in "([{<":
            i = skip_group(s, i)
            continue
        if c in ",)]}>":
            return i
        if c == '"':
            i = s.index('"', i + 1)
        i += 1
    return n


def parse_value(s: str, i: int):
    """Parse one value at ``s[i]``; return ``(value, j)`` (see module docstring)."""
    i = skip_ws(s, i)
    c = s[i]
    if c == "%" or c == "@":
        m = NAME.match(s, i)
        return (c, m.group(0)[1:]), m.end()
    if c in "-0123456789":
        m = NUM.match(s, i)
        text = m.group(0)
        try:
            return ("i", int(text)), m.end()
        except ValueError:
            return None, m.end()
    if c == "{":
        items, j = parse_items(s, i + 1, "}")
        return ("agg", items), j
    if c == "[":
        items, j = parse_items(s, i + 1, "]")
        return ("agg", items), j
    if c == "<":
        if s.startswith("<{", i):
            items, j = parse_items(s, i + 2, "}")
            return ("agg", items), j + 1
        items, j = parse_items(s, i + 1, ">")
        return ("agg", items), j
    if c == "c" and s.startswith('c"', i):
        return None, s.index('"', i + 2) + 1
    if c == "!":
        m = re.compile(r"![-\w$.]*").match(s, i)
        j = m.end()
        if j < len(s) and s[j] in "({":
            j = skip_group(s, j)
        return None, j
    if c == '"':
        return None, s.index('"', i + 1) + 1
    m = WORD.match(s, i)
    if m is None:
        raise InputError(f"expected a value at column {i + 1}: {s[i:i + 40]!r}")
    word, j = m.group(0), m.end()
    if word in NO_PTR_WORDS:
        if word == "blockaddress":
            return None, skip_group(s, skip_ws(s, j))
        return None, j
    if word == "true":
        return ("i", 1), j
    if word == "false":
        return ("i", 0), j
    if word == "getelementptr":
        j = skip_ws(s, j)
        while s[j] != "(":  # inbounds, nuw, nusw, inrange(a, b)
            k = WORD.match(s, j).end()
            j = skip_ws(s, skip_group(s, k) if s.startswith("(", k) else k)
        ty, k = parse_type(s, j + 1)
        k = skip_ws(s, k) + 1  # ','
        items, k = parse_items(s, k, ")")
        base = items[0][1] if items else None
        return ("gep", ty, base, tuple(v for _, v in items[1:])), k
    if word in CASTS:
        j = skip_ws(s, j)
        _, v, _ = parse_typed(s, j + 1)
        return ("cast", word, v), skip_group(s, j)  # "(T v to T2)"
    if word in ("dso_local_equivalent", "no_cfi"):
        return parse_value(s, j)
    if word in ("splat", "ptrauth"):
        items, k = parse_items(s, skip_ws(s, j) + 1, ")")
        return (items[0][1] if items else None), k
    # other constant expressions: skip flags and predicates up to '('
    while True:
        j = skip_ws(s, j)
        if j >= len(s) or s[j] == "(":
            break
        m = WORD.match(s, j)
        if m is None:
            break
        j = m.end()
    if j < len(s) and s[j] == "(":
        items, k = parse_items(s, j + 1, ")")
        return ("int", tuple(v for _, v in items)), k
    return None, j


def parse_typed(s: str, i: int):
    """Parse ``TYPE [attributes] VALUE``; return ``(type, value, j)``."""
    ty, i = parse_type(s, i)
    n = len(s)
    while True:
        i = skip_ws(s, i)
        if i >= n or s[i] in ",)]}>":
            return ty, None, i  # a bare type (e.g. a label list) or void
        c = s[i]
        if c in _VALUE_START:
            v, j = parse_value(s, i)
            return ty, v, j
        m = WORD.match(s, i)
        if m is None:
            raise InputError(f"expected a value at column {i + 1}: {s[i:i + 40]!r}")
        word = m.group(0)
        if word in VALUE_WORDS or s.startswith('c"', i):
            v, j = parse_value(s, i)
            return ty, v, j
        i = m.end()  # an attribute: noundef, align 8, dereferenceable(8), byval(T), ...
        if i < n and s[i] == "(":
            i = skip_group(s, i)
        elif word == "align":
            i = NUM.match(s, skip_ws(s, i)).end()


def parse_items(s: str, i: int, close: str):
    """Parse ``T v, T v, ...`` up to the closing ``close``; return ``(items, j)``.

    ``items`` is a tuple of ``(type, value)``; ``j`` is just past ``close``.
    """
    items = []
    i = skip_ws(s, i)
    if s.startswith(close, i):
        return tuple(items), i + 1
    while True:
        ty, v, i = parse_typed(s, i)
        items.append((ty, v))
        i = skip_ws(s, i)
        if i < len(s) and s[i] == ",":
            i += 1
            continue
        return tuple(items), i + 1


_MD_LINE_DEF = re.compile(r"!(\d+) = (.*)")


class MetadataTable:
    """The numbered metadata ``!N = ...`` of a module's text, read on demand.

    LLVM prints numbered metadata last, one node a line, in id order, so node
    ``N`` is on line ``first + N - N0``: a lookup checks that line and reads
    nothing else. Only when the guess fails (hand-written IR, gaps) is the
    whole section indexed, once. Building a dict of every node up front cost
    more than a second on a program with 700,000 metadata nodes, of which the
    extractor reads a few percent (locations of instructions and variables).

    Parameters
    ----------
    lines : the module's lines
    first : index of the first numbered metadata line
    """

    def __init__(self, lines: list[str], first: int):
        self.lines = lines
        self.first = first
        m = _MD_LINE_DEF.match(lines[first])
        self.n0 = int(m.group(1)) if m else 0
        self._index: dict[int, str] | None = None

    def get(self, mid: int, default: str = "") -> str:
        """Text after ``!mid = `` (``default`` when there is no such node)."""
        if self._index is None:
            k = self.first + mid - self.n0
            if self.first <= k < len(self.lines):
                line = self.lines[k]
                prefix = f"!{mid} = "
                if line.startswith(prefix):
                    return line[len(prefix):]
            self._index = {}
            for line in self.lines[self.first:]:
                m = _MD_LINE_DEF.match(line)
                if m is not None:
                    self._index[int(m.group(1))] = m.group(2)
        return self._index.get(mid, default)
