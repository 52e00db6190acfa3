"""Building ``read_bitcode``, the LLVM front end's helper (``reader/*.cpp`` against LLVM 19).

The install builds it (``setup.py``: ``pip install .`` or ``-e .``, and wheel builds)
into ``reader/read_bitcode`` beside its sources, with ``reader/read_bitcode.stamp``
holding the digest of the sources it was built from. Where that binary is missing
or older than the sources (a checkout run in place without installing, a source
edited after an editable install), :func:`constraints.llvm.inputs.reader` builds
one on first use into the cache directory instead, saying so on stderr.

The standard library only: ``setup.py`` loads this file by its path, before any
dependency of the package is installed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

READER_DIR = Path(__file__).resolve().parent / "reader"
SOURCES = ("read_bitcode.cpp", "extract.cpp", "load.cpp")  # compiled together
INSTALLED = "read_bitcode"        # the installed binary's name in READER_DIR
STAMP = "read_bitcode.stamp"      # beside it: the digest of the sources it was built from
INSTALL_HINT = "install g++ and LLVM 19's headers (Debian: apt-get install g++ llvm-19-dev)"
_COMPILE_FAILED = " failed on read_bitcode.cpp: "


def cxx_name() -> str:
    return os.environ.get("ANDERSEN_CXX", "g++")


def llvm_config_name() -> str:
    return os.environ.get("ANDERSEN_LLVM_CONFIG", "llvm-config-19")


def source_digest(reader_dir: Path = READER_DIR) -> str:
    """Digest of the helper's sources (raises OSError when one is missing)."""
    h = hashlib.sha256()
    for name in SOURCES:
        h.update((reader_dir / name).read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def is_compile_error(why: str) -> bool:
    """True when a reason from :func:`build` is a compile error of the sources (the tools
    were there), not a missing compiler, ``llvm-config-19`` or LLVM headers."""
    return _COMPILE_FAILED in why


def missing_tools() -> tuple[str | None, str | None, str | None]:
    """``(cxx, llvm_config, None)`` with their paths, or ``(None, None, why)`` when the
    compiler, ``llvm-config-19`` or LLVM 19's headers are missing."""
    cxx, config = shutil.which(cxx_name()), shutil.which(llvm_config_name())
    if cxx is None:
        return None, None, f"no C++ compiler ({cxx_name()})"
    if config is None:
        return None, None, f"no {llvm_config_name()}"
    res = subprocess.run([config, "--includedir"], capture_output=True, text=True)
    include_dir = res.stdout.strip()
    if res.returncode != 0 or not (Path(include_dir) / "llvm" / "Linker" / "Linker.h").is_file():
        return None, None, f"no LLVM 19 headers in {include_dir or '?'}"
    return cxx, config, None


def build(out: Path, reader_dir: Path = READER_DIR, cxx: str | None = None, config: str | None = None) -> str | None:
    """Compile the helper from the sources in ``reader_dir`` to ``out``.

    The binary goes to a temporary name first, then is renamed (concurrent builds are
    safe). Returns None on success, else why not, in one line (a missing tool, or the
    compiler's first error).
    """
    if cxx is None or config is None:
        cxx, config, why = missing_tools()
        if why:
            return why
    flags = {}
    for what in ("--cxxflags", "--ldflags", "--libs"):
        res = subprocess.run([config, what], capture_output=True, text=True)
        if res.returncode != 0:
            return f"{llvm_config_name()} {what} failed: {first_line(res.stderr)}"
        flags[what] = res.stdout.split()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=out.name + ".", dir=out.parent)
        os.close(fd)
    except OSError as exc:
        return f"cannot write to {out.parent}: {exc.strerror}"
    try:
        # -fexceptions after llvm-config's -fno-exceptions: extract.cpp gives up on
        # a module by throwing (never through LLVM's frames)
        cmd = [cxx, "-O2", *flags["--cxxflags"], "-fexceptions", *(str(reader_dir / s) for s in SOURCES),
               "-o", tmp, *flags["--ldflags"], *flags["--libs"]]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            return f"{Path(cxx).name}{_COMPILE_FAILED}{first_line(res.stderr)}"
        os.chmod(tmp, 0o755)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return None


def install(target_dir: Path, reader_dir: Path = READER_DIR) -> str | None:
    """Build the installed helper into ``target_dir`` (``read_bitcode`` and its stamp).

    Returns None on success, else why not (the install goes on without it).
    """
    try:
        digest = source_digest(reader_dir)
    except OSError as exc:
        return f"{exc.filename} is missing"
    why = build(target_dir / INSTALLED, reader_dir)
    if why is None:
        (target_dir / STAMP).write_text(digest + "\n")
    return why


def installed(reader_dir: Path = READER_DIR) -> str | None:
    """The installed helper beside the sources, when it was built from them (else None)."""
    exe, stamp = reader_dir / INSTALLED, reader_dir / STAMP
    try:
        if os.access(exe, os.X_OK) and stamp.read_text().strip() == source_digest(reader_dir):
            return str(exe)
    except OSError:
        pass
    return None


def first_line(text: str) -> str:
    """The first line of a tool's message that says "error", else its first line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error" in ln:
            return ln
    return lines[0] if lines else "no message"
