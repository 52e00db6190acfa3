"""Our compact binary format for constraint sets: a NumPy ``.npz`` archive.

Members (all plain arrays, readable with ``allow_pickle=False``):

* ``format``: the string ``"andersen-gpu-constraints-1"`` (``-2``: see below);
* ``n_nodes``, ``int_to_pointer``: int64 scalars;
* ``obj_size``, ``kind`` and the eleven constraint columns of
  :class:`~constraints.model.ConstraintSet`, plus ``hcd_ptr``/``hcd_target``;
* ``offline_rep``: only when the set carries offline merges;
* ``walk_dst``/``walk_src``/``walk_offset``: only when the set has walk geps
  (a preprocessed set; see :mod:`constraints.model`);
* ``field_insensitive``: only when the set has field-insensitive objects; the
  format is then ``"andersen-gpu-constraints-2"``, so that a reader that knows
  only version 1 refuses the file instead of dropping them (its solution would
  lose every pointee that a gep keeps on such an object);
* ``collapse_cycles``, ``call_geps``: int64 1, only when set, and ``call_dst``/
  ``call_src``/``call_offset`` only when the set has call geps (:mod:`constraints.model`);
  the format is then ``"andersen-gpu-constraints-3"``, so that an older reader refuses
  the file instead of solving another model;
* ``names_blob``/``names_offsets`` and ``locations_blob``/``locations_offsets``:
  only when present; the UTF-8 bytes of all strings back to back, and the
  int64 end offset of each.

Reading then writing is exact.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import fields

import numpy as np

from ._memory import require
from .atomic import atomic_output
from .errors import InputError
from .model import ConstraintSet

FORMAT_TAG = "andersen-gpu-constraints-1"
FORMAT_TAG_FI = "andersen-gpu-constraints-2"   # with field-insensitive objects
FORMAT_TAG_CC = "andersen-gpu-constraints-3"   # with collapse_cycles, call_geps or call geps
SUFFIX = ".npz"
_STRING_FIELDS = ("names", "locations")
_SCALAR_FIELDS = ("n_nodes", "int_to_pointer")
_OPTIONAL_FIELDS = ("walk_dst", "walk_src", "walk_offset", "field_insensitive",
                    "call_dst", "call_src", "call_offset")   # written only when not empty
_FLAG_FIELDS = ("collapse_cycles", "call_geps")   # int64 1, written only when set (version 3)


def write_npz(cs: ConstraintSet, path: str | os.PathLike) -> None:
    """Write ``cs`` to ``path`` as a compressed ``.npz``, atomically."""
    v3 = cs.collapse_cycles or cs.call_geps or len(cs.call_dst)
    tag = FORMAT_TAG_CC if v3 else FORMAT_TAG_FI if len(cs.field_insensitive) else FORMAT_TAG
    members: dict[str, np.ndarray] = {"format": np.array(tag)}
    for f in fields(cs):
        value = getattr(cs, f.name)
        if value is None or (f.name in _OPTIONAL_FIELDS and not len(value)):
            continue
        if f.name in _FLAG_FIELDS:
            if value:
                members[f.name] = np.array(1, np.int64)
        elif f.name in _SCALAR_FIELDS:
            members[f.name] = np.array(value, np.int64)
        elif f.name in _STRING_FIELDS:
            members[f"{f.name}_blob"], members[f"{f.name}_offsets"] = pack_strings(value)
        else:
            members[f.name] = value
    with atomic_output(path, binary=True, compress=False) as fh:
        np.savez_compressed(fh, **members)


def read_npz(path: str | os.PathLike) -> ConstraintSet:
    """Read a constraint set written by :func:`write_npz`.

    Raises
    ------
    InputError
        The file is missing, not a zip archive, truncated, not of this format,
        lacks a member, has a member that claims more than it holds
        (:func:`check_members`), or holds a set that fails validation.
    """
    src = str(path)
    if not os.path.isfile(src):
        raise InputError("no such file", src)
    check_members(src)
    try:
        with np.load(src, allow_pickle=False) as z:
            tag = str(z["format"]) if "format" in z.files else None
            if tag not in (FORMAT_TAG, FORMAT_TAG_FI, FORMAT_TAG_CC):
                raise InputError(f"not an andersen-gpu constraint set (.npz without format={FORMAT_TAG!r}, "
                                 f"{FORMAT_TAG_FI!r} or {FORMAT_TAG_CC!r})", src)
            if tag == FORMAT_TAG and "field_insensitive" in z.files:
                raise InputError(f"format {FORMAT_TAG!r} with a field_insensitive member (a version-2 member)",
                                 src)
            for name in _FLAG_FIELDS + ("call_dst",):
                if tag != FORMAT_TAG_CC and name in z.files:
                    raise InputError(f"format {tag!r} with a {name} member (a version-3 member)", src)
            values = {}
            for f in fields(ConstraintSet):
                if f.name in _STRING_FIELDS:
                    if f"{f.name}_blob" in z.files:
                        values[f.name] = unpack_strings(z[f"{f.name}_blob"], z[f"{f.name}_offsets"], src, f.name)
                elif f.name in _FLAG_FIELDS:
                    values[f.name] = f.name in z.files and int(z[f.name]) == 1
                elif f.name in z.files:
                    values[f.name] = int(z[f.name]) if f.name in _SCALAR_FIELDS else z[f.name]
                elif f.name != "offline_rep" and f.name not in _OPTIONAL_FIELDS:
                    raise InputError(f"member {f.name!r} missing", src)
    except InputError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"unreadable .npz ({exc.__class__.__name__}: {exc})", src) from None
    try:
        return ConstraintSet(**values)
    except InputError as exc:
        raise exc.at(src) from None


def check_members(path: str) -> None:
    """Refuse an ``.npz`` whose members claim more data than they hold, or than memory holds.

    Each ``.npy`` member's header gives its shape; numpy allocates that much before reading
    the data. Checked here first: shape times item size against the member's size in the
    archive, and the members' total against :func:`constraints._memory.available_bytes`.

    Raises
    ------
    InputError
        Naming the member; or the archive is unreadable.
    """
    from numpy.lib import format as npy

    total = 0
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if not info.filename.endswith(".npy"):
                    continue
                with zf.open(info) as fh:
                    version = npy.read_magic(fh)
                    read_header = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
                    shape, _, dtype = read_header(fh, max_header_size=1 << 16)
                    header_bytes = fh.tell()
                count = int(np.prod(shape, dtype=object))
                need = count * dtype.itemsize
                if need > info.file_size - header_bytes:
                    raise InputError(f"member {info.filename[:-4]!r} claims shape {shape} ({need:,} bytes) but "
                                     f"holds {max(0, info.file_size - header_bytes):,} bytes", path)
                total += need
    except InputError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"unreadable .npz ({exc.__class__.__name__}: {exc})", path) from None
    require(total, "reading its arrays", path)


def pack_strings(strings) -> tuple[np.ndarray, np.ndarray]:
    """Strings as two arrays for an ``.npz``: their UTF-8 bytes back to back (uint8) and the
    int64 end offset of each (the inverse of :func:`unpack_strings`)."""
    encoded = [s.encode("utf-8") for s in strings]
    offsets = np.cumsum([len(b) for b in encoded], dtype=np.int64)
    return np.frombuffer(b"".join(encoded), np.uint8), offsets


def unpack_strings(blob: np.ndarray, offsets: np.ndarray, src: str, what: str) -> tuple[str, ...]:
    """The strings :func:`pack_strings` packed; :class:`InputError` (naming ``src`` and ``what``)
    when the offsets do not fit the bytes or the bytes are not UTF-8."""
    data = blob.astype(np.uint8, copy=False).tobytes()
    ends = offsets.astype(np.int64).tolist()
    if any(b < a for a, b in zip([0] + ends, ends)) or (ends[-1] if ends else 0) != len(data):
        raise InputError(f"{what}: string offsets do not fit the data", src)
    try:
        return tuple(data[a:b].decode("utf-8") for a, b in zip([0] + ends[:-1], ends))
    except UnicodeDecodeError as exc:
        raise InputError(f"{what}: not UTF-8 ({exc.reason})", src) from None
