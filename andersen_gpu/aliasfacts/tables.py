"""The alias-facts side file: three tables, as Parquet or JSON Lines.

``andersen-gpu alias INPUT -o OUT`` writes ``OUT`` and two files beside it
named by inserting ``.sets`` / ``.pairs`` before the suffix
(``facts.parquet``, ``facts.sets.parquet``, ``facts.pairs.parquet``; the same
with ``.jsonl``). Schema ``alias-facts-1``:

``OUT`` (sites): one row per load, store, atomic, memory intrinsic and call
    =============  ======  ====================================================
    site           int64   row number, the key the other tables do not use
    function       string  the enclosing function (LLVM name, no ``@``)
    block          string  its block's label (``entry``, ``for.body``, ``7``)
    index          int32   position in the block from 0; debug records and
                           ``@llvm.dbg.*`` calls are not counted
    location       string  ``file:line`` from ``!dbg``, or ""
    kind           string  load, store, atomic, memcpy, memmove, memset, call
    pointer        string  the pointer operand(s) as written (calls: the callee)
    call_class     string  calls: defined, indirect, modelled, unmodelled, asm,
                           intrinsic, assertion; "" otherwise
    set            int32   id of the location set it may read or write;
                           -1: unknown (may touch anything)
    n_locations    int32   size of that set (-1 when unknown)
    =============  ======  ====================================================

``OUT.sets``: the location sets, one row per (set, location)
    ``set`` int32, ``node`` int32 (a field slot: an object or one of its
    fields), ``name`` string (``*@g``, ``*@g#1``, ``*f:%buf``, ``*f:%call``
    for a heap object allocated at ``%call`` in ``f``)

``OUT.pairs``: may-alias pairs of location sets within each function
    ``function`` string, ``set_a`` int32, ``set_b`` int32 (``set_a <
    set_b``): two distinct sets used by the function's loads, stores, atomics
    or memory intrinsics that share a location. With the obvious rest, this is
    the whole relation: two accesses may alias iff their sets are equal, are
    listed as a pair of their function, or one of them is unknown.
    Calls are left out (their sets are mod/ref summaries; compare them through
    ``OUT.sets``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from constraints.errors import InputError

from .facts import AliasFacts

SCHEMA = "alias-facts-1"
FORMATS = {".parquet": "parquet", ".jsonl": "jsonl"}


def side_paths(out: "str | os.PathLike") -> dict[str, Path]:
    """The three file names for ``out``: ``{"sites": out, "sets": ..., "pairs": ...}``.

    Raises
    ------
    InputError
        ``out`` ends neither in ``.parquet`` nor in ``.jsonl``.
    """
    p = Path(out)
    if p.suffix not in FORMATS:
        raise InputError(f"output must end in .parquet or .jsonl, got {p.suffix or 'no suffix'!r}", str(p))
    return {"sites": p, "sets": p.with_name(p.stem + ".sets" + p.suffix),
            "pairs": p.with_name(p.stem + ".pairs" + p.suffix)}


def tables(facts: AliasFacts):
    """The three tables as pandas DataFrames: ``{"sites", "sets", "pairs"}`` (module docstring)."""
    import pandas as pd

    s = facts.sites
    n = len(s)
    sizes = np.diff(facts.set_indptr)
    site_set = facts.site_set
    sites = pd.DataFrame({
        "site": np.arange(n, dtype=np.int64),
        "function": pd.Series(s.function, dtype="string"),
        "block": pd.Series(s.block, dtype="string"),
        "index": np.asarray(s.index, np.int32),
        "location": pd.Series(s.location, dtype="string"),
        "kind": pd.Series(s.kind, dtype="string"),
        "pointer": pd.Series(s.pointer, dtype="string"),
        "call_class": pd.Series(s.call_class, dtype="string"),
        "set": site_set.astype(np.int32),
        "n_locations": np.where(site_set >= 0, sizes[np.maximum(site_set, 0)] if n else 0, -1).astype(np.int32),
    })
    set_col = np.repeat(np.arange(facts.n_sets, dtype=np.int32), sizes)
    names = facts.names
    sets = pd.DataFrame({
        "set": set_col,
        "node": facts.set_indices.astype(np.int32),
        "name": pd.Series([names[z] for z in facts.set_indices.tolist()] if names else
                          [f"#{z}" for z in facts.set_indices.tolist()], dtype="string"),
    })
    rows_f, rows_a, rows_b = [], [], []
    for fname in facts.functions():
        idx = facts.function_sites(fname)
        ids = np.unique(facts.site_set[idx])
        ids = ids[ids >= 0]
        if ids.size < 2:
            continue
        inter = np.triu(facts.intersections(ids), k=1)
        a, b = np.nonzero(inter)
        rows_f += [fname] * a.size
        rows_a.append(ids[a])
        rows_b.append(ids[b])
    pairs = pd.DataFrame({
        "function": pd.Series(rows_f, dtype="string"),
        "set_a": np.concatenate(rows_a).astype(np.int32) if rows_a else np.zeros(0, np.int32),
        "set_b": np.concatenate(rows_b).astype(np.int32) if rows_b else np.zeros(0, np.int32),
    })
    return {"sites": sites, "sets": sets, "pairs": pairs}


def write(facts: AliasFacts, out: "str | os.PathLike") -> dict[str, Path]:
    """Write the three tables next to ``out``, as a group: all three appear, or none does.

    Returns
    -------
    dict
        The paths written, as :func:`side_paths`.
    """
    from constraints.atomic import atomic_outputs

    paths = side_paths(out)
    fmt = FORMATS[paths["sites"].suffix]
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise InputError("writing .parquet needs pyarrow (pip install 'andersen-gpu[parquet]'); "
                             "or write .jsonl", str(out)) from None
    frames = tables(facts)
    with atomic_outputs([paths[key] for key in frames], binary=True) as streams:
        for (key, df), fh in zip(frames.items(), streams):
            if fmt == "parquet":
                import pyarrow as pa
                import pyarrow.parquet as pq

                table = pa.Table.from_pandas(df, preserve_index=False)
                table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                                       b"andersen-gpu": f"{SCHEMA} {key}".encode()})
                pq.write_table(table, fh)
            else:
                cols = list(df.columns)
                for row in zip(*(df[c].tolist() for c in cols)):
                    fh.write((json.dumps(dict(zip(cols, row))) + "\n").encode("utf-8"))
    return paths
