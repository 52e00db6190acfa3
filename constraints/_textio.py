"""Shared helpers for reading line-oriented dump files (plain or gzipped).

The fast path hands whole files to pandas' C parser; when it rejects a file,
:func:`scan_rows` walks the lines in Python to name the exact line at fault.
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from pathlib import Path
from typing import Iterator

from ._memory import available_bytes, require
from .errors import InputError


def is_gzip(path: str | os.PathLike) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def read_text(path: str | os.PathLike) -> str:
    """Read a whole (possibly gzipped) text file.

    Raises
    ------
    InputError
        Missing file, truncated or corrupt gzip, bytes that are not text, or more
        text than the available memory holds.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError("no such file", str(p))
    limit = available_bytes()
    try:
        if is_gzip(p):
            with gzip.open(p, "rb") as fh:
                data = fh.read(limit + 1)
            if len(data) > limit:
                raise InputError(f"decompresses to more than the {limit / 2**30:,.1f} GiB of memory available",
                                 str(p))
        else:
            require(p.stat().st_size, "reading the file", str(p))
            data = p.read_bytes()
    except (EOFError, gzip.BadGzipFile, zlib.error, OSError) as exc:
        raise InputError(f"truncated or corrupt gzip data ({exc.__class__.__name__}: {exc})", str(p)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not a text file (byte {exc.start} is not UTF-8)", str(p)) from None


def scan_rows(text: str, source: str, comment: str = "#") -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, fields)`` for every non-blank, non-comment line.

    Fields are split on commas and stripped. Line numbers are 1-based.
    """
    for lineno, line in enumerate(io.StringIO(text), start=1):
        s = line.strip()
        if not s or s.startswith(comment):
            continue
        yield lineno, [f.strip() for f in s.split(",")]


def parse_int(field: str, source: str, line: int, what: str) -> int:
    """Parse one integer field, or raise an :class:`InputError` naming the line."""
    try:
        return int(field)
    except ValueError:
        raise InputError(f"{what}: expected an integer, got {field!r}", source, line) from None
