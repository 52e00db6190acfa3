"""From input files to the helper's extraction of one linked program.

C and C++ sources are first compiled with clang-19 the way pointer-analysis
tools expect (``-O0 -g -fno-discard-value-names -Xclang -disable-O0-optnone``,
then ``mem2reg``); a CUDA program (a ``.cu`` source, or host and device modules)
is compiled and linked into one module by :mod:`.cuda`. ``read_bitcode`` (``reader/``, linked against LLVM 19, see
:func:`reader`) then reads the program (one ``.bc`` as it is; ``.ll`` files and
several inputs linked as ``llvm-link-19`` links them, ``reader/load.cpp``) and
extracts its constraints (``reader/extract.cpp``), with the access sites when
asked; :mod:`.fast_extract` loads them. Bitcode LLVM 19 cannot read (truncated,
corrupt, or from a newer LLVM) is bad input.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import InputError
from . import build_reader

C_SUFFIXES = {".c": "c", ".i": "c"}
CXX_SUFFIXES = {".cc": "c++", ".cpp": "c++", ".cxx": "c++", ".C": "c++", ".c++": "c++", ".ii": "c++"}
IR_SUFFIXES = (".bc", ".ll")
SOURCE_SUFFIXES = tuple(C_SUFFIXES) + tuple(CXX_SUFFIXES)
CUDA_SUFFIXES = (".cu",)  # constraints/llvm/cuda.py
CLANG = os.environ.get("ANDERSEN_CLANG", "clang-19")
OPT = os.environ.get("ANDERSEN_OPT", "opt-19")
LLVM_DIS = os.environ.get("ANDERSEN_LLVM_DIS", "llvm-dis-19")  # the device text annotate edits (cuda.py)
READER_DIR = build_reader.READER_DIR
READER_SOURCE = READER_DIR / "read_bitcode.cpp"
BITCODE_MAGIC = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")
CLANG_FLAGS = ("-O0", "-g", "-fno-discard-value-names", "-Xclang", "-disable-O0-optnone", "-emit-llvm", "-c")
_first_error = build_reader.first_line


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise InputError(f"{name} not found on PATH; install it (Debian: apt-get install clang-19 llvm-19) "
                         f"to compile C/C++ inputs, or pass .bc/.ll files")
    return path


def compile_source(path: str | os.PathLike, out_dir: str | os.PathLike, extra_flags=()) -> Path:
    """Compile one C/C++ file to bitcode (clang-19 -O0 ... then mem2reg).

    Parameters
    ----------
    path : source file (``.c``, ``.cc``, ``.cpp``, ...)
    out_dir : where the ``.bc`` goes (its name is the source's stem)
    extra_flags : more clang flags (``-I``, ``-D``)

    Returns
    -------
    Path of the written ``.bc``.

    Raises
    ------
    InputError
        clang-19 or opt-19 missing, or the source fails to compile (the
        message is the compiler's first error line).
    """
    src = Path(path)
    if not src.is_file():
        raise InputError("no such file", str(src))
    lang = C_SUFFIXES.get(src.suffix) or CXX_SUFFIXES.get(src.suffix)
    if lang is None:
        raise InputError(f"not a C/C++ source (suffix {src.suffix!r})", str(src))
    std = ["-std=c++17"] if lang == "c++" else []
    return clang_then_mem2reg(["-x", lang, *std, *CLANG_FLAGS, *extra_flags], src, Path(out_dir) / f"{src.stem}.bc")


def clang_then_mem2reg(flags: list[str], src: Path, out: Path, what: str = "") -> Path:
    """``clang-19 FLAGS SRC`` into a temporary ``.O0.bc`` beside ``out``, then ``opt-19
    -passes=mem2reg`` into ``out``; ``what`` names the compile in errors (" (host side)").

    Raises
    ------
    InputError
        clang-19 or opt-19 missing, or either fails (its first error line).
    """
    clang, opt = _tool(CLANG), _tool(OPT)
    raw = out.with_suffix(".O0.bc")
    res = subprocess.run([clang, *flags, str(src), "-o", str(raw)], capture_output=True, text=True)
    if res.returncode != 0:
        raise InputError(f"{CLANG}{what} failed: {_first_error(res.stderr)}", str(src))
    res = subprocess.run([opt, "-passes=mem2reg", str(raw), "-o", str(out)], capture_output=True, text=True)
    if res.returncode != 0:
        raise InputError(f"{OPT} -passes=mem2reg failed: {_first_error(res.stderr)}", str(src))
    raw.unlink()
    return out


def read_module(paths, extra_flags=(), progress=None, sites: bool = False, model_constants: bool = False):
    """Compile, read and link ``paths`` into one program and extract its constraints.

    Parameters
    ----------
    paths : list of ``.bc``, ``.ll``, or C/C++ source files (at least one), or a CUDA
        program (``.cu``, or its host and device modules: :mod:`.cuda`)
    extra_flags : clang flags for sources
    progress : optional tqdm-like factory ``progress(total=n)``: a bar over the
        instructions of the program's defined functions while the helper extracts
    sites : also record the access sites (:mod:`.access_sites`)
    model_constants : one object per read-only global of plain data, not one for all
        (:func:`constraints.llvm.extract_with_stats`)

    Returns
    -------
    (module, names)
        The helper's output (:class:`~constraints.llvm.fast_extract.ExtractedModule`,
        load it with :func:`constraints.llvm.fast_extract.load`) and the input names
        in order.

    Raises
    ------
    InputError
        Missing file, unknown suffix, compile failure, unreadable bitcode or IR,
        a link error (duplicate definitions), or no helper (it cannot be built
        here: the message says what to install).
    """
    from . import fast_extract

    paths = [Path(p) for p in paths]
    if not paths:
        raise InputError("no input files")
    for p in paths:
        if not p.exists():
            raise InputError("no such file", str(p))
        if p.suffix not in IR_SUFFIXES and p.suffix not in SOURCE_SUFFIXES and p.suffix not in CUDA_SUFFIXES:
            raise InputError(f"unknown input kind {p.suffix!r}; expected .bc, .ll, .c, .cc, .cpp or .cu", str(p))
    names = [str(p) for p in paths]
    with tempfile.TemporaryDirectory(prefix="andersen-cc-") as tmp:
        from . import cuda

        program = cuda.prepare(paths, tmp, extra_flags)  # host and device as one module
        if program is not None:
            paths = [program.combined]
        ir = []
        for k, p in enumerate(paths):
            if p.suffix in SOURCE_SUFFIXES:
                sub = Path(tmp) / str(k)
                sub.mkdir()
                ir.append(compile_source(p, sub, extra_flags))
            else:
                _check_magic(p)
                ir.append(p)
        exe, why = reader()
        if exe is None:
            hint = "" if build_reader.is_compile_error(why) else f"; {build_reader.INSTALL_HINT}"
            raise InputError(f"the LLVM front end's helper read_bitcode cannot be built here ({why}){hint}",
                             names[0])
        try:
            models = fast_extract.models_file(cache_dir())
        except OSError as exc:
            raise InputError(f"cannot write the models table to {cache_dir()}: {exc.strerror}") from None
        files = [str(p) for p in ir]
        cmd = [exe, "--extract", str(models), *(["--sites"] if sites else []), *(["--progress"] if progress else []),
               *(["--model-constants"] if model_constants else []), *files]
        try:
            res = _run_with_progress(cmd, progress) if progress else subprocess.run(cmd, capture_output=True)
        except OSError as exc:
            raise InputError(f"cannot run {exe}: {exc.strerror or exc}", names[0]) from None
    if res.returncode != 0:
        message = _first_error(res.stderr.decode("utf-8", "replace")) if res.stderr else f"exit {res.returncode}"
        message = message.removeprefix("error: ")
        for p, name in zip(files, names):  # a compiled source's .bc is named by the source
            message = message.replace(p, name)
        raise InputError(message, None if any(message.startswith(n) for n in names) else names[0])
    return fast_extract.ExtractedModule(res.stdout), names


def _check_magic(path: Path) -> None:
    """A ``.bc`` must start with the bitcode magic (plain or wrapper)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    if path.suffix == ".bc" and head not in BITCODE_MAGIC:
        raise InputError("not LLVM bitcode (bad magic number)", str(path))


# ------------------------------------------------------------ read_bitcode
_reader_cache: dict = {}   # (helper, source digest, tools, cache dir) -> (path or None, why not)


def cache_dir() -> Path:
    """Where compiled helpers live: ``$ANDERSEN_CACHE_DIR``, else ``$XDG_CACHE_HOME/andersen-gpu``,
    else ``~/.cache/andersen-gpu``."""
    explicit = os.environ.get("ANDERSEN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "andersen-gpu"


def reader() -> tuple[str | None, str | None]:
    """The ``read_bitcode`` helper (:func:`llvm_helper`)."""
    return llvm_helper("read_bitcode", build_reader.sources_of("read_bitcode"))


def llvm_helper(name: str, files) -> tuple[str | None, str | None]:
    """A C++ helper linked against LLVM 19: the installed one, else one built on first use.

    The install builds ``read_bitcode`` and ``cuda_link`` beside their sources
    (:mod:`.build_reader`, ``setup.py``); such a binary is used while its stamp names
    the current sources. Otherwise (run from a checkout without installing, or sources
    edited since) it is built from ``files`` into :func:`cache_dir`, with one line on
    stderr saying so; the executable's name there (``NAME-HASH``) carries a hash of the
    sources and of the compiler and ``llvm-config`` used, so an edited source or another
    LLVM builds a new one. A failed compile is remembered next to it (``.failed``) and
    not retried until the sources, the compiler or LLVM change.

    Returns
    -------
    (path, None), or (None, why) when it cannot be built (no ``g++``, no
    ``llvm-config-19``/LLVM 19 headers: Debian package ``llvm-19-dev``, or a
    compile error, whose first line is given).
    """
    exe = build_reader.installed(name) if name in build_reader.HELPERS else None
    if exe is not None:
        return exe, None
    files = tuple(Path(f) for f in files)
    try:
        digest = build_reader.source_digest(files)
    except OSError as exc:
        return None, f"{Path(exc.filename or files[0]).name} is not installed"
    key = (name, digest, shutil.which(build_reader.cxx_name()), shutil.which(build_reader.llvm_config_name()),
           cache_dir())
    hit = _reader_cache.get(key)
    if hit is None:
        hit = _reader_cache[key] = _build_helper(name, files, digest)
    return hit


is_compile_error = build_reader.is_compile_error


def _build_helper(name: str, files: tuple, digest: str) -> tuple[str | None, str | None]:
    cxx, config, why = build_reader.missing_tools()
    if why is not None:
        return None, why
    key = hashlib.sha256(f"{digest}\0{cxx}\0{os.path.realpath(config)}".encode()).hexdigest()[:16]
    out = cache_dir() / f"{name}-{key}"
    if os.access(out, os.X_OK):
        return str(out), None
    failed = out.with_name(out.name + ".failed")
    if failed.is_file():
        return None, failed.read_text().strip() or "an earlier build failed"
    print(f"andersen-gpu: building {name}, a helper of the LLVM front end, into {out.parent} "
          f"(once for these sources, about half a minute)", file=sys.stderr, flush=True)
    why = build_reader.build(out, files, cxx=cxx, config=config)
    if why is not None:
        if build_reader.is_compile_error(why):
            failed.write_text(why + "\n")
        return None, why
    return str(out), None


def _run_with_progress(cmd: list[str], progress) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True)`` for ``read_bitcode --progress``: its
    "progress DONE TOTAL" lines on stderr drive a bar made by ``progress(total=TOTAL)``;
    the other stderr lines are kept in the result."""
    import threading

    kept: list[bytes] = []
    bar = []

    def drain(stream) -> None:
        for line in stream:
            words = line.split()
            if len(words) == 3 and words[0] == b"progress" and words[1].isdigit() and words[2].isdigit():
                done, total = int(words[1]), int(words[2])
                if not bar:
                    bar.append(progress(total=total))
                bar[0].update(done - bar[0].n)
            else:
                kept.append(line)

    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        drainer = threading.Thread(target=drain, args=(proc.stderr,), daemon=True)
        drainer.start()
        out = proc.stdout.read()
        proc.wait()
        drainer.join()
    if bar:
        bar[0].close()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, b"".join(kept))
