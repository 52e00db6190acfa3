"""Attach ``!alias.scope``/``!noalias`` to the loads, stores, atomics and memory
intrinsics of the user's own textual IR.

The text is edited line by line, never re-printed, so the result stays
readable by the LLVM that produced it. Each function gets one scope domain
``distinct !{!D, !"andersen-gpu: NAME"}``; its scopes and the lists that name
them are planned by :func:`.scopes.plan_scopes` so that, under
ScopedNoAliasAA, two accesses of the function are NoAlias exactly when their
location sets are disjoint. Accesses with an unknown set get no metadata.
Lists are shared by every access with the same set; new metadata nodes are
numbered after the module's largest and appended at the end of the file.

Instructions that already carry ``!alias.scope``/``!noalias`` (from
``restrict`` or inlining) keep those scopes: each gets a new list holding the
old operands and ours. Scopes of different domains are judged independently,
so both sets of facts hold.

Sites are matched to lines by their stable id ``(function, block, index)``
(:func:`constraints.llvm.access_sites.walk_function`); a line whose opcode
does not fit its site is an error, never a silent mismatch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from constraints.errors import InputError
from constraints.llvm.access_sites import ACCESS_KINDS, function_bodies, opcode_of, walk_function

from .facts import AliasFacts
from .scopes import plan_scopes

_MD_DEF = re.compile(r"^!(\d+) = ", re.M)
_OPCODES = {"load": ("load",), "store": ("store",), "atomic": ("atomicrmw", "cmpxchg"),
            "memcpy": ("call",), "memmove": ("call",), "memset": ("call",),
            "call": ("call", "invoke", "callbr")}


@dataclass
class AnnotateStats:
    """What :func:`annotate_text` added.

    Attributes
    ----------
    functions : functions with at least one annotated access
    accesses : loads, stores, atomics and memory intrinsics seen
    annotated : accesses that got metadata
    unknown : accesses left without metadata because their location set is unknown
    unpaired : accesses left without metadata because no access of their
        function has a disjoint set (they can only be MayAlias)
    scopes, nodes : scope nodes and metadata nodes added (domains, scopes, lists)
    merged : instructions whose existing scope lists were extended
    encodings : functions per encoding (``set``/``class``)
    bytes_in, bytes_out : size of the text before and after
    """

    functions: int = 0
    accesses: int = 0
    annotated: int = 0
    unknown: int = 0
    unpaired: int = 0
    scopes: int = 0
    nodes: int = 0
    merged: int = 0
    encodings: dict[str, int] = field(default_factory=dict)
    bytes_in: int = 0
    bytes_out: int = 0

    def lines(self) -> list[str]:
        grow = (self.bytes_out - self.bytes_in) / self.bytes_in * 100 if self.bytes_in else 0.0
        return [f"accesses: {self.accesses}  annotated: {self.annotated}  unknown: {self.unknown}  "
                f"no disjoint partner: {self.unpaired}",
                f"functions: {self.functions}  scopes: {self.scopes}  metadata nodes added: {self.nodes}"
                + (f"  merged with existing scopes: {self.merged}" if self.merged else ""),
                "encoding: " + ", ".join(f"{k} x{v}" for k, v in sorted(self.encodings.items())),
                f"size: {self.bytes_in} -> {self.bytes_out} bytes (+{grow:.1f}%)"]


def annotate_text(text: str, facts: AliasFacts, part: bool = False) -> tuple[str, AnnotateStats]:
    """The IR ``text`` with scoped-noalias metadata from ``facts``.

    Parameters
    ----------
    text : the module's IR as the user has it (the same module the facts were
        computed from, printed by any LLVM version)
    facts : :func:`~andersen_gpu.aliasfacts.analyze` of that module
    part : ``text`` is one part of the analysed program (a CUDA program's device
        module, :mod:`constraints.llvm.cuda`): the facts of functions it does not
        define are left out instead of being an error

    Returns
    -------
    (annotated text, AnnotateStats)

    Raises
    ------
    InputError
        The text and the facts do not describe the same module (a function,
        block or instruction of one is missing from the other, or opcodes differ).
    """
    lines = text.split("\n")
    stats = AnnotateStats(bytes_in=len(text.encode()))
    defs = [int(x) for x in _MD_DEF.findall(text)]
    md = _Metadata(max(defs) + 1 if defs else 0, text)
    for fname, line_of in site_lines(lines, facts, part).items():
        _annotate_function(fname, lines, line_of, facts, md, stats)
    out = "\n".join(lines)
    if md.new:
        out = out.rstrip("\n") + "\n" + "\n".join(md.new) + "\n"
    stats.nodes = len(md.new)
    stats.bytes_out = len(out.encode())
    return out, stats


def site_lines(lines: list[str], facts: AliasFacts, part: bool = False) -> dict[str, dict[int, int]]:
    """Where each site of ``facts`` is in ``lines``: ``{function: {site: line index}}``
    (``part``: as in :func:`annotate_text`).

    Raises
    ------
    InputError
        The lines and the facts do not describe the same module (see :func:`annotate_text`).
    """
    out: dict[str, dict[int, int]] = {}
    for fname, start, end, entry in function_bodies(lines):
        line_of = out[fname] = {}
        for block, index, li in walk_function(lines, start, end, entry):
            try:
                i = facts.site((fname, block, index))
            except KeyError:
                continue  # no memory access here
            op = opcode_of(lines[li])
            if op not in _OPCODES[facts.sites.kind[i]]:
                raise InputError(f"@{fname}, block {block}, instruction {index}: the facts have a "
                                 f"{facts.sites.kind[i]} there, the text a {op!r}; were they computed "
                                 f"from this module?")
            line_of[i] = li
        expected = facts.function_sites(fname, ACCESS_KINDS | {"call"})
        missing = [int(i) for i in expected if int(i) not in line_of]
        if missing:
            f, b, k = facts.sites.key(missing[0])
            raise InputError(f"@{f}: no instruction {k} in block {b} of the text, where the facts have a "
                             f"{facts.sites.kind[missing[0]]}; were they computed from this module?")
    absent = set(facts.sites.function) - set(out)
    if absent and not part:
        raise InputError(f"function @{sorted(absent)[0]} of the facts is not defined in the text")
    return out


def _annotate_function(fname, lines, line_of, facts: AliasFacts, md: "_Metadata", stats: AnnotateStats):
    access = [i for i in line_of if facts.sites.kind[i] != "call"]
    stats.accesses += len(access)
    known = [i for i in access if facts.site_set[i] >= 0]
    stats.unknown += len(access) - len(known)
    if not known:
        return
    set_ids = np.unique(facts.site_set[known])
    pos = {int(s): k for k, s in enumerate(set_ids)}
    plan = plan_scopes(facts.intersections(set_ids), [facts.location_set(s) for s in set_ids])
    if plan.n_scopes == 0:
        stats.unpaired += len(known)
        return
    stats.functions += 1
    stats.scopes += plan.n_scopes
    stats.encodings[plan.encoding] = stats.encodings.get(plan.encoding, 0) + 1
    domain = md.add(f'distinct !{{!SELF, !"andersen-gpu: {_md_string(fname)}"}}')
    scope_ids = [md.add(f"distinct !{{!SELF, !{domain}}}") for _ in range(plan.n_scopes)]
    lists: dict[tuple[int, ...], int] = {}

    def list_node(scopes: tuple[int, ...]) -> int:
        node = lists.get(scopes)
        if node is None:
            node = lists[scopes] = md.add("!{" + ", ".join(f"!{scope_ids[s]}" for s in scopes) + "}")
        return node

    for i in known:
        k = pos[int(facts.site_set[i])]
        if not plan.scopes[k]:
            stats.unpaired += 1
            continue
        li = line_of[i]
        line = lines[li]
        scope, noalias = list_node(plan.scopes[k]), list_node(plan.noalias[k])
        line, merged_a = md.attach(line, "alias.scope", scope)
        line, merged_n = md.attach(line, "noalias", noalias)
        stats.merged += merged_a or merged_n
        lines[li] = line
        stats.annotated += 1


class _Metadata:
    """New numbered metadata nodes, and existing lists merged with new ones."""

    def __init__(self, first: int, text: str):
        self.next = first
        self.new: list[str] = []
        self.text = text
        self._operands: dict[int, str] | None = None
        self._merged: dict[tuple[int, int], int] = {}

    def add(self, body: str) -> int:
        """Append ``!N = body`` (``!SELF`` in ``body`` becomes ``!N``); return ``N``."""
        n = self.next
        self.next += 1
        self.new.append(f"!{n} = " + body.replace("!SELF", f"!{n}"))
        return n

    def attach(self, line: str, kind: str, node: int) -> tuple[str, bool]:
        """``line`` with ``!kind !node`` attached, merged into an existing ``!kind`` list."""
        m = re.search(rf", !{re.escape(kind)} !(\d+)", line)
        if m is None:
            return f"{line}, !{kind} !{node}", False
        old = int(m.group(1))
        merged = self._merged.get((old, node))
        if merged is None:
            ops = self._list_operands(old) + self._list_operands(node)
            merged = self._merged[(old, node)] = self.add("!{" + ", ".join(dict.fromkeys(ops)) + "}")
        return line[:m.start()] + f", !{kind} !{merged}" + line[m.end():], True

    def _list_operands(self, node: int) -> list[str]:
        if self._operands is None:
            self._operands = {}
            for m in re.finditer(r"^!(\d+) = !\{([^}]*)\}$", self.text, re.M):
                self._operands[int(m.group(1))] = m.group(2)
        body = self._operands.get(node)
        if body is None:
            for ln in self.new:
                if ln.startswith(f"!{node} = !{{"):
                    body = ln[ln.index("{") + 1:-1]
                    break
        if body is None:
            raise InputError(f"metadata !{node}, a scope list, is not a plain list node")
        return [x.strip() for x in body.split(",") if x.strip()]


def _md_string(s: str) -> str:
    if s.startswith('"') and s.endswith('"'):
        s = s[1:-1]
    return "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else f"\\{ord(c):02X}" for c in s)
