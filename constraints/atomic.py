"""Atomic output files: write to a temporary sibling, rename on success.

The rules every file this project writes follows (one home for them):

* **Whole or absent.** The data goes to a hidden temporary file in the
  target's folder (``.NAME.XXXXXXXX.tmp``), which is renamed onto the target
  only when the block succeeds; an error, Ctrl-C or SIGTERM removes it, so
  no partial file is ever left behind. :func:`atomic_outputs` does the same
  for a group of files: all appear, or none does.
* **Modes.** A new file gets ``0666`` minus the umask, as ``open()`` would
  give it; a replaced file keeps its mode.
* **Checked first.** :func:`check_outputs` refuses, before any work, an
  output that names an input (also through a hard or symbolic link), a
  folder, a folder that does not exist or is not writable, or a special file.
* **Symlinks are written through**: when the target is a symbolic link, the
  file it points to is replaced and the link stays (as the shell's ``>``
  does). A hard-linked target is replaced by a new file: the other names keep
  the old content.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import secrets
import stat
from pathlib import Path
from typing import Iterable

from .errors import InputError


def resolved_target(path: str | os.PathLike) -> Path:
    """The file that writing ``path`` replaces: ``path`` itself, or the end of its symlink chain."""
    target = Path(path)
    if target.is_symlink():
        return Path(os.path.realpath(target))
    return target


def check_outputs(outputs: Iterable[str | os.PathLike], inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Refuse output paths that cannot be written, or whose writing would destroy an input.

    Call it before any work: a bad ``-o`` then costs nothing.

    Parameters
    ----------
    outputs : path-likes
        Every file a command will write.
    inputs : path-likes
        Every file it reads (those that do not exist are ignored).

    Raises
    ------
    InputError
        Naming the output: it is (or links to) one of the inputs or another
        output, is a folder or a special file (a device, a pipe), or its
        folder does not exist, is not a folder, or is not writable.
    """
    seen: dict[tuple[int, int] | Path, Path] = {}
    for p in inputs:
        with contextlib.suppress(OSError):
            st = os.stat(p)
            seen.setdefault((st.st_dev, st.st_ino), Path(p))
    n_inputs = len(seen)
    for p in outputs:
        out = Path(p)
        target = resolved_target(out)
        try:
            st = os.stat(target)
        except (FileNotFoundError, NotADirectoryError):
            st = None  # the folder is checked below
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror}", str(out)) from None
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                raise InputError("output is a folder (name a file in it)", str(out))
            if not stat.S_ISREG(st.st_mode):
                raise InputError("output is not a regular file (a device or pipe cannot be replaced "
                                 "atomically; name a file)", str(out))
            key = (st.st_dev, st.st_ino)
        else:
            key = Path(os.path.realpath(target))
        if key in seen:
            what = "the input" if list(seen).index(key) < n_inputs else "also the output"
            raise InputError(f"output is {what} {seen[key]} (writing it would destroy it; name another file)",
                             str(out))
        seen[key] = out
        folder = target.parent
        if not folder.is_dir():
            why = "does not exist" if not folder.exists() else "is not a folder"
            raise InputError(f"cannot write: the folder {folder} {why}", str(out))
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError(f"cannot write: the folder {folder} is not writable", str(out))


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, binary: bool = False, compress: bool | None = None):
    """Open ``path`` for writing so that it appears only when the block succeeds.

    ``compress=None`` gzips when the name ends in ``.gz``. Yields a binary
    stream (``binary=True``) or a UTF-8 text writer. See the module docstring
    for modes and symlinks.
    """
    with atomic_outputs([path], binary=binary, compress=compress) as (fh,):
        yield fh


@contextlib.contextmanager
def atomic_outputs(paths, binary: bool = False, compress: bool | None = None):
    """Open every path of ``paths`` like :func:`atomic_output`; rename them all only at the end.

    Yields one stream per path, in order. If the block raises, no target is
    touched. The renames themselves run last, one after another, in one pass.
    """
    paths = [Path(p) for p in paths]
    targets = [resolved_target(p) for p in paths]
    temps: list[Path] = []
    try:
        with contextlib.ExitStack() as stack:
            streams = []
            for path, target in zip(paths, targets):
                tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
                temps.append(tmp)  # known before it exists: an interrupt right after the open still removes it
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
                raw = stack.enter_context(os.fdopen(fd, "wb"))
                mode = _existing_mode(target)
                if mode is not None:
                    os.fchmod(fd, mode)
                gz = compress if compress is not None else path.name.endswith(".gz")  # by the name given
                if gz:
                    raw = stack.enter_context(gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0))
                streams.append(raw if binary else _TextWrapper(raw))
            yield streams
        for tmp, target in zip(temps, targets):
            os.replace(tmp, target)
    except BaseException:
        for tmp in temps:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        raise


def _existing_mode(target: Path) -> int | None:
    """The permission bits of ``target`` when it exists (the replacement keeps them), else None."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return None


class _TextWrapper:
    """Minimal text writer over a binary stream (UTF-8)."""

    def __init__(self, raw):
        self._raw = raw

    def write(self, s: str) -> int:
        return self._raw.write(s.encode("utf-8"))

    def writelines(self, lines) -> None:
        for s in lines:
            self.write(s)
