"""Constraints extracted inside ``read_bitcode`` (``reader/extract.cpp``), loaded with numpy.

``read_bitcode --extract MODELS [--sites] FILE...`` walks the module LLVM has
read (one ``.bc``, or ``.ll``/``.bc`` files linked) and writes the constraint set
in columns, with the access sites of :mod:`.access_sites` after ``--sites``.

The external-function models live in :mod:`.externals` only: :func:`models_file`
writes them to a file the helper reads (one per version of the table).

The columnar form (little-endian, native sizes)::

    b"ANDX2\\n"
    int64[11]  n_nodes, n_addr, n_copy, n_load, n_store, n_gep, len(names), len(locations), len(stats),
               int_to_pointer (-1: none), n_call
    int32[n]   obj_size (-1: a field-insensitive object, of size 1)
    int32[n]   location index per node (into the location table)
    int32[..]  addr_dst, addr_src, copy_dst, copy_src, load_dst, load_src,
               store_dst, store_src, gep_dst, gep_src, gep_offset, call_dst, call_src, call_offset
    int8[n]    kind
    names      every node's name, each followed by NUL
    locations  the distinct locations, each followed by NUL ("" first)
    stats      tab-separated lines (counts, opcodes, unmodelled calls, unknown opcodes, alias assertions)

and, with ``--sites`` (the access sites of :mod:`.access_sites`, for the alias facts)::

    b"SITES\\n"
    int64[4]   n_sites, n_site_nodes, len(strings), n_functions
    int32[..]  index, width, fp, result (n_sites each), node_indptr (n_sites + 1), nodes
    int8[..]   kind, call_class (-1: none; indices into SITE_KINDS and CALL_CLASSES)
    strings    function, block, location, pointer, callee of each site, then the name and
               the class digit of every function, each followed by NUL
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..model import ConstraintSet
from . import externals
from ..model import NodeKind
from .access_sites import CALL_CLASSES, SITE_KINDS, AccessSites
from .stats import AliasCheck, ExtractStats

MAGIC = b"ANDX2\n"
SITES_MAGIC = b"SITES\n"


@dataclass(frozen=True)
class ExtractedModule:
    """The helper's output for one module: the columns (see module docstring)."""

    payload: bytes


def _item(x) -> str:
    if isinstance(x, bool) or not isinstance(x, (int, str, tuple)):
        raise TypeError(f"model item {x!r}: expected int, str or tuple")
    if isinstance(x, int):
        return f"i{x}"
    if isinstance(x, str):
        return f"s{x}"
    return "t" + "|".join(_item(y) for y in x)


def models_text() -> str:
    """:mod:`.externals`' tables as the lines ``extract.cpp`` reads.

    ``M name effects`` (effects ``;``-separated, items ``,``-separated: ``iK`` an
    integer, ``sTEXT`` a string, ``t...`` a ``|``-separated tuple), ``A name k,k``
    (:data:`~.externals.ALLOC_SIZE_ARGS`), ``R name tag`` (:data:`~.externals.STATIC_RECORDS`,
    empty tag for None), ``S tag slots`` (:data:`~.externals.RECORD_SLOTS`), ``T global key``
    (:data:`~.externals.LIBRARY_GLOBAL_TEXT`) and ``C name`` (:data:`~.externals.ALIAS_CHECKS`);
    tab-separated.
    """
    lines = []
    for name, model in externals.MODELS.items():
        lines.append(f"M\t{name}\t" + ";".join(",".join(_item(x) for x in eff) for eff in model))
    for name, ks in externals.ALLOC_SIZE_ARGS.items():
        lines.append(f"A\t{name}\t" + ",".join(str(k) for k in ks))
    for name, tag in externals.STATIC_RECORDS.items():
        lines.append(f"R\t{name}\t{tag or ''}")
    for tag, n in externals.RECORD_SLOTS.items():
        lines.append(f"S\t{tag}\t{n}")
    for name, key in externals.LIBRARY_GLOBAL_TEXT.items():
        lines.append(f"T\t{name}\t{key}")
    for name in externals.ALIAS_CHECKS:
        lines.append(f"C\t{name}")
    return "\n".join(lines) + "\n"


_models_path: dict = {}


def models_file(directory: Path) -> Path:
    """The models table written under ``directory`` (once per content)."""
    text = models_text()
    key = (hashlib.sha256(text.encode()).hexdigest()[:16], str(directory))
    path = _models_path.get(key)
    if path is None or not path.is_file():
        path = directory / f"models-{key[0]}.tsv"
        if not path.is_file():
            directory.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # then renamed: concurrent writers are safe
            tmp.write_text(text)
            tmp.replace(path)
        _models_path[key] = path
    return path


def load(module: ExtractedModule, inputs=(), collapse_cycles: bool = True) -> tuple[ConstraintSet, ExtractStats]:
    """The ConstraintSet and ExtractStats of the helper's output (``collapse_cycles``: the set's
    :attr:`~constraints.model.ConstraintSet.collapse_cycles`).

    Raises
    ------
    InputError
        When the payload is cut short or malformed (a helper that died mid-write).
    """
    data = module.payload
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 88:
        raise InputError("read_bitcode --extract: malformed output")
    head = np.frombuffer(data, np.int64, 11, len(MAGIC))
    n, n_addr, n_copy, n_load, n_store, n_gep, names_len, locs_len, stats_len, i2p, n_call = (int(x) for x in head)
    pos = len(MAGIC) + 88
    counts = [n, n, n_addr, n_addr, n_copy, n_copy, n_load, n_load, n_store, n_store, n_gep, n_gep, n_gep,
              n_call, n_call, n_call]
    expected = pos + 4 * sum(counts) + n + names_len + locs_len + stats_len
    if len(data) != expected and not data.startswith(SITES_MAGIC, expected):
        raise InputError(f"read_bitcode --extract: {len(data)} bytes, expected {expected}")
    arrays = []
    for c in counts:
        arrays.append(np.frombuffer(data, np.int32, c, pos))
        pos += 4 * c
    size, loc, cols, calls = arrays[0], arrays[1], arrays[2:13], arrays[13:]
    kind = np.frombuffer(data, np.int8, n, pos)
    pos += n
    names = data[pos:pos + names_len].decode("utf-8").split("\0")[:-1]
    pos += names_len
    table = np.array(data[pos:pos + locs_len].decode("utf-8").split("\0")[:-1], dtype=object)
    pos += locs_len
    stats_lines = data[pos:pos + stats_len].decode("utf-8").splitlines()
    locations = table[loc].tolist()
    fi = np.flatnonzero(size < 0)        # a field-insensitive object's size is written as -1
    cs = ConstraintSet(n, np.abs(size.astype(np.int64)), kind, *cols, int_to_pointer=i2p, names=names,
                       locations=locations, field_insensitive=fi, collapse_cycles=collapse_cycles,
                       call_dst=calls[0], call_src=calls[1], call_offset=calls[2], call_geps=True)
    stats = ExtractStats(inputs=list(inputs))
    if len(data) != expected:
        stats.access_sites = _sites(data, expected)
    for line in stats_lines:
        f = line.split("\t")
        if f[0] == "opcode":
            stats.opcodes[f[1]] += int(f[2])
        elif f[0] == "unmodelled":
            stats.unmodelled_calls[f[1]] += int(f[2])
        elif f[0] == "unknown":
            stats.unknown_instructions[f[1]] += int(f[2])
        elif f[0] == "callback":
            stats.callbacks[(f[1], f[2])] += int(f[3])
        elif f[0] == "alias_check":
            stats.alias_checks.append(AliasCheck(f[1], int(f[2]), int(f[3]), f[4], f[5]))
        else:
            setattr(stats, f[0], int(f[1]))
    kinds = np.bincount(kind, minlength=4)
    stats.node_kinds = {k.name.lower(): int(kinds[int(k)]) for k in NodeKind}
    stats.constraints = {k: cs.count(k) for k in ("addr", "copy", "load", "store", "gep")}
    stats.opcodes = Counter(stats.opcodes)
    return cs, stats


def _sites(data: bytes, pos: int) -> AccessSites:
    """The access sites after the statistics (see module docstring)."""
    pos += len(SITES_MAGIC)
    if len(data) < pos + 32:
        raise InputError("read_bitcode --extract: malformed access sites")
    n, n_nodes, strings_len, n_funcs = (int(x) for x in np.frombuffer(data, np.int64, 4, pos))
    pos += 32
    if len(data) != pos + 4 * (5 * n + 1 + n_nodes) + 2 * n + strings_len:
        raise InputError("read_bitcode --extract: malformed access sites")
    cols = []
    for c in (n, n, n, n, n + 1, n_nodes):
        cols.append(np.frombuffer(data, np.int32, c, pos).tolist())
        pos += 4 * c
    kind = np.frombuffer(data, np.int8, n, pos)
    cls = np.frombuffer(data, np.int8, n, pos + n)
    pos += 2 * n
    strings = data[pos:pos + strings_len].decode("utf-8").split("\0")[:-1]
    classes = ("",) + CALL_CLASSES  # -1: not a call
    fc = strings[5 * n:]
    return AccessSites(
        function=strings[0:5 * n:5], block=strings[1:5 * n:5], location=strings[2:5 * n:5],
        pointer=strings[3:5 * n:5], callee=strings[4:5 * n:5], index=cols[0], width=cols[1], fp=cols[2],
        result=cols[3], node_indptr=cols[4], nodes=cols[5], kind=[SITE_KINDS[k] for k in kind.tolist()],
        call_class=[classes[c + 1] for c in cls.tolist()],
        function_class={fc[2 * k]: CALL_CLASSES[int(fc[2 * k + 1])] for k in range(n_funcs)})
