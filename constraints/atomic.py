"""Atomic output files: write to a temporary sibling, rename on success.

A failed or interrupted write leaves no partial file behind.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import tempfile
from pathlib import Path


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, binary: bool = False, compress: bool | None = None):
    """Open ``path`` for writing so that it appears only when the block succeeds.

    ``compress=None`` gzips when the name ends in ``.gz``.
    """
    target = Path(path)
    if compress is None:
        compress = target.name.endswith(".gz")
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as raw:
            if compress:
                with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as gz:
                    yield gz if binary else _TextWrapper(gz)
            elif binary:
                yield raw
            else:
                yield _TextWrapper(raw)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


class _TextWrapper:
    """Minimal text writer over a binary stream (UTF-8)."""

    def __init__(self, raw):
        self._raw = raw

    def write(self, s: str) -> int:
        return self._raw.write(s.encode("utf-8"))

    def writelines(self, lines) -> None:
        for s in lines:
            self.write(s)
