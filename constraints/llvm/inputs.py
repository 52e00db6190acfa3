"""From input files to one linked module's textual IR.

C and C++ sources are first compiled with clang-19 the way pointer-analysis
tools expect (``-O0 -g -fno-discard-value-names -Xclang -disable-O0-optnone``,
then ``mem2reg``). The text the extractor parses then comes from LLVM's own
tools run as one subprocess, the fastest path measured (bench/extract_speed.py):

* one ``.bc``: ``llvm-dis-19`` (the bitcode reader checks every record; the
  verifier is not run: bitcode is written by LLVM from verified modules);
* anything else (``.ll``, several modules): ``llvm-link-19 -S``, which parses,
  links, verifies the result and prints it.

llvmlite (in process: parse, verify, link, print; about twice the CPU time of
the tools) is the fallback when the tools are not installed, and the second
reader when they reject a file: llvmlite's LLVM is newer than 19, so bitcode
from a newer clang still reads. A file both reject is bad input.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import InputError

C_SUFFIXES = {".c": "c", ".i": "c"}
CXX_SUFFIXES = {".cc": "c++", ".cpp": "c++", ".cxx": "c++", ".C": "c++", ".c++": "c++", ".ii": "c++"}
IR_SUFFIXES = (".bc", ".ll")
SOURCE_SUFFIXES = tuple(C_SUFFIXES) + tuple(CXX_SUFFIXES)
CLANG = os.environ.get("ANDERSEN_CLANG", "clang-19")
OPT = os.environ.get("ANDERSEN_OPT", "opt-19")
LLVM_DIS = os.environ.get("ANDERSEN_LLVM_DIS", "llvm-dis-19")
LLVM_LINK = os.environ.get("ANDERSEN_LLVM_LINK", "llvm-link-19")
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
    clang, opt = _tool(CLANG), _tool(OPT)
    out_dir = Path(out_dir)
    raw = out_dir / f"{src.stem}.O0.bc"
    out = out_dir / f"{src.stem}.bc"
    std = ["-std=c++17"] if lang == "c++" else []
    cmd = [clang, "-x", lang, *std, *CLANG_FLAGS, *extra_flags, str(src), "-o", str(raw)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise InputError(f"{CLANG} failed: {_first_error(res.stderr)}", str(src))
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
    reader : ``"auto"`` (LLVM tools, llvmlite when they are missing or reject
        the input), ``"tools"`` or ``"llvmlite"`` (one path only, for benchmarks)

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
    paths = [Path(p) for p in paths]
    if not paths:
        raise InputError("no input files")
    for p in paths:
        if not p.exists():
            raise InputError("no such file", str(p))
        if p.suffix not in IR_SUFFIXES and p.suffix not in SOURCE_SUFFIXES:
            raise InputError(f"unknown input kind {p.suffix!r}; expected .bc, .ll, .c, .cc or .cpp", str(p))
    names = [str(p) for p in paths]
    with tempfile.TemporaryDirectory(prefix="andersen-cc-") as tmp:
        ir = []
        for k, p in enumerate(paths):
            if p.suffix in SOURCE_SUFFIXES:
                sub = Path(tmp) / str(k)
                sub.mkdir()
                ir.append(compile_source(p, sub, extra_flags))
            else:
                _check_magic(p)
                ir.append(p)
        tools = reader != "llvmlite" and shutil.which(LLVM_DIS) and shutil.which(LLVM_LINK)
        if reader == "tools" and not tools:
            _tool(LLVM_DIS), _tool(LLVM_LINK)
        if tools:
            text = _text_with_tools(ir)
            if text is not None:
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
