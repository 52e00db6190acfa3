"""Load and save constraint sets in any supported format, chosen by file name.

==========  =======================================  ==========================
format      file name                                module
==========  =======================================  ==========================
``acs``     ``*.acs``, ``*.acs.gz``                  :mod:`constraints.text_format`
``npz``     ``*.npz``                                :mod:`constraints.npz_format`
``paper``   ``B_nodes.txt[.gz]`` (+ siblings)        :mod:`constraints.paper_format`
``llvm``    ``*.bc``, ``*.ll``, ``*.c``, ``*.cc``,   :mod:`constraints.llvm` (read only)
            ``*.cpp``, ``*.cxx``, ``*.cu``
==========  =======================================  ==========================

A file whose name fits none of these is recognised by its first bytes when it
is one of ours (an ``.npz`` archive or an ``andersen-constraints`` text file).
"""

from __future__ import annotations

import gzip
import importlib
import os
import sys
import zlib
from pathlib import Path

from . import npz_format, paper_format, text_format
from .errors import InputError
from .model import ConstraintSet

FORMATS = ("acs", "npz", "paper", "llvm")
LLVM_SUFFIXES = (".bc", ".ll", ".c", ".cc", ".cpp", ".cxx", ".cu")
#: Inputs at least this large get a progress bar when stderr is a terminal.
PROGRESS_MIN_BYTES = 1 << 20

_EXPECTED = ("expected .acs, .acs.gz, .npz, a paper dump's B_nodes.txt[.gz], "
             "or LLVM input (.bc, .ll, .c, .cc, .cpp, .cxx, .cu)")


def detect_format(path: str | os.PathLike) -> str:
    """Name the format of an input file: one of :data:`FORMATS`.

    Raises
    ------
    InputError
        The file does not exist, or its format is not recognised.
    """
    name = str(path)
    by_name = _format_by_name(name)
    if by_name is not None:
        return by_name
    if name.endswith(LLVM_SUFFIXES):
        return "llvm"
    if not os.path.isfile(name):
        raise InputError("no such file", name)
    sniffed = _sniff(name)
    if sniffed is None:
        raise InputError(f"unknown input format ({_EXPECTED})", name)
    return sniffed


def _format_by_name(name: str) -> str | None:
    """The format of one of the formats we both read and write, by file name alone."""
    if name.endswith(npz_format.SUFFIX):
        return "npz"
    if text_format.is_text_file_name(name):
        return "acs"
    if paper_format.is_paper_nodes_file(name):
        return "paper"
    return None


def _sniff(path: str) -> str | None:
    with open(path, "rb") as fh:
        head = fh.read(64)
    if head.startswith(b"PK\x03\x04"):
        return "npz"
    if head.startswith(b"\x1f\x8b"):
        try:
            with gzip.open(path, "rb") as fh:
                head = fh.read(64)
        except (EOFError, OSError, zlib.error):
            return None
    if head.lstrip().startswith(text_format.FORMAT_NAME.encode()):
        return "acs"
    return None


def output_format(path: str | os.PathLike) -> str:
    """Name the format :func:`save` would write ``path`` in (by its name).

    Raises
    ------
    InputError
        The name fits no writable format.
    """
    fmt = _format_by_name(str(path))
    if fmt is not None:
        return fmt
    raise InputError("cannot tell the output format from the name "
                     "(expected .acs, .acs.gz, .npz or a paper dump's B_nodes.txt[.gz])", str(path))


def input_files(path: str | os.PathLike) -> list[Path]:
    """The files that belong to the input ``path``: itself, and for a paper dump every file of its
    family (:func:`constraints.paper_format.family`), so that no output may overwrite them."""
    if paper_format.is_paper_nodes_file(path):
        return paper_format.family(path)
    return [Path(path)]


def output_files(path: str | os.PathLike, format: str | None = None) -> list[Path]:
    """The files :func:`save` writes for ``path``: ``path`` itself, and for the paper format
    its siblings too (:func:`constraints.paper_format.paper_names`)."""
    fmt = format or output_format(path)
    if fmt == "paper":
        return list(paper_format.paper_names(path).values())
    return [Path(path)]


def _want_progress(progress: bool | None, nbytes: int) -> bool:
    if progress is None:
        return nbytes >= PROGRESS_MIN_BYTES and sys.stderr.isatty()
    return bool(progress)


def load(path: str | os.PathLike, use_hcd: bool = True, progress: bool | None = False) -> ConstraintSet:
    """Read a constraint set, choosing the reader by :func:`detect_format`.

    Parameters
    ----------
    path : path-like
        One of our dumps, a paper dump named by its nodes file, or LLVM input.
    use_hcd : bool
        Paper dumps only: read ``B_constraints_after_hcd`` with the offline
        merges and HCD table of ``B_hcd`` (the default, what the reference
        solutions are of), or else the original ``B_constraints``.
    progress : bool or None
        Show a tqdm bar on stderr while reading; ``None`` shows one only for
        large inputs when stderr is a terminal.

    Returns
    -------
    ConstraintSet

    Raises
    ------
    InputError
        Unknown format, missing file or sibling, or anything wrong inside,
        naming the file and line.
    """
    fmt = detect_format(path)
    name = str(path)
    if fmt != "llvm" and not os.path.isfile(name):
        raise InputError("no such file", name)
    if fmt == "npz":
        return npz_format.read_npz(name)
    if fmt == "acs":
        return text_format.read_text_format(name, progress=_want_progress(progress, os.path.getsize(name)))
    if fmt == "paper":
        return _load_paper(name, use_hcd, progress)
    return _load_llvm(name)


def _load_paper(name: str, use_hcd: bool, progress: bool | None) -> ConstraintSet:
    files = paper_format.locate(name, use_hcd)
    paths = [p for p in (files.nodes, files.constraints, files.hcd) if p is not None]
    total = sum(p.stat().st_size for p in paths)
    if not _want_progress(progress, total):
        return paper_format.read_paper(name, use_hcd)
    from tqdm import tqdm
    with tqdm(total=total, desc=Path(files.prefix).name, unit="B", unit_scale=True, leave=False) as bar:
        return paper_format.read_paper(name, use_hcd, on_file_read=lambda p: bar.update(p.stat().st_size))


def _load_llvm(name: str) -> ConstraintSet:
    try:
        llvm = importlib.import_module("constraints.llvm")
    except ImportError as exc:
        raise InputError(f"LLVM input support not installed ({exc})", name) from None
    return llvm.extract([name])


def save(cs: ConstraintSet, path: str | os.PathLike, format: str | None = None) -> list[Path]:
    """Write ``cs`` to ``path`` atomically, in ``format`` or the one its name says.

    Parameters
    ----------
    cs : ConstraintSet
    path : path-like
        For the paper format, the nodes file (``B_nodes.txt[.gz]``); its
        siblings are written next to it.
    format : {"acs", "npz", "paper"} or None
        None: from the name (:func:`output_format`).

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    InputError
        Unknown format, or a set the paper format cannot represent.
    """
    fmt = format or output_format(path)
    if fmt == "acs":
        text_format.write_text(cs, path)
    elif fmt == "npz":
        npz_format.write_npz(cs, path)
    elif fmt == "paper":
        return paper_format.write_paper(cs, path)
    else:
        raise InputError(f"unknown output format {fmt!r} (expected acs, npz or paper)", str(path))
    return [Path(path)]
