"""The dump format of the PPoPP 2012 GPU Andersen paper (Hardekopf and Lin's front end).

A program ``B`` is a family of sibling files (gzipped or plain):

* ``B_nodes.txt[.gz]``: N; the id of the last object; the id of the last
  function; then one line ``id,size,isFunction`` per node.
* ``B_constraints.txt[.gz]`` or ``B_constraints_after_hcd.txt[.gz]``: a line of
  five counts (addr, copy, load, store, gep), then that many lines of each kind
  ``id,src,dst,type,offset`` meaning ``dst = &src``, ``dst = src``,
  ``dst = *src``, ``*dst = src``, ``dst = src + offset``.
* ``B_hcd.txt[.gz]`` (optional): M offline merges ``y,x`` (rep(y) = x), then
  ``K,V`` and V HCD pairs ``y,x`` meaning "*x is pts-equivalent to y": every
  object entering pts(x) may be merged with y.
* ``B_correct_soln_001.txt[.gz]``: N, then ``[v1, v2, ...] => [o1, o2, ...]``.

Node 1 is the int-to-pointer object of these dumps.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from dataclasses import dataclass
from glob import escape as glob_escape
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from ._memory import require
from ._textio import parse_int, read_text, scan_rows
from .atomic import atomic_outputs
from .errors import InputError
from .model import EDGE_KINDS, ConstraintSet, NodeKind

PAPER_INT_TO_POINTER = 1
MAX_PAPER_OFFSET = 1024
_SUFFIXES = (".txt.gz", ".txt", ".gz", "")


@dataclass(frozen=True)
class PaperFiles:
    """The sibling files of one paper program, located from its nodes file."""

    prefix: str                 # e.g. ".../gcc"
    nodes: Path
    constraints: Path
    hcd: Path | None


def _sibling(prefix: str, stem: str) -> Path | None:
    for suffix in _SUFFIXES:
        p = Path(f"{prefix}_{stem}{suffix}")
        if p.is_file():
            return p
    return None


def is_paper_nodes_file(path: str | os.PathLike) -> bool:
    """True when ``path`` is named like a paper nodes file (``B_nodes.txt[.gz]``)."""
    return re.search(r"_nodes(\.txt)?(\.gz)?$", str(path)) is not None


def locate(nodes_path: str | os.PathLike, use_hcd: bool = True) -> PaperFiles:
    """Find the sibling files of a paper dump named by its nodes file.

    With ``use_hcd`` the ``_constraints_after_hcd`` file and the ``_hcd`` file
    are used (the reference solutions are of these); without, the original
    ``_constraints`` file alone.

    Raises
    ------
    InputError
        If the name is not ``B_nodes...`` or a needed sibling is missing.
    """
    p = Path(nodes_path)
    m = re.match(r"^(.*)_nodes(\.txt)?(\.gz)?$", str(p))
    if not m:
        raise InputError("not a paper nodes file (expected a name like gcc_nodes.txt.gz)", str(p))
    if not p.is_file():
        raise InputError("no such file", str(p))
    prefix = m.group(1)
    if use_hcd:
        cons = _sibling(prefix, "constraints_after_hcd")
        hcd = _sibling(prefix, "hcd")
        if cons is None:
            raise InputError(f"missing sibling file {Path(prefix).name}_constraints_after_hcd.txt.gz "
                             "(pass --no-hcd to use the original constraints)", str(p))
        if hcd is None:
            raise InputError(f"missing sibling file {Path(prefix).name}_hcd.txt.gz "
                             f"(needed with {cons.name}; pass --no-hcd to use the original constraints)", str(p))
    else:
        cons = _sibling(prefix, "constraints")
        hcd = None
        if cons is None:
            raise InputError(f"missing sibling file {Path(prefix).name}_constraints.txt.gz", str(p))
    return PaperFiles(prefix, p, cons, hcd)


def family(nodes_path: str | os.PathLike) -> list[Path]:
    """Every existing file of the paper dump named by ``nodes_path``: the nodes, constraints
    (original and after HCD), HCD and reference-solution files beside it, whichever are there."""
    m = re.match(r"^(.*)_nodes(\.txt)?(\.gz)?$", str(nodes_path))
    if not m:
        return [Path(nodes_path)]
    prefix = m.group(1)
    found = [p for stem in ("nodes", "constraints", "constraints_after_hcd", "hcd")
             for p in [_sibling(prefix, stem)] if p is not None]
    parent = Path(prefix).parent
    with contextlib.suppress(OSError):
        found += sorted(parent.glob(glob_escape(Path(prefix).name) + "_correct_soln_*"))
    return found


# ----------------------------------------------------------------- readers
def _fast_int_table(text: str, ncols: int) -> np.ndarray | None:
    """Parse comma-separated int rows (``#`` comments) with pandas; None on any trouble."""
    try:
        df = pd.read_csv(io.StringIO(text), header=None, comment="#", skip_blank_lines=True,
                         dtype=np.int64, names=list(range(ncols)), engine="c")
    except (ValueError, pd.errors.ParserError, OverflowError):
        return None
    if df.isnull().values.any():
        return None
    return df.to_numpy(dtype=np.int64)


def read_nodes(path: str | os.PathLike, progress: bool = False) -> tuple[int, np.ndarray, np.ndarray]:
    """Read a nodes file.

    Returns
    -------
    (n_nodes, obj_size int32[n], kind int8[n])
    """
    src = str(path)
    text = read_text(path)
    rows = scan_rows(text, src)
    header = []
    for lineno, fields in rows:
        if len(fields) != 1:
            raise InputError(f"header line {len(header) + 1}: expected one integer, got {len(fields)} fields", src, lineno)
        header.append(parse_int(fields[0], src, lineno, "header"))
        if len(header) == 3:
            body_start = lineno
            break
    if len(header) < 3:
        raise InputError("file ends inside the three-line header", src)
    n, last_obj, last_fn = header
    if n < 0:
        raise InputError(f"negative node count {n}", src, 1)
    body = "\n".join(text.splitlines()[body_start:])
    table = _fast_int_table(body, 3)
    if table is None or (table.size and table.shape[1] != 3):
        _raise_first_bad_row(text, src, 3, skip=3, what="node line (id,size,isFunction)")
        raise InputError("unreadable node table", src)
    if len(table) != n:
        raise InputError(f"header says {n} nodes but {len(table)} node lines follow", src, 1)
    ids, sizes, is_fn = table[:, 0], table[:, 1], table[:, 2]
    if not np.array_equal(ids, np.arange(n)):
        i = int(np.flatnonzero(ids != np.arange(n))[0])
        raise InputError(f"node line {i}: expected id {i}, got {ids[i]}", src, _data_line(text, 3 + i))
    bad = np.flatnonzero((sizes < 0) | (ids + sizes > n))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"node {i}: object size {sizes[i]} is negative or runs past node {n - 1}", src,
                         _data_line(text, 3 + i))
    kind = np.full(n, NodeKind.VALUE, np.int8)
    kind[: max(0, min(last_obj + 1, n))] = NodeKind.OBJECT
    kind[is_fn != 0] = NodeKind.FUNCTION
    return n, sizes.astype(np.int32), kind


def _data_line(text: str, index: int) -> int | None:
    """1-based line number of the ``index``-th (0-based) data line."""
    for k, (lineno, _) in enumerate(scan_rows(text, "")):
        if k == index:
            return lineno
    return None


def _raise_first_bad_row(text: str, src: str, ncols: int, skip: int, what: str) -> None:
    for k, (lineno, fields) in enumerate(scan_rows(text, src)):
        if k < skip:
            continue
        if len(fields) != ncols:
            raise InputError(f"{what}: expected {ncols} comma-separated fields, got {len(fields)}", src, lineno)
        for f in fields:
            parse_int(f, src, lineno, what)


def read_constraints(path: str | os.PathLike, n_nodes: int) -> dict[str, np.ndarray]:
    """Read a constraints file into the column arrays of :class:`ConstraintSet`.

    Checks the five counts against the lines, each line's type against its
    section, ids against ``n_nodes`` and offsets against ``[0, 1024]``.
    """
    src = str(path)
    text = read_text(path)
    first = next(scan_rows(text, src), None)
    if first is None:
        raise InputError("empty constraints file (expected a line of five counts)", src)
    lineno, fields = first
    if len(fields) != 5:
        raise InputError(f"expected five counts (addr,copy,load,store,gep), got {len(fields)} fields", src, lineno)
    counts = [parse_int(f, src, lineno, "count") for f in fields]
    if min(counts) < 0:
        raise InputError("negative constraint count", src, lineno)
    table = _fast_int_table(text, 5)
    if table is None:
        _raise_first_bad_row(text, src, 5, skip=1, what="constraint line (id,src,dst,type,offset)")
        raise InputError("unreadable constraint table", src)
    body = table[1:]
    if len(body) != sum(counts):
        raise InputError(f"counts line says {sum(counts)} constraints ({','.join(map(str, counts))}) "
                         f"but {len(body)} constraint lines follow", src, lineno)
    expected_type = np.repeat(np.arange(5), counts)
    bad = np.flatnonzero(body[:, 3] != expected_type)
    if bad.size:
        i = int(bad[0])
        raise InputError(f"constraint of type {body[i, 3]} where the counts line puts "
                         f"{EDGE_KINDS[expected_type[i]]} constraints (type {expected_type[i]})",
                         src, _data_line(text, 1 + i))
    for col, name in ((1, "src"), (2, "dst")):
        bad = np.flatnonzero((body[:, col] < 0) | (body[:, col] >= n_nodes))
        if bad.size:
            i = int(bad[0])
            raise InputError(f"{name} node id {body[i, col]} outside [0, {n_nodes})", src, _data_line(text, 1 + i))
    bad = np.flatnonzero((body[:, 4] < 0) | (body[:, 4] > MAX_PAPER_OFFSET) | (body[:, 4] >= max(n_nodes, 1)))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"offset {body[i, 4]} outside [0, {min(MAX_PAPER_OFFSET, n_nodes - 1)}]", src,
                         _data_line(text, 1 + i))
    bad = np.flatnonzero((body[:, 4] != 0) & (body[:, 3] < 2))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"non-zero offset {body[i, 4]} on a {EDGE_KINDS[body[i, 3]]} constraint", src,
                         _data_line(text, 1 + i))
    out: dict[str, np.ndarray] = {}
    start = 0
    for kind_name, c in zip(EDGE_KINDS, counts):
        part = body[start:start + c]
        start += c
        out[f"{kind_name}_dst"] = part[:, 2]
        out[f"{kind_name}_src"] = part[:, 1]
        if kind_name == "gep":
            out["gep_offset"] = part[:, 4]
        elif kind_name in ("load", "store"):
            out[f"_{kind_name}_offset"] = part[:, 4]
    return _split_offset_accesses(out, n_nodes)


def _split_offset_accesses(cols: dict[str, np.ndarray], n_nodes: int) -> dict[str, np.ndarray]:
    """Rewrite loads/stores through an offset with a temporary gep node each.

    ``dst = *(src + k)`` becomes ``t = src + k; dst = *t`` and ``*(dst + k) = src``
    becomes ``t = dst + k; *t = src``, with fresh temporaries numbered from
    ``n_nodes`` on (the original files' loads and stores carry such offsets;
    the ``_after_hcd`` files do not). Returns the columns plus
    ``n_temporaries`` (a 0-d array).
    """
    load_off = cols.pop("_load_offset")
    store_off = cols.pop("_store_offset")
    geps_dst, geps_src, geps_off = [cols["gep_dst"]], [cols["gep_src"]], [cols["gep_offset"]]
    next_id = n_nodes
    for kind_name, off, ptr_col in (("load", load_off, "load_src"), ("store", store_off, "store_dst")):
        idx = np.flatnonzero(off != 0)
        if idx.size == 0:
            continue
        temps = np.arange(next_id, next_id + idx.size, dtype=np.int64)
        next_id += idx.size
        geps_dst.append(temps)
        geps_src.append(cols[ptr_col][idx])
        geps_off.append(off[idx])
        col = cols[ptr_col].copy()
        col[idx] = temps
        cols[ptr_col] = col
    cols["gep_dst"], cols["gep_src"], cols["gep_offset"] = (np.concatenate(geps_dst), np.concatenate(geps_src),
                                                          np.concatenate(geps_off))
    cols["n_temporaries"] = np.int64(next_id - n_nodes)
    return cols


def read_hcd(path: str | os.PathLike, n_nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Read an HCD file.

    Returns
    -------
    (offline_rep int32[n], hcd_ptr int32[k], hcd_target int32[k])
        ``hcd_ptr[i]`` is the dereferenced node x of a pair ``y,x``;
        ``hcd_target[i]`` is y.
    """
    src = str(path)
    text = read_text(path)
    rows = list(scan_rows(text, src))
    if not rows:
        raise InputError("empty HCD file (expected the number of offline merges)", src)

    def ints(k: int, expect: int, what: str) -> list[int]:
        lineno, fields = rows[k]
        if len(fields) != expect:
            raise InputError(f"{what}: expected {expect} comma-separated fields, got {len(fields)}", src, lineno)
        vals = [parse_int(f, src, lineno, what) for f in fields]
        for v in vals if expect == 2 and what != "table header" else []:
            if not 0 <= v < n_nodes:
                raise InputError(f"{what}: node id {v} outside [0, {n_nodes})", src, lineno)
        return vals

    (m,) = ints(0, 1, "merge count")
    if m < 0 or 1 + m > len(rows):
        raise InputError(f"merge count {m} but only {len(rows) - 1} lines follow", src, rows[0][0])
    rep = np.arange(n_nodes, dtype=np.int64)
    for k in range(1, 1 + m):
        y, x = ints(k, 2, "offline merge")
        rep[y] = x
    # Resolve chains so that rep is a fixpoint.
    for _ in range(64):
        nxt = rep[rep]
        if np.array_equal(nxt, rep):
            break
        rep = nxt
    else:
        raise InputError("offline merges form a cycle", src)
    ptr: list[int] = []
    target: list[int] = []
    if len(rows) > 1 + m:
        _, v = ints(1 + m, 2, "table header")
        if 2 + m + v != len(rows):
            raise InputError(f"HCD table header says {v} pairs but {len(rows) - 2 - m} lines follow", src,
                             rows[1 + m][0])
        for k in range(2 + m, 2 + m + v):
            y, x = ints(k, 2, "HCD pair")
            target.append(y)
            ptr.append(x)
    return rep.astype(np.int32), np.asarray(ptr, np.int32), np.asarray(target, np.int32)


def read_paper(nodes_path: str | os.PathLike, use_hcd: bool = True,
               on_file_read: Callable[[Path], None] | None = None) -> ConstraintSet:
    """Read a whole paper dump named by its nodes file (see :func:`locate`).

    ``on_file_read``, if given, is called with each file's path once it is read
    (progress reporting).
    """
    files = locate(nodes_path, use_hcd)
    done = on_file_read or (lambda path: None)
    n, sizes, kind = read_nodes(files.nodes)
    done(files.nodes)
    cols = read_constraints(files.constraints, n)
    done(files.constraints)
    n_temps = int(cols.pop("n_temporaries"))
    extra = {}
    if files.hcd is not None:
        rep, ptr, target = read_hcd(files.hcd, n)
        extra = dict(offline_rep=rep, hcd_ptr=ptr, hcd_target=target)
        done(files.hcd)
    if n_temps:
        # Temporaries of split offset loads/stores follow the file's own nodes.
        sizes = np.concatenate([sizes, np.zeros(n_temps, np.int32)])
        kind = np.concatenate([kind, np.full(n_temps, NodeKind.VALUE, np.int8)])
        if "offline_rep" in extra:
            extra["offline_rep"] = np.concatenate([extra["offline_rep"], np.arange(n, n + n_temps, dtype=np.int32)])
    try:
        return ConstraintSet(n_nodes=n + n_temps, obj_size=sizes, kind=kind, **cols,
                             int_to_pointer=PAPER_INT_TO_POINTER if n > PAPER_INT_TO_POINTER else -1, **extra)
    except InputError as exc:
        raise exc.at(str(files.constraints)) from None


#: What a solution of n nodes takes while it is read (set ids, the expanded table), per node.
_SOLUTION_BYTES_PER_NODE = 24
_SOLN_LINE = re.compile(r"^\s*\[([^\]]*)\]\s*=>\s*\[([^\]]*)\]\s*$")


def read_solution_sets(path: str | os.PathLike) -> tuple[int, list[tuple[np.ndarray, np.ndarray]]]:
    """Read a reference-solution file.

    Returns
    -------
    (n_nodes, groups)
        ``groups`` is a list of ``(variables, points_to)`` int64 arrays, one per line.
    """
    src = str(path)
    text = read_text(path)
    lines = text.splitlines()
    k = 0
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k == len(lines):
        raise InputError("empty solution file (expected the number of variables)", src)
    n = parse_int(lines[k].strip(), src, k + 1, "variable count")
    if n < 0:
        raise InputError(f"negative variable count {n}", src, k + 1)
    # nodes no line lists have the empty set, so the count may exceed the lines: bound it by memory
    require(n * _SOLUTION_BYTES_PER_NODE, f"the variable count {n:,}", src, k + 1)
    groups = []
    for lineno in range(k + 2, len(lines) + 1):
        s = lines[lineno - 1]
        if not s.strip():
            continue
        m = _SOLN_LINE.match(s)
        if not m:
            raise InputError("expected a line '[v1, v2, ...] => [o1, o2, ...]'", src, lineno)
        parts = []
        for g in (m.group(1), m.group(2)):
            g = g.strip()
            try:
                arr = np.array([int(t) for t in g.split(",")], np.int64) if g else np.zeros(0, np.int64)
            except ValueError:
                raise InputError("non-integer id in a solution line", src, lineno) from None
            if arr.size and (arr.min() < 0 or arr.max() >= n):
                raise InputError(f"id outside [0, {n})", src, lineno)
            parts.append(arr)
        groups.append((parts[0], parts[1]))
    return n, groups


# ----------------------------------------------------------------- writers
def paper_names(nodes_path: str | os.PathLike, use_hcd: bool = True) -> dict[str, Path]:
    """The files :func:`write_paper` writes for a nodes-file name.

    Siblings take the nodes file's suffix (``.txt.gz``, ``.txt``, ...).
    Keys: ``nodes``, ``constraints``, and ``hcd`` when ``use_hcd``.
    """
    m = re.match(r"^(.*)_nodes((?:\.txt)?(?:\.gz)?)$", str(nodes_path))
    if not m:
        raise InputError("a paper dump is named by its nodes file (expected a name like gcc_nodes.txt.gz)",
                         str(nodes_path))
    prefix, suffix = m.groups()
    out = {"nodes": Path(f"{prefix}_nodes{suffix}")}
    if use_hcd:
        out["constraints"] = Path(f"{prefix}_constraints_after_hcd{suffix}")
        out["hcd"] = Path(f"{prefix}_hcd{suffix}")
    else:
        out["constraints"] = Path(f"{prefix}_constraints{suffix}")
    return out


def check_paper_compatible(cs: ConstraintSet, use_hcd: bool = True, target: str | None = None) -> None:
    """Raise :class:`InputError` if ``cs`` cannot be written in the paper format without changing its meaning.

    The format fixes the int-to-pointer object at node 1, bounds gep offsets
    by 1024, has no place for walk geps, field-insensitive objects or ``collapse_cycles``, and (without the HCD file)
    none for offline merges.
    Names, locations and the value/field distinction are not representable;
    they do not change the solution and are dropped.
    """
    expected_i2p = PAPER_INT_TO_POINTER if cs.n_nodes > PAPER_INT_TO_POINTER else -1
    if cs.int_to_pointer != expected_i2p:
        raise InputError(f"the paper format fixes the int-to-pointer object at node {PAPER_INT_TO_POINTER}; "
                         f"this set has int_to_pointer={cs.int_to_pointer}", target)
    if cs.count("gep") and int(cs.gep_offset.max()) > MAX_PAPER_OFFSET:
        i = int(np.argmax(cs.gep_offset))
        raise InputError(f"gep constraint {i}: offset {cs.gep_offset[i]} exceeds the paper format's "
                         f"limit {MAX_PAPER_OFFSET}", target)
    if not use_hcd and (cs.offline_rep is not None and np.any(cs.rep != np.arange(cs.n_nodes))
                        or len(cs.hcd_ptr)):
        raise InputError("this set has offline merges or an HCD table: write it with the HCD file", target)
    if len(cs.walk_dst):
        raise InputError("this set has walk geps (made by preprocessing): only the npz format holds them", target)
    if len(cs.field_insensitive):
        raise InputError("this set has field-insensitive objects: the paper format has no place for them "
                         "(write .acs or .npz)", target)
    if len(cs.call_dst) or cs.call_geps:
        raise InputError("this set has call geps: the paper format writes calls as geps (write .acs or .npz)",
                         target)
    if cs.collapse_cycles:
        raise InputError("this set collapses the objects positive-weight cycles reach: the paper format has no "
                         "place for that (write .acs or .npz)", target)


def format_nodes(cs: ConstraintSet) -> Iterable[str]:
    """Lines of the nodes file: N, last object id, last function id, ``id,size,isFunction`` per node."""
    is_fn = cs.kind == NodeKind.FUNCTION
    in_object = np.flatnonzero((cs.kind == NodeKind.OBJECT) | (cs.kind == NodeKind.FIELD))
    last_obj = int(in_object[-1]) if in_object.size else -1
    fns = np.flatnonzero(is_fn)
    yield f"{cs.n_nodes}\n{last_obj}\n{int(fns[-1]) if fns.size else -1}\n"
    for v, (size, fn) in enumerate(zip(cs.obj_size.tolist(), is_fn.astype(np.int8).tolist())):
        yield f"{v},{size},{fn}\n"


def format_constraints(cs: ConstraintSet) -> Iterable[str]:
    """Lines of a constraints file: five counts, then ``id,src,dst,type,offset`` per constraint."""
    yield "# number of constraints of each type (address-of, copy, load, store, gep)\n"
    yield ",".join(str(cs.count(k)) for k in EDGE_KINDS) + "\n"
    cid = 0
    for type_id, kind_name in enumerate(EDGE_KINDS):
        yield f"\n# {kind_name} constraints\n# format: id, src, dst, type, offset\n"
        dst, src = cs.columns(kind_name)[:2]
        offsets = cs.gep_offset.tolist() if kind_name == "gep" else [0] * len(dst)
        for d, s, o in zip(dst.tolist(), src.tolist(), offsets):
            yield f"{cid},{s},{d},{type_id},{o}\n"
            cid += 1


def format_hcd(cs: ConstraintSet) -> Iterable[str]:
    """Lines of an HCD file: offline merges ``y,x`` (rep(y) = x), then the HCD table."""
    merged = np.flatnonzero(cs.rep != np.arange(cs.n_nodes))
    yield "# first row: number of offline HCD merges. <y,x> means rep(y) = x\n"
    yield f"{merged.size}\n"
    for y, x in zip(merged.tolist(), cs.rep[merged].tolist()):
        yield f"{y},{x}\n"
    yield ("# <y,x> means that *x is PTS-equivalent to y. "
           "1st row: number of different 'y', number of pairs\n")
    yield f"{np.unique(cs.hcd_target).size},{len(cs.hcd_ptr)}\n"
    for p, t in zip(cs.hcd_ptr.tolist(), cs.hcd_target.tolist()):
        yield f"{t},{p}\n"


def write_paper(cs: ConstraintSet, nodes_path: str | os.PathLike, use_hcd: bool = True) -> list[Path]:
    """Write ``cs`` as a paper dump named by its nodes file; all files appear or none.

    With ``use_hcd`` (default) the constraints go to ``B_constraints_after_hcd``
    and the offline merges and HCD table to ``B_hcd``, which is what
    :func:`read_paper` reads by default; without, to ``B_constraints`` alone.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    InputError
        See :func:`check_paper_compatible`; or the name is not ``B_nodes...``.
    """
    targets = paper_names(nodes_path, use_hcd)
    check_paper_compatible(cs, use_hcd, str(nodes_path))
    writers = {"nodes": format_nodes, "constraints": format_constraints, "hcd": format_hcd}
    with atomic_outputs(targets.values()) as streams:  # renames happen only if every file was written
        for key, fh in zip(targets, streams):
            fh.writelines(writers[key](cs))
    return list(targets.values())
