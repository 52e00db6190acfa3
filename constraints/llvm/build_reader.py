"""Building the LLVM front end's C++ helpers (``reader/*.cpp`` against LLVM 19).

Two helpers: ``read_bitcode`` (reads, links and extracts a program) and
``cuda_link`` (links a CUDA program's host and device modules, :mod:`.cuda`).
The install builds them (``setup.py``: ``pip install .`` or ``-e .``, and wheel
builds) into ``reader/NAME`` beside their sources, with ``reader/NAME.stamp``
holding the digest of the sources each was built from. Where a binary is missing
or older than its sources (a checkout run in place without installing, a source
edited after an editable install), :func:`constraints.llvm.inputs.llvm_helper`
builds one on first use into the cache directory instead, saying so on stderr.

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
#: Each helper and its sources (compiled together), in READER_DIR.
HELPERS = {"read_bitcode": ("read_bitcode.cpp", "extract.cpp", "load.cpp"), "cuda_link": ("cuda_link.cpp",)}
INSTALL_HINT = "install g++ and LLVM 19's headers (Debian: apt-get install g++ llvm-19-dev)"
_COMPILE_FAILED = " failed on "


def cxx_name() -> str:
    return os.environ.get("ANDERSEN_CXX", "g++")


def llvm_config_name() -> str:
    return os.environ.get("ANDERSEN_LLVM_CONFIG", "llvm-config-19")


def stamp_name(name: str) -> str:
    """The stamp beside an installed helper: the digest of the sources it was built from."""
    return f"{name}.stamp"


def source_digest(sources) -> str:
    """Digest of a helper's source files (raises OSError when one is missing)."""
    h = hashlib.sha256()
    for path in sources:
        h.update(Path(path).read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def sources_of(name: str, reader_dir: Path = READER_DIR) -> tuple[Path, ...]:
    return tuple(reader_dir / s for s in HELPERS[name])


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


def build(out: Path, sources, cxx: str | None = None, config: str | None = None) -> str | None:
    """Compile the helper of ``sources`` to ``out``.

    The binary goes to a temporary name first, then is renamed (concurrent builds are
    safe). Returns None on success, else why not, in one line (a missing tool, or the
    compiler's first error).
    """
    sources = [Path(s) for s in sources]
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
        cmd = [cxx, "-O2", *flags["--cxxflags"], "-fexceptions", *map(str, sources), "-o", tmp,
               *flags["--ldflags"], *flags["--libs"]]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            return f"{Path(cxx).name}{_COMPILE_FAILED}{sources[0].name}: {first_line(res.stderr)}"
        os.chmod(tmp, 0o755)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return None


def install(target_dir: Path, reader_dir: Path = READER_DIR) -> dict[str, str | None]:
    """Build every helper into ``target_dir`` (``NAME`` and ``NAME.stamp``).

    Returns ``{name: None on success, else why not}`` (the install goes on without it).
    """
    out = {}
    for name in HELPERS:
        sources = sources_of(name, reader_dir)
        try:
            digest = source_digest(sources)
        except OSError as exc:
            out[name] = f"{exc.filename} is missing"
            continue
        out[name] = build(target_dir / name, sources)
        if out[name] is None:
            (target_dir / stamp_name(name)).write_text(digest + "\n")
    return out


def installed(name: str = "read_bitcode", reader_dir: Path = READER_DIR) -> str | None:
    """The installed helper ``name`` beside its sources, when it was built from them (else None)."""
    exe, stamp = reader_dir / name, reader_dir / stamp_name(name)
    try:
        if os.access(exe, os.X_OK) and stamp.read_text().strip() == source_digest(sources_of(name, reader_dir)):
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
