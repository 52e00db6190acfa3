"""From input files to one linked module's textual IR.

C and C++ sources are first compiled with clang-19 the way pointer-analysis
tools expect (``-O0 -g -fno-discard-value-names -Xclang -disable-O0-optnone``,
then ``mem2reg``). The text the extractor parses then comes from LLVM's own
code, the fastest first (bench/extract_speed.py):

* one ``.bc``: ``read_bitcode`` (``reader/read_bitcode.cpp``, linked against
  LLVM 19, compiled on first use into a cache directory, see :func:`fast_reader`):
  LLVM's bitcode reader and printer, without the debug-info verifier and
  without the debug metadata the extractor never reads (``#dbg_value``
  records, columns); the constraints are the same as from ``llvm-dis-19``'s
  text. :func:`read_module` goes one step further: ``read_bitcode --extract``
  (``reader/extract.cpp``) writes the constraints themselves, the same as the
  extractor's from the text, for every module it covers. Without ``g++`` and
  LLVM 19's headers (Debian: ``llvm-19-dev``) it is
  ``llvm-dis-19`` (the bitcode reader checks every record; the verifier is not
  run: bitcode is written by LLVM from verified modules), with one line on
  stderr saying so;
* anything else (``.ll``, several modules): ``llvm-link-19 -S``, which parses,
  links, verifies the result and prints it.

llvmlite (in process: parse, verify, link, print; about twice the CPU time of
the tools) is the fallback when the tools are not installed, and the second
reader when they reject a file: llvmlite's LLVM is newer than 19, so bitcode
from a newer clang still reads. A file both reject is bad input.
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

C_SUFFIXES = {".c": "c", ".i": "c"}
CXX_SUFFIXES = {".cc": "c++", ".cpp": "c++", ".cxx": "c++", ".C": "c++", ".c++": "c++", ".ii": "c++"}
IR_SUFFIXES = (".bc", ".ll")
SOURCE_SUFFIXES = tuple(C_SUFFIXES) + tuple(CXX_SUFFIXES)
CUDA_SUFFIXES = (".cu",)  # constraints/llvm/cuda.py
CLANG = os.environ.get("ANDERSEN_CLANG", "clang-19")
OPT = os.environ.get("ANDERSEN_OPT", "opt-19")
LLVM_DIS = os.environ.get("ANDERSEN_LLVM_DIS", "llvm-dis-19")
LLVM_LINK = os.environ.get("ANDERSEN_LLVM_LINK", "llvm-link-19")
LLVM_CONFIG = os.environ.get("ANDERSEN_LLVM_CONFIG", "llvm-config-19")
CXX = os.environ.get("ANDERSEN_CXX", "g++")
READER_DIR = Path(__file__).resolve().parent / "reader"
READER_SOURCE = READER_DIR / "read_bitcode.cpp"
READER_FILES = (READER_SOURCE, READER_DIR / "extract.cpp")  # compiled together
READERS = ("auto", "fast", "tools", "llvmlite")
BITCODE_MAGIC = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")
CLANG_FLAGS = ("-O0", "-g", "-fno-discard-value-names", "-Xclang", "-disable-O0-optnone", "-emit-llvm", "-c")


def _first_error(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error" in ln:
            return ln
    return lines[0] if lines else "no message"


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


def _read_module(llvm, path: Path):
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    if path.suffix == ".ll" or not data.startswith((b"BC\xc0\xde", b"\xde\xc0\x17\x0b")):
        if path.suffix == ".bc":
            raise InputError("not LLVM bitcode (bad magic number)", str(path))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("neither LLVM bitcode nor UTF-8 LLVM IR text", str(path)) from None
        try:
            mod = llvm.parse_assembly(text)
        except RuntimeError as exc:
            raise InputError(f"bad LLVM IR: {_llvm_message(exc)}", str(path)) from None
    else:
        try:
            mod = llvm.parse_bitcode(data)
        except RuntimeError as exc:
            newest = f"llvmlite's LLVM {'.'.join(map(str, llvm.llvm_version_info))}"
            raise InputError(f"cannot read LLVM bitcode ({_llvm_message(exc)}); truncated, corrupt, or from a "
                             f"newer LLVM than {LLVM_DIS} and {newest} read", str(path)) from None
    try:
        mod.verify()
    except RuntimeError as exc:
        raise InputError(f"invalid LLVM module: {_llvm_message(exc)}", str(path)) from None
    return mod


def _llvm_message(exc: Exception) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    useful = [ln for ln in lines if not ln.startswith("LLVM ")] or lines
    return useful[0] if useful else exc.__class__.__name__


def module_text(paths, extra_flags=(), reader: str = "auto") -> tuple[str, list[str]]:
    """Read, compile and link ``paths`` into one module; return its textual IR.

    Parameters
    ----------
    paths : list of ``.bc``, ``.ll``, or C/C++ source files (at least one)
    extra_flags : clang flags for sources
    reader : ``"auto"`` (``read_bitcode`` for one ``.bc``, else or when it cannot be
        built the LLVM tools, llvmlite when they are missing or reject the input);
        ``"fast"`` (``read_bitcode`` only), ``"tools"`` (``llvm-dis-19``/``llvm-link-19``
        only) or ``"llvmlite"``: one path only, for benchmarks

    Returns
    -------
    (text, names)
        The linked module printed as LLVM IR, and the input names in order.

    Raises
    ------
    InputError
        Missing file, unknown suffix, compile failure, unreadable bitcode or
        IR (truncated, corrupt, or from an LLVM newer than every reader here),
        or a link error (duplicate definitions).
    """
    return _read(paths, extra_flags, reader, extract=False)


class ModuleText(str):
    """A module's text from :func:`read_module`; ``extract_skipped`` says why
    ``read_bitcode`` did not extract its constraints itself ("" when it was not asked)."""

    extract_skipped: str = ""


def read_module(paths, extra_flags=(), reader: str = "auto", progress=None):
    """Like :func:`module_text`, but let ``read_bitcode`` extract the constraints when it can.

    For one ``.bc`` read by ``read_bitcode`` (``reader`` ``"auto"`` or ``"fast"``),
    the helper extracts the constraints itself (``reader/extract.cpp``, the same
    result as :class:`~constraints.llvm.extractor.ModuleExtractor` on the text)
    unless the module uses something it does not cover, or ``ANDERSEN_FAST_EXTRACT=0``.
    ``progress``, an optional tqdm-like factory ``progress(total=n)``, gets a bar over
    the instructions of the module's defined functions while the helper extracts.

    Returns
    -------
    (module, names)
        ``module`` is a :class:`~constraints.llvm.fast_extract.ExtractedModule`
        (load it with :func:`constraints.llvm.fast_extract.load`) or the module's
        text as a :class:`ModuleText`.

    Raises
    ------
    InputError
        As :func:`module_text`.
    """
    module, names = _read(paths, extra_flags, reader, extract=os.environ.get("ANDERSEN_FAST_EXTRACT", "1") != "0",
                          progress=progress)
    if isinstance(module, str) and not isinstance(module, ModuleText):
        module = ModuleText(module)
    return module, names


def _read(paths, extra_flags, reader: str, extract: bool, progress=None):
    if reader not in READERS:
        raise ValueError(f"reader must be one of {READERS}, got {reader!r}")
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
        single_bc = len(ir) == 1 and ir[0].suffix == ".bc"
        why_not_fast = None
        if reader in ("auto", "fast") and single_bc:
            exe, why_not_fast = fast_reader() if _fast_reader_wanted() or reader == "fast" else (None, None)
            if exe is not None:
                text, message = _text_with_fast_reader(exe, ir[0], extract, progress)
                if text is not None:
                    return text, names
                if reader == "fast":
                    raise InputError(f"read_bitcode cannot read it: {message}", str(ir[0]))
            elif reader == "fast":
                raise InputError(f"read_bitcode unavailable: {why_not_fast}", str(ir[0]))
        elif reader == "fast":
            raise InputError("read_bitcode reads one .bc file", str(ir[0]))
        tools = reader != "llvmlite" and shutil.which(LLVM_DIS) and shutil.which(LLVM_LINK)
        if reader == "tools" and not tools:
            _tool(LLVM_DIS), _tool(LLVM_LINK)
        if tools:
            text = _text_with_tools(ir)
            if text is not None:
                if why_not_fast is not None:
                    _note_slow_reader(why_not_fast)
                return text, names
            if reader == "tools":  # no second reader: say what the tools said
                _text_with_tools(ir, raise_error=True)
        return _text_with_llvmlite(ir), names


def _check_magic(path: Path) -> None:
    """A ``.bc`` must start with the bitcode magic (plain or wrapper)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    if path.suffix == ".bc" and head not in BITCODE_MAGIC:
        raise InputError("not LLVM bitcode (bad magic number)", str(path))


def _text_with_tools(ir: list[Path], raise_error: bool = False) -> str | None:
    """``llvm-dis-19`` (one ``.bc``) or ``llvm-link-19 -S``; None when the tool rejects the input."""
    if len(ir) == 1 and ir[0].suffix == ".bc":
        cmd = [shutil.which(LLVM_DIS), "-o", "-", str(ir[0])]
    else:
        cmd = [shutil.which(LLVM_LINK), "-S", "-o", "-", *map(str, ir)]
    res = subprocess.run(cmd, capture_output=True)
    if res.returncode == 0:
        try:
            return res.stdout.decode("utf-8")
        except UnicodeDecodeError:
            return res.stdout.decode("latin-1")  # LLVM escapes names and strings: not reached in practice
    if raise_error:
        message = _first_error(res.stderr.decode("utf-8", "replace"))
        raise InputError(f"{Path(cmd[0]).name} cannot read it: {message}", str(ir[-1]))
    return None


def _text_with_llvmlite(ir: list[Path]) -> str:
    import llvmlite.binding as llvm

    modules = [(p, _read_module(llvm, p)) for p in ir]
    main_path, main = modules[0]
    for p, other in modules[1:]:
        try:
            main.link_in(other)
        except RuntimeError as exc:
            raise InputError(f"cannot link into {main_path}: {_llvm_message(exc)}", str(p)) from None
    return str(main)


# ------------------------------------------------------------ read_bitcode
_fast_reader_cache: dict = {}   # (source hash, tools) -> (path or None, why not)
_noted: list = []               # the slow-reader note is printed once per process


def _fast_reader_wanted() -> bool:
    return os.environ.get("ANDERSEN_FAST_READER", "1") != "0"


def cache_dir() -> Path:
    """Where compiled helpers live: ``$ANDERSEN_CACHE_DIR``, else ``$XDG_CACHE_HOME/andersen-gpu``,
    else ``~/.cache/andersen-gpu``."""
    explicit = os.environ.get("ANDERSEN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "andersen-gpu"


def fast_reader() -> tuple[str | None, str | None]:
    """The compiled ``read_bitcode`` helper, built on first use (:func:`llvm_helper`).

    Returns
    -------
    (path, None), or (None, why) when it cannot be built (no ``g++``, no
    ``llvm-config-19``/LLVM 19 headers: Debian package ``llvm-19-dev``, or a
    compile error, whose first line is given).
    """
    return llvm_helper("read_bitcode", READER_FILES)


def llvm_helper(name: str, files) -> tuple[str | None, str | None]:
    """A C++ helper linked against LLVM 19, compiled from ``files`` on first use.

    The executable (``NAME-HASH`` in :func:`cache_dir`) carries a hash of its
    sources and of the compiler and ``llvm-config`` used, so an edited source or
    another LLVM builds a new one; a build goes to a temporary name first, then
    is renamed (concurrent first uses are safe). A failed compile is remembered
    next to it (``.failed``) and not retried until the sources, the compiler or
    LLVM change.

    Returns
    -------
    (path, None), or (None, why) as :func:`fast_reader`.
    """
    files = tuple(Path(f) for f in files)
    try:
        source = b"\0".join(p.read_bytes() for p in files)
    except OSError as exc:
        return None, f"{Path(exc.filename or files[0]).name} is not installed"
    cxx, config = shutil.which(CXX), shutil.which(LLVM_CONFIG)
    key = (name, hashlib.sha256(source).hexdigest()[:16], cxx, config, cache_dir())
    hit = _fast_reader_cache.get(key)
    if hit is None:
        hit = _fast_reader_cache[key] = _build_helper(name, files, source, cxx, config)
    return hit


_COMPILE_FAILED = " failed on "


def is_compile_error(why: str) -> bool:
    """True when ``fast_reader``'s reason is a compile error of the sources (the tools were
    there), not a missing compiler, ``llvm-config-19`` or LLVM headers."""
    return _COMPILE_FAILED in why


def _build_helper(name: str, files: tuple, source: bytes, cxx: str | None,
                  config: str | None) -> tuple[str | None, str | None]:
    if cxx is None:
        return None, f"no C++ compiler ({CXX})"
    if config is None:
        return None, f"no {LLVM_CONFIG} (Debian: apt-get install llvm-19 llvm-19-dev)"
    digest = hashlib.sha256(source + b"\0" + os.fsencode(cxx) + b"\0" + os.fsencode(os.path.realpath(config)))
    out = cache_dir() / f"{name}-{digest.hexdigest()[:16]}"
    if os.access(out, os.X_OK):
        return str(out), None
    failed = out.with_name(out.name + ".failed")
    if failed.is_file():
        return None, failed.read_text().strip() or "an earlier build failed"
    found = {}
    for what in ("--includedir", "--cxxflags", "--ldflags", "--libs"):
        res = subprocess.run([config, what], capture_output=True, text=True)
        if res.returncode != 0:
            return None, f"{LLVM_CONFIG} {what} failed: {_first_error(res.stderr)}"
        found[what] = res.stdout.split()
    include_dir = " ".join(found["--includedir"])
    if not (Path(include_dir) / "llvm" / "Bitcode" / "BitcodeReader.h").is_file():
        return None, f"no LLVM 19 headers in {include_dir} (Debian: apt-get install llvm-19-dev)"
    cxxflags, ldflags = found["--cxxflags"], found["--ldflags"] + found["--libs"]
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=out.name + ".", dir=out.parent)
        os.close(fd)
    except OSError as exc:
        return None, f"cannot write to {out.parent}: {exc.strerror}"
    try:
        # a one-time step that takes minutes says so (issue 21)
        print(f"andersen-gpu: building {out.name} into {out.parent} (once; a minute or two)", file=sys.stderr)
        # -fexceptions after llvm-config's -fno-exceptions: extract.cpp gives up on
        # a module by throwing (never through LLVM's frames)
        cmd = [cxx, "-O2", *cxxflags, "-fexceptions", *map(str, files), "-o", tmp, *ldflags]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            why = f"{Path(cxx).name}{_COMPILE_FAILED}{files[0].name}: {_first_error(res.stderr)}"
            failed.write_text(why + "\n")
            return None, why
        os.chmod(tmp, 0o755)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return str(out), None


def _text_with_fast_reader(exe: str, bc: Path, extract: bool = False, progress=None):
    """(text, "") or (None, why) when ``read_bitcode`` does not read ``bc``.

    With ``extract``, the text is an :class:`~.fast_extract.ExtractedModule`
    when the helper extracted the constraints, else a :class:`ModuleText`;
    ``progress`` (a tqdm-like factory) then shows the helper's progress.
    """
    from . import fast_extract

    cmd = [exe, str(bc)]
    if extract:
        try:
            cmd = [exe, "--extract", str(fast_extract.models_file(cache_dir())), str(bc)]
        except OSError:
            extract = False  # no writable cache: the text path needs no models file
    try:
        if extract and progress is not None:
            res = _run_with_progress(cmd[:-1] + ["--progress", cmd[-1]], progress)
        else:
            res = subprocess.run(cmd, capture_output=True)
    except OSError as exc:
        return None, exc.strerror or str(exc)
    if res.returncode != 0:
        return None, _first_error(res.stderr.decode("utf-8", "replace")) if res.stderr else f"exit {res.returncode}"
    out = res.stdout
    if extract and out.startswith(fast_extract.MAGIC):
        return fast_extract.ExtractedModule(out), ""
    why = ""
    if extract and out.startswith(fast_extract.TEXT_MARK):
        end = out.index(b"\n")
        why, out = out[len(fast_extract.TEXT_MARK):end].decode("utf-8", "replace"), out[end + 1:]
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError:
        text = out.decode("latin-1")
    if not extract:
        return text, ""
    text = ModuleText(text)
    text.extract_skipped = why
    return text, ""


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
        reader = threading.Thread(target=drain, args=(proc.stderr,), daemon=True)
        reader.start()
        out = proc.stdout.read()
        proc.wait()
        reader.join()
    if bar:
        bar[0].close()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, b"".join(kept))


def _note_slow_reader(why: str) -> None:
    if not _noted:
        _noted.append(why)
        print(f"note: fast bitcode reader unavailable ({why}); read with {LLVM_DIS}, "
              f"slower (ANDERSEN_FAST_READER=0 silences this)", file=sys.stderr)
