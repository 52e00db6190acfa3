"""Our readable text format for constraint sets: ``.acs`` (``.acs.gz`` gzipped).

One statement per line, ``#`` starts a comment (outside quoted strings)::

    andersen-constraints 1 nodes=4 addr=1 copy=1 load=0 store=0 gep=1 hcd=0 int_to_pointer=-1 names=1
    # id kind size [rep=R] [name="..."] [loc="..."]
    node 0 object 2 name="list"
    node 1 field 0 name="list.next"
    node 2 value 0 name="p"
    node 3 value 0 name="q"
    2 = &0          # p = &list
    3 = 2           # q = p
    3 = 2 + 1       # q = &p->next

The header holds the format name, its version and the count of every kind
of line that follows; ``names=1``/``locations=1``/``merges=1`` say that the
set carries names, locations or offline merges (so that "none" and "all
empty" stay distinct); ``collapse_cycles=1`` that objects reached by
positive-weight cycles are collapsed before solving (:mod:`constraints.model`;
a reader that does not know the key refuses the file), and ``call_geps=1`` that
functions are entered by call geps only; ``call=N`` counts the call geps (left
out when there is none). Then exactly ``nodes`` node lines, ids in order, with
the node's :class:`~constraints.model.NodeKind` in lower case, its object
size, and optionally its offline representative, ``fi=1`` for a
field-insensitive object (:mod:`constraints.model`), name and location (JSON
strings). Constraints are written in statement form over node ids:

==============  =====  =====================
line            kind   meaning
==============  =====  =====================
``X = &Y``      addr   Y ∈ pts(X)
``X = Y``       copy   pts(Y) ⊆ pts(X)
``X = *Y``      load   X = *Y
``*X = Y``      store  *X = Y
``X = Y + O``   gep    X = Y + O (field O)
``X = Y +c K``  call   X = Y +c K (slot K of the functions Y points to; header ``call=N``)
``hcd P T``     HCD    objects entering pts(P) may merge with T
==============  =====  =====================

Constraint lines may come in any order after the node table; within a kind
their order is kept. The writer appends the names of the nodes as a comment
when the set has names. Reading then writing is exact: every field of the
:class:`~constraints.model.ConstraintSet` survives.
"""

from __future__ import annotations

import json
import os
import re
from typing import Iterable

import numpy as np

from ._memory import require
from ._textio import read_text
from .atomic import atomic_output
from .errors import InputError
from .model import EDGE_KINDS, ConstraintSet, NodeKind

FORMAT_NAME = "andersen-constraints"
FORMAT_VERSION = 1
SUFFIXES = (".acs", ".acs.gz")

_COUNT_KEYS = ("nodes",) + EDGE_KINDS + ("hcd",)
_FLAG_KEYS = ("names", "locations", "merges", "collapse_cycles", "call_geps")
_OPTIONAL_COUNTS = ("hcd", "call")   # the others a header must give
_HEADER_KEYS = _COUNT_KEYS + ("call", "int_to_pointer") + _FLAG_KEYS
_KIND_WORDS = {k.name.lower(): int(k) for k in NodeKind}

# what parsing takes per node (sizes, kinds, rep, name and location slots) and per constraint
# (the row tuple, its line number, the columns); for the check against the available memory
_BYTES_PER_NODE = 8 + 1 + 8 + 8 + 8
_BYTES_PER_CONSTRAINT = 160

_STATEMENT = re.compile(r"^(\*?)\s*([-+]?\w+)\s*=\s*([&*]?)\s*([-+]?\w+)\s*(?:\+(c\s+)?\s*([-+]?\w+))?$")
_NODE = re.compile(r'^node\s+(\S+)\s+(\S+)\s+(\S+)((?:\s+[a-z]+=(?:"(?:[^"\\]|\\.)*"|[^\s"#]+))*)\s*(?:#.*)?$')
_ATTR = re.compile(r'([a-z]+)=("(?:[^"\\]|\\.)*"|[^\s"#]+)')


def is_text_file_name(path: str | os.PathLike) -> bool:
    """True when ``path`` ends in ``.acs`` or ``.acs.gz``."""
    return str(path).endswith(SUFFIXES)


# ------------------------------------------------------------------- writer
def format_text(cs: ConstraintSet) -> Iterable[str]:
    """Yield the lines (with newlines) of ``cs`` in the text format."""
    rep = cs.offline_rep
    header = [f"{FORMAT_NAME} {FORMAT_VERSION}", f"nodes={cs.n_nodes}"]
    header += [f"{k}={cs.count(k)}" for k in EDGE_KINDS]
    header += [f"hcd={len(cs.hcd_ptr)}", f"int_to_pointer={cs.int_to_pointer}"]
    if len(cs.call_dst):
        header.append(f"call={len(cs.call_dst)}")
    header += [f"{flag}=1" for flag, present in zip(_FLAG_KEYS, (cs.names, cs.locations, rep,
                                                                (True if cs.collapse_cycles else None),
                                                                (True if cs.call_geps else None)))
               if present is not None]
    yield " ".join(header) + "\n"
    yield "# node ID KIND SIZE [rep=R] [fi=1] [name=\"...\"] [loc=\"...\"]\n"
    kind_words = {int(k): k.name.lower() for k in NodeKind}
    sizes, kinds = cs.obj_size.tolist(), cs.kind.tolist()
    reps = rep.tolist() if rep is not None else None
    fi = cs.field_insensitive_mask().tolist()
    for v in range(cs.n_nodes):
        line = f"node {v} {kind_words[kinds[v]]} {sizes[v]}"
        if reps is not None and reps[v] != v:
            line += f" rep={reps[v]}"
        if fi[v]:
            line += " fi=1"
        if cs.names is not None and cs.names[v]:
            line += " name=" + json.dumps(cs.names[v], ensure_ascii=False)
        if cs.locations is not None and cs.locations[v]:
            line += " loc=" + json.dumps(cs.locations[v], ensure_ascii=False)
        yield line + "\n"

    label = _comment_labels(cs)
    forms = {"addr": "{} = &{}", "copy": "{} = {}", "load": "{} = *{}", "store": "*{} = {}", "gep": "{} = {} + {}"}
    for kind_name in EDGE_KINDS:
        if cs.count(kind_name):
            yield f"# {kind_name}\n"
        form = forms[kind_name]
        cols = [c.tolist() for c in cs.columns(kind_name)]
        for row in zip(*cols):
            line = form.format(*row)
            if label is not None:
                line = f"{line:<24}# " + form.format(*(label(x) for x in row[:2]), *row[2:])
            yield line + "\n"
    if len(cs.call_dst):
        yield "# call geps\n"
    for row in zip(cs.call_dst.tolist(), cs.call_src.tolist(), cs.call_offset.tolist()):
        line = "{} = {} +c {}".format(*row)
        if label is not None:
            line = f"{line:<24}# " + "{} = {} +c {}".format(label(row[0]), label(row[1]), row[2])
        yield line + "\n"
    if len(cs.hcd_ptr):
        yield "# hcd POINTER TARGET: objects entering pts(POINTER) may merge with TARGET\n"
    for p, t in zip(cs.hcd_ptr.tolist(), cs.hcd_target.tolist()):
        yield f"hcd {p} {t}\n"


def _comment_labels(cs: ConstraintSet):
    if cs.names is None:
        return None
    names = cs.names
    # Names are free text; keep the comment on one line.
    return lambda v: (names[v] or f"#{v}").replace("\n", " ").replace("\r", " ")


def write_text(cs: ConstraintSet, path: str | os.PathLike) -> None:
    """Write ``cs`` to ``path`` (gzipped when it ends in ``.gz``), atomically.

    Raises :class:`InputError` for a set with walk geps (made by preprocessing): the text
    format has no line for them, and only the npz format holds them.
    """
    if len(cs.walk_dst):
        raise InputError("this set has walk geps (made by preprocessing): only the npz format holds them",
                         str(path))
    with atomic_output(path) as fh:
        fh.writelines(format_text(cs))


# ------------------------------------------------------------------- reader
def read_text_format(path: str | os.PathLike, progress: bool = False) -> ConstraintSet:
    """Read a ``.acs``/``.acs.gz`` file.

    Parameters
    ----------
    path : path-like
    progress : bool
        Show a tqdm bar on stderr while parsing lines.

    Raises
    ------
    InputError
        Naming the file and line: unknown header or version, counts that
        disagree with the lines, a non-integer field, an unknown node kind or
        line form, an id outside ``[0, nodes)``, an offset outside
        ``[0, nodes)``, or any invariant of :class:`ConstraintSet`.
    """
    src = str(path)
    lines = read_text(path).split("\n")
    return parse_text(lines, src, progress=progress)


def parse_text(lines: list[str], src: str, progress: bool = False) -> ConstraintSet:
    """Parse the lines of a text-format file (see :func:`read_text_format`)."""
    header, header_line, body_start = _parse_header(lines, src)
    n = header["nodes"]
    # every node, constraint and hcd pair takes a line: a header that claims more than the file
    # holds is refused before its arrays are allocated
    claimed = sum(header[k] for k in _COUNT_KEYS + ("call",))
    if claimed > len(lines) - body_start:
        raise InputError(f"header claims {claimed:,} lines of nodes and constraints but the file has only "
                         f"{len(lines) - body_start:,} lines after it", src, header_line)
    require(n * _BYTES_PER_NODE + (claimed - n) * _BYTES_PER_CONSTRAINT, f"the header's nodes={n:,}", src,
            header_line)
    sizes = np.zeros(n, np.int64)
    kinds = np.zeros(n, np.int8)
    rep = np.arange(n, dtype=np.int64) if header["merges"] else None
    names = [""] * n if header["names"] else None
    locations = [""] * n if header["locations"] else None
    fi: list[int] = []
    rows: dict[str, list[tuple[int, ...]]] = {k: [] for k in EDGE_KINDS + ("hcd", "call")}
    line_of: dict[str, list[int]] = {k: [] for k in rows}
    n_seen = 0

    numbered = enumerate(lines[body_start:], start=body_start + 1)
    if progress:
        from tqdm import tqdm
        numbered = tqdm(numbered, total=len(lines) - body_start, desc=os.path.basename(src),
                        unit=" lines", unit_scale=True, leave=False)

    for lineno, raw in numbered:
        s = raw.strip()
        if not s or s[0] == "#":
            continue
        if s.startswith("node"):
            if n_seen >= n:
                raise InputError(f"more node lines than the header's nodes={n}", src, lineno)
            v = _parse_node(s, src, lineno, n_seen, sizes, kinds, rep, names, locations, fi)
            n_seen = v + 1
            continue
        if "#" in s:  # only node lines hold quoted strings
            s = s[:s.index("#")].rstrip()
        if s.startswith("hcd"):
            fields = s.split()
            if len(fields) != 3 or fields[0] != "hcd":
                raise InputError("expected 'hcd POINTER TARGET'", src, lineno)
            rows["hcd"].append((_int(fields[1], src, lineno, "hcd pointer"),
                                _int(fields[2], src, lineno, "hcd target")))
            line_of["hcd"].append(lineno)
            continue
        kind_name, row = _parse_statement(s, src, lineno)
        rows[kind_name].append(row)
        line_of[kind_name].append(lineno)

    found = {"nodes": n_seen, **{k: len(rows[k]) for k in EDGE_KINDS + ("hcd", "call")}}
    wrong = [k for k in _COUNT_KEYS + ("call",) if found[k] != header[k]]
    if wrong:
        raise InputError(f"header says {' '.join(f'{k}={header[k]}' for k in wrong)} but the file has "
                         f"{' '.join(f'{k}={found[k]}' for k in wrong)}", src, header_line)
    cols = {}
    for k in EDGE_KINDS + ("hcd", "call"):
        width = 3 if k in ("gep", "call") else 2
        table = np.asarray(rows[k], np.int64).reshape(-1, width)
        lines_k = line_of[k]
        bad = np.flatnonzero((table[:, :2] < 0) | (table[:, :2] >= n))
        if bad.size:
            i = int(bad[0]) // 2
            value = table[i, int(bad[0]) % 2]
            raise InputError(f"node id {value} outside [0, {n})", src, lines_k[i])
        if k in ("gep", "call"):
            bad = np.flatnonzero((table[:, 2] < 0) | (table[:, 2] >= max(n, 1)))
            if bad.size:
                i = int(bad[0])
                raise InputError(f"{k} offset {table[i, 2]} outside [0, {n})", src, lines_k[i])
            cols.update({f"{k}_dst": table[:, 0], f"{k}_src": table[:, 1], f"{k}_offset": table[:, 2]})
        elif k == "hcd":
            cols.update(hcd_ptr=table[:, 0], hcd_target=table[:, 1])
        else:
            cols.update({f"{k}_dst": table[:, 0], f"{k}_src": table[:, 1]})
    i2p = header["int_to_pointer"]
    if not -1 <= i2p < n:
        raise InputError(f"int_to_pointer={i2p} outside [-1, {n})", src, header_line)
    try:
        return ConstraintSet(n_nodes=n, obj_size=sizes, kind=kinds, int_to_pointer=i2p, offline_rep=rep,
                             names=names, locations=locations, field_insensitive=np.asarray(fi, np.int64),
                             collapse_cycles=bool(header["collapse_cycles"]), call_geps=bool(header["call_geps"]),
                             **cols)
    except InputError as exc:
        raise exc.at(src) from None


def _parse_header(lines: list[str], src: str) -> tuple[dict[str, int], int, int]:
    for index, raw in enumerate(lines):
        s = raw.split("#", 1)[0].strip()
        if s:
            break
    else:
        raise InputError(f"empty file (expected a '{FORMAT_NAME} {FORMAT_VERSION} ...' header)", src)
    lineno = index + 1
    fields = s.split()
    if fields[0] != FORMAT_NAME:
        raise InputError(f"not an {FORMAT_NAME} file (first line starts with {fields[0]!r})", src, lineno)
    if len(fields) < 2 or fields[1] != str(FORMAT_VERSION):
        got = fields[1] if len(fields) > 1 else "none"
        raise InputError(f"unsupported format version {got} (this reader knows version {FORMAT_VERSION})",
                         src, lineno)
    header = {k: 0 for k in _HEADER_KEYS}
    header["int_to_pointer"] = -1
    seen = set()
    for f in fields[2:]:
        key, eq, value = f.partition("=")
        if not eq or key not in _HEADER_KEYS:
            raise InputError(f"unknown header field {f!r} (expected KEY=VALUE with KEY one of "
                             f"{', '.join(_HEADER_KEYS)})", src, lineno)
        header[key] = _int(value, src, lineno, f"header field {key}")
        seen.add(key)
    missing = [k for k in _COUNT_KEYS if k not in seen and k not in _OPTIONAL_COUNTS]
    if missing:
        raise InputError(f"header lacks {', '.join(missing)}", src, lineno)
    for k in _COUNT_KEYS + ("call",):
        if header[k] < 0:
            raise InputError(f"header field {k}={header[k]} is negative", src, lineno)
    for k in _FLAG_KEYS:
        if header[k] not in (0, 1):
            raise InputError(f"header field {k}={header[k]} must be 0 or 1", src, lineno)
    return header, lineno, index + 1


def _parse_node(s, src, lineno, expected, sizes, kinds, rep, names, locations, fi) -> int:
    m = _NODE.match(s)
    if not m:
        raise InputError("expected 'node ID KIND SIZE [rep=R] [fi=1] [name=\"...\"] [loc=\"...\"]'", src, lineno)
    v = _int(m.group(1), src, lineno, "node id")
    if v != expected:
        raise InputError(f"node lines must list ids in order: expected node {expected}, got {v}", src, lineno)
    word = m.group(2)
    if word not in _KIND_WORDS:
        raise InputError(f"unknown node kind {word!r} (expected one of {', '.join(_KIND_WORDS)})", src, lineno)
    kinds[v] = _KIND_WORDS[word]
    size = _int(m.group(3), src, lineno, "object size")
    if size < 0 or v + size > len(sizes):
        raise InputError(f"node {v}: object size {size} is negative or runs past the last node {len(sizes) - 1}",
                         src, lineno)
    sizes[v] = size
    for key, value in _ATTR.findall(m.group(4)):
        if key == "rep":
            if rep is None:
                raise InputError("rep= on a node but the header lacks merges=1", src, lineno)
            r = _int(value, src, lineno, "rep")
            if not 0 <= r < len(sizes):
                raise InputError(f"node {v}: representative {r} outside [0, {len(sizes)})", src, lineno)
            rep[v] = r
        elif key == "fi":
            if value != "1":
                raise InputError(f"node {v}: fi={value} (expected fi=1, or no fi)", src, lineno)
            fi.append(v)
        elif key in ("name", "loc"):
            target = names if key == "name" else locations
            if target is None:
                flag = "names" if key == "name" else "locations"
                raise InputError(f"{key}= on a node but the header lacks {flag}=1", src, lineno)
            target[v] = _string(value, src, lineno, key)
        else:
            raise InputError(f"unknown node attribute {key!r} (expected rep, fi, name or loc)", src, lineno)
    return v


def _parse_statement(s: str, src: str, lineno: int) -> tuple[str, tuple[int, ...]]:
    m = _STATEMENT.match(s)
    if not m:
        raise InputError(f"unrecognised line {s[:60]!r} (expected X = &Y, X = Y, X = *Y, *X = Y, X = Y + O, "
                         "X = Y +c K, hcd P T or node ...)", src, lineno)
    star_dst, x, op, y, call, off = m.groups()
    dst = _int(x, src, lineno, "node id")
    srcn = _int(y, src, lineno, "node id")
    if off is not None:
        if star_dst or op:
            raise InputError("an offset is allowed only on 'X = Y + O' and 'X = Y +c K'", src, lineno)
        return "call" if call else "gep", (dst, srcn, _int(off, src, lineno, "offset"))
    if star_dst:
        if op:
            raise InputError("'*X = ' takes a plain node on the right (store)", src, lineno)
        return "store", (dst, srcn)
    return {"&": "addr", "*": "load", "": "copy"}[op], (dst, srcn)


def _int(field: str, src: str, lineno: int, what: str) -> int:
    try:
        return int(field)
    except ValueError:
        raise InputError(f"{what}: expected an integer, got {field!r}", src, lineno) from None


def _string(field: str, src: str, lineno: int, what: str) -> str:
    if not field.startswith('"'):
        return field
    try:
        return json.loads(field)
    except ValueError as exc:
        raise InputError(f"{what}: bad quoted string ({exc})", src, lineno) from None
