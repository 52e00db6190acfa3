"""LLVM IR types as printed in textual IR: parsing, field slots, byte layout.

Types are parsed into small hashable values:

* scalars are strings: ``"ptr"``, ``"i32"``, ``"double"``, ``"void"``, ...
* ``("N", name)`` a named (identified) struct, resolved through :class:`TypeTable`
* ``("S", fields, packed)`` a literal struct
* ``("A", n, elem)`` an array, ``("V", n, elem)`` a vector
* ``("F", ret, params, vararg)`` a function type

Field slots follow Pearce, Kelly and Hankin (TOPLAS 2007): nested structs are
flattened, every array (and vector) is collapsed to the slots of one element,
every scalar is one slot. So a type's slots are the scalars one can reach
without indexing an array, in order.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from ..errors import InputError

PTR = "ptr"

_SCALAR_BYTES = {
    "half": (2, 2), "bfloat": (2, 2), "float": (4, 4), "double": (8, 8),
    "x86_fp80": (16, 16), "fp128": (16, 16), "ppc_fp128": (16, 16),
    "ptr": (8, 8), "x86_mmx": (8, 8), "x86_amx": (1024, 64),
    "void": (0, 1), "label": (0, 1), "metadata": (0, 1), "token": (0, 1), "opaque": (0, 1),
}
_WORD = re.compile(r"[A-Za-z_][\w.]*")
_INT = re.compile(r"\d+")
_NAME = re.compile(r'%(?:"[^"]*"|[-\w$.]+)')


def _skip_ws(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i] == " ":
        i += 1
    return i


def parse_type(s: str, i: int):
    """Parse one type starting at ``s[i]`` (leading blanks allowed).

    Returns
    -------
    (type, j)
        The parsed type and the index just after it.

    Raises
    ------
    InputError
        When no type starts at ``i``.
    """
    i = _skip_ws(s, i)
    c = s[i:i + 1]
    if c == "p" and s.startswith("ptr", i) and not (s[i + 3:i + 4].isalnum() or s[i + 3:i + 4] == "_"):
        t, j = PTR, i + 3
        if s.startswith(" addrspace(", j):
            j = s.index(")", j) + 1
    elif c == "%":
        m = _NAME.match(s, i)
        if m is None:
            raise InputError(f"bad type name at column {i + 1}: {s[i:i + 40]!r}")
        t, j = ("N", m.group(0)[1:]), m.end()
    elif c == "[":
        m = _INT.match(s, _skip_ws(s, i + 1))
        n = int(m.group(0))
        j = _skip_ws(s, m.end())
        assert s.startswith("x ", j), s[i:i + 40]
        elem, j = parse_type(s, j + 2)
        j = _skip_ws(s, j)
        t, j = ("A", n, elem), j + 1  # ']'
    elif c == "<":
        if s.startswith("<{", i):
            fields, j = _parse_fields(s, i + 2, "}")
            t, j = ("S", fields, True), j + 1  # '>'
        else:
            j = _skip_ws(s, i + 1)
            if s.startswith("vscale x ", j):
                j += 9
            m = _INT.match(s, j)
            n = int(m.group(0))
            j = _skip_ws(s, m.end()) + 2  # 'x '
            elem, j = parse_type(s, j)
            j = _skip_ws(s, j)
            t, j = ("V", n, elem), j + 1  # '>'
    elif c == "{":
        fields, j = _parse_fields(s, i + 1, "}")
        t = ("S", fields, False)
    else:
        m = _WORD.match(s, i)
        if m is None:
            raise InputError(f"expected a type at column {i + 1}: {s[i:i + 40]!r}")
        word = m.group(0)
        j = m.end()
        if word == "target" and s.startswith("(", j):
            depth, k = 0, j
            while True:
                if s[k] == "(":
                    depth += 1
                elif s[k] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                elif s[k] == '"':
                    k = s.index('"', k + 1)
                k += 1
            j = k + 1
        t = word
    # function types and legacy typed pointers ("T (A, B)*", "i8*")
    while True:
        k = _skip_ws(s, j)
        if s.startswith("(", k) and t != "target":
            params, vararg, j = _parse_params(s, k + 1)
            t = ("F", t, params, vararg)
        elif s.startswith("*", k):
            t, j = PTR, k + 1
        else:
            return t, j


def _parse_fields(s: str, i: int, close: str):
    fields = []
    i = _skip_ws(s, i)
    if s.startswith(close, i):
        return tuple(fields), i + 1
    while True:
        t, i = parse_type(s, i)
        fields.append(t)
        i = _skip_ws(s, i)
        if s.startswith(",", i):
            i += 1
            continue
        return tuple(fields), i + 1  # the closing brace


def _parse_params(s: str, i: int):
    params, vararg = [], False
    i = _skip_ws(s, i)
    if s.startswith(")", i):
        return tuple(params), vararg, i + 1
    while True:
        i = _skip_ws(s, i)
        if s.startswith("...", i):
            vararg, i = True, i + 3
        else:
            t, i = parse_type(s, i)
            params.append(t)
            # attributes after a parameter type (declarations only)
            while True:
                i = _skip_ws(s, i)
                if s[i] in ",)":
                    break
                i = _skip_attr(s, i)
        i = _skip_ws(s, i)
        if s.startswith(",", i):
            i += 1
            continue
        return tuple(params), vararg, i + 1


def _skip_attr(s: str, i: int) -> int:
    """Skip one token of a parameter attribute list (a word with an optional (...) group)."""
    m = _WORD.match(s, i)
    j = m.end() if m else i + 1
    if s.startswith("(", j):
        depth = 0
        while True:
            if s[j] == "(":
                depth += 1
            elif s[j] == ")":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
    return j


class TypeTable:
    """Named struct types of one module and layouts computed from them.

    Parameters
    ----------
    named : dict[str, type]
        Body of every identified struct (``"opaque"`` for opaque ones).
    """

    def __init__(self, named: dict):
        self.named = named
        self._slots: dict = {}
        self._layout: dict = {}
        self._field_prefix: dict = {}
        self._has_ptr: dict = {}

    def resolve(self, t):
        while isinstance(t, tuple) and t[0] == "N":
            body = self.named.get(t[1])
            if body is None:
                raise InputError(f"unknown type %{t[1]}")
            t = body
        return t

    # --------------------------------------------------------------- slots
    def n_slots(self, t) -> int:
        """Number of field slots of ``t`` (0 for an empty struct)."""
        n = self._slots.get(t)
        if n is None:
            r = self.resolve(t)
            if isinstance(r, tuple):
                if r[0] == "S":
                    n = sum(self.n_slots(f) for f in r[1])
                elif r[0] in ("A", "V"):
                    n = self.n_slots(r[2])
                else:
                    n = 1
            else:
                n = 1
            self._slots[t] = n
        return n

    def field_prefix(self, t) -> list[int]:
        """Slot offset of each field of struct ``t``."""
        p = self._field_prefix.get(t)
        if p is None:
            r = self.resolve(t)
            p, acc = [], 0
            for f in r[1]:
                p.append(acc)
                acc += self.n_slots(f)
            self._field_prefix[t] = p
        return p

    def has_ptr(self, t) -> bool:
        """True when a value of type ``t`` can hold a pointer."""
        h = self._has_ptr.get(t)
        if h is None:
            r = self.resolve(t)
            if r == PTR:
                h = True
            elif isinstance(r, tuple) and r[0] == "S":
                h = any(self.has_ptr(f) for f in r[1])
            elif isinstance(r, tuple) and r[0] in ("A", "V"):
                h = self.has_ptr(r[2])
            else:
                h = False
            self._has_ptr[t] = h
        return h

    def has_array(self, t) -> bool:
        """True when ``t`` is or contains an array or vector (whose elements share one slot)."""
        r = self.resolve(t)
        if isinstance(r, tuple) and r[0] == "S":
            return any(self.has_array(f) for f in r[1])
        return isinstance(r, tuple) and r[0] in ("A", "V")

    def ptr_slots(self, t) -> list[int]:
        """Slot indices of ``t`` that can hold a pointer (in order)."""
        out: list[int] = []
        self._ptr_slots(t, 0, out)
        return out

    def _ptr_slots(self, t, base: int, out: list[int]) -> None:
        r = self.resolve(t)
        if r == PTR:
            out.append(base)
        elif isinstance(r, tuple) and r[0] == "S":
            for f, off in zip(r[1], self.field_prefix(r)):
                if self.has_ptr(f):
                    self._ptr_slots(f, base + off, out)
        elif isinstance(r, tuple) and r[0] in ("A", "V"):
            self._ptr_slots(r[2], base, out)

    # --------------------------------------------------------------- bytes
    def size_align(self, t) -> tuple[int, int]:
        """Allocation size and ABI alignment in bytes (x86-64 data layout)."""
        lay = self._layout.get(t)
        if lay is None:
            r = self.resolve(t)
            if isinstance(r, str):
                if r in _SCALAR_BYTES:
                    lay = _SCALAR_BYTES[r]
                elif r[0] == "i" and r[1:].isdigit():
                    bits = int(r[1:])
                    nbytes = (bits + 7) // 8
                    align = 1
                    while align < nbytes and align < 16:
                        align *= 2
                    lay = ((nbytes + align - 1) // align * align, align)
                else:
                    lay = (8, 8)
            elif r[0] == "S":
                off, align = 0, 1
                for f in r[1]:
                    fs, fa = self.size_align(f)
                    if not r[2]:
                        off = (off + fa - 1) // fa * fa
                        align = max(align, fa)
                    off += fs
                lay = ((off + align - 1) // align * align, align)
            elif r[0] == "A":
                es, ea = self.size_align(r[2])
                lay = (es * r[1], ea)
            elif r[0] == "V":
                es, _ = self.size_align(r[2])
                total = es * r[1]
                align = 1
                while align < total and align < 64:
                    align *= 2
                lay = ((total + align - 1) // align * align, align)
            else:
                lay = (8, 8)
            self._layout[t] = lay
        return lay

    def slot_byte_offsets(self, t) -> list[int]:
        """Byte offset of every slot of ``t`` (arrays: their first element)."""
        out: list[int] = []
        self._slot_offsets(t, 0, out)
        return out

    def _slot_offsets(self, t, base: int, out: list[int]) -> None:
        r = self.resolve(t)
        if isinstance(r, tuple) and r[0] == "S":
            off = 0
            for f in r[1]:
                fs, fa = self.size_align(f)
                if not r[2]:
                    off = (off + fa - 1) // fa * fa
                self._slot_offsets(f, base + off, out)
                off += fs
        elif isinstance(r, tuple) and r[0] in ("A", "V"):
            self._slot_offsets(r[2], base, out)
        else:
            out.append(base)

    def max_slots_in_window(self, nbytes: int) -> int:
        """Most slots of any named struct that lie within ``nbytes`` consecutive bytes.

        Bounds how many slots a ``memcpy`` of ``nbytes`` can touch; at least 1.
        """
        best = 1
        for name in self.named:
            if self.named[name] == "opaque":
                continue
            offs = self.slot_byte_offsets(("N", name))
            for j, o in enumerate(offs):
                k = bisect_left(offs, o + nbytes) - j
                if k > best:
                    best = k
        return best

    def byte_to_slot(self, t, off: int) -> int | None:
        """The slot of ``t`` that starts exactly ``off`` bytes in (arrays collapsed), or None."""
        r = self.resolve(t)
        if isinstance(r, tuple) and r[0] == "S":
            pos = 0
            for f, slot in zip(r[1], self.field_prefix(r)):
                fs, fa = self.size_align(f)
                if not r[2]:
                    pos = (pos + fa - 1) // fa * fa
                if pos <= off < pos + fs:
                    inner = self.byte_to_slot(f, off - pos)
                    return None if inner is None else slot + inner
                pos += fs
            return None
        if isinstance(r, tuple) and r[0] in ("A", "V"):
            es, _ = self.size_align(r[2])
            return self.byte_to_slot(r[2], off % es) if es > 0 and off >= 0 else None
        return 0 if off == 0 else None
