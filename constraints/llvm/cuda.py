"""CUDA programs: host and device modules compiled apart, analysed as one program.

A CUDA program reaches the front end as a ``.cu`` source, or as the host and
device modules of one program (``.bc``/``.ll``; a module whose target triple is
``nvptx*`` is device code). Either way the analysis sees one module made by the
``cuda_link`` helper (``reader/cuda_link.cpp``, compiled on first use like
``read_bitcode``): the device module linked into the host module, the CUDA
runtime's inline wrappers inlined, host shadows of ``__device__``/``__constant__``
variables replaced by the device variables, and every kernel launch (``<<<...>>>``,
``cudaLaunchKernel``) a direct call of the kernel, so host allocations reach the
kernel's parameters. Device symbols keep their names and device functions their
blocks and instructions: the instruction ids ``(function, block, index)`` of the
result are those of the device module's IR (:func:`device_text`), which is what
``annotate`` edits.

Sources are compiled with clang-19 as C sources are (``-O0 -g
-fno-discard-value-names -Xclang -disable-O0-optnone``, then ``mem2reg``), once
for the host (``--cuda-host-only``) and once for the device (``--cuda-device-only
--cuda-gpu-arch=sm_90``; ``$ANDERSEN_CUDA_ARCH`` picks another). clang-19 needs the
headers and libdevice of a CUDA toolkit it supports (up to 12.5; CUDA 13's
headers fail in its wrapper headers). :func:`cuda_path` finds one, in this order:
a ``--cuda-path=DIR`` clang flag, ``$ANDERSEN_CUDA_PATH``, the PyPI wheels of the
``cuda`` extra (``pip install 'andersen-gpu[cuda]'``: nvidia-cuda-runtime-cu12,
-nvcc-cu12, -cccl-cu12 and nvidia-curand-cu12, assembled into one toolkit tree of
links in the cache directory), ``/usr/local/cuda`` when it is a 12.x or older.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from .inputs import CLANG, CUDA_SUFFIXES, LLVM_DIS, OPT, READER_DIR, _first_error, _tool, cache_dir, llvm_helper

LINK_SOURCE = READER_DIR / "cuda_link.cpp"
ARCH = os.environ.get("ANDERSEN_CUDA_ARCH", "sm_90")
PATH_ENV = "ANDERSEN_CUDA_PATH"
#: The wheels of the ``cuda`` extra, as (module, parts it brings): headers, crt headers
#: and libdevice, CCCL's <nv/target>, curand's headers (clang's wrapper includes one).
WHEELS = (("nvidia.cuda_runtime", "include"), ("nvidia.cuda_nvcc", "include nvvm"),
          ("nvidia.cuda_cccl", "include"), ("nvidia.curand", "include"))
INSTALL_HINT = (f"pip install 'andersen-gpu[cuda]' (CUDA 12.5 headers from PyPI), or point {PATH_ENV} "
                f"(or --cflag=--cuda-path=DIR) at a CUDA toolkit clang-19 supports (12.5 or older)")
_NEWEST_MAJOR = 12           # clang-19's CUDA wrapper headers fail on CUDA 13's
_TRIPLE = re.compile(r'^target triple = "([^"]*)"', re.M)


def is_device_triple(triple: str) -> bool:
    """Whether a module of this target triple is CUDA device code (``nvptx``, ``nvptx64``)."""
    return triple.startswith("nvptx")


# ------------------------------------------------------------------ the toolkit
def _cuda_version(root: Path) -> int | None:
    """``CUDA_VERSION`` of ``root/include/cuda.h`` (12050 for 12.5), None without one."""
    try:
        text = (root / "include" / "cuda.h").read_text(errors="replace")
    except OSError:
        return None
    m = re.search(r"^#define CUDA_VERSION (\d+)", text, re.M)
    return int(m.group(1)) if m else None


def _wheel_roots() -> list[tuple[Path, str]] | None:
    roots = []
    for module, parts in WHEELS:
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            return None
        roots.append((Path(list(spec.submodule_search_locations)[0]), parts))
    return roots


def _assemble(roots: list[tuple[Path, str]]) -> Path:
    """One toolkit tree (``include/``, ``bin/``, ``nvvm/libdevice/``) of links into the wheels,
    in the cache directory; made once per set of wheel locations and versions."""
    key = hashlib.sha256()
    for root, _ in roots:
        key.update(os.fsencode(root))
        version = root / "include" / "cuda.h"
        key.update(str(version.stat().st_mtime_ns if version.exists() else 0).encode())
    out = cache_dir() / f"cuda-wheels-{key.hexdigest()[:16]}"
    if (out / "include" / "cuda.h").exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=out.parent))
    try:
        (tmp / "bin").mkdir()
        (tmp / "include").mkdir()
        for root, parts in roots:
            if "include" in parts.split():
                for entry in sorted((root / "include").iterdir()):
                    target = tmp / "include" / entry.name
                    if entry.name != "__init__.py" and entry.name != "__pycache__" and not target.exists():
                        target.symlink_to(entry)
            if "nvvm" in parts.split():
                (tmp / "nvvm").symlink_to(root / "nvvm")
        try:
            tmp.rename(out)
        except OSError:
            if not (out / "include" / "cuda.h").exists():  # not another process's tree
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return out


def cuda_path(clang_flags=()) -> str | None:
    """The CUDA toolkit clang-19 compiles with: None when ``clang_flags`` already name one
    (``--cuda-path=DIR``), else its directory (see the module docstring for the order).

    Raises
    ------
    InputError
        No usable toolkit (the message says how to get one), or ``$ANDERSEN_CUDA_PATH``
        names a directory without ``include/cuda.h``.
    """
    if any(str(f).startswith("--cuda-path") for f in clang_flags):
        return None
    explicit = os.environ.get(PATH_ENV)
    if explicit:
        if _cuda_version(Path(explicit)) is None:
            raise InputError(f"{PATH_ENV}={explicit}: no include/cuda.h there; {INSTALL_HINT}")
        return explicit
    roots = _wheel_roots()
    if roots is not None:
        return str(_assemble(roots))
    system = Path("/usr/local/cuda")
    version = _cuda_version(system)
    if version is not None and version // 1000 <= _NEWEST_MAJOR:
        return str(system)
    found = f" (/usr/local/cuda is CUDA {version // 1000}.{version % 1000 // 10})" if version else ""
    raise InputError(f"no CUDA headers that clang-19 can use{found}; {INSTALL_HINT}")


def available() -> str | None:
    """None when CUDA sources can be compiled here, else why not (for tests that skip)."""
    try:
        cuda_path()
    except InputError as exc:
        return str(exc)
    for tool in (CLANG, OPT):
        if shutil.which(tool) is None:
            return f"{tool} not found"
    _, why = linker()
    return why


# ------------------------------------------------------------------ compiling
def compile_cuda(path: str | os.PathLike, out_dir: str | os.PathLike, extra_flags=()) -> tuple[Path, Path]:
    """Compile one ``.cu`` file to host and device bitcode (clang-19 -O0 ... then mem2reg).

    Returns
    -------
    (host.bc, device.bc) in ``out_dir``, named after the source's stem.

    Raises
    ------
    InputError
        No CUDA toolkit clang-19 can use, clang-19 or opt-19 missing, or a compile
        error (the compiler's first error line).
    """
    from .inputs import CLANG_FLAGS, clang_then_mem2reg

    src = Path(path)
    if not src.is_file():
        raise InputError("no such file", str(src))
    root = cuda_path(extra_flags)
    where = [f"--cuda-path={root}"] if root is not None else []
    out = []
    for side, only in (("host", "--cuda-host-only"), ("device", "--cuda-device-only")):
        flags = ["-x", "cuda", "-std=c++17", *where, f"--cuda-gpu-arch={ARCH}", only, "-Wno-unknown-cuda-version",
                 *CLANG_FLAGS, *extra_flags]
        out.append(clang_then_mem2reg(flags, src, Path(out_dir) / f"{src.stem}.{side}.bc", f" ({side} side)"))
    return out[0], out[1]


# ------------------------------------------------------------------ linking
def linker() -> tuple[str | None, str | None]:
    """The compiled ``cuda_link`` helper: (path, None), or (None, why it cannot be built)."""
    return llvm_helper("cuda_link", (LINK_SOURCE,))


def _need_linker() -> str:
    exe, why = linker()
    if exe is None:
        raise InputError(f"CUDA input needs the cuda_link helper, which cannot be built: {why}")
    return exe


def triples(paths) -> list[str]:
    """The target triple of each module (``.bc`` or ``.ll``; "" where it has none).

    Raises
    ------
    InputError
        A file cannot be read, or is not LLVM 19 bitcode.
    """
    out = []
    need = []
    for p in map(Path, paths):
        if p.suffix == ".ll":
            try:
                with open(p, errors="replace") as fh:
                    m = _TRIPLE.search(fh.read(1 << 16))  # printed near the top
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror}", str(p)) from None
            out.append(m.group(1) if m else "")
        else:
            out.append(None)
            need.append(p)
    if need:
        res = subprocess.run([_need_linker(), "--triple", *map(str, need)], capture_output=True, text=True)
        if res.returncode != 0:
            raise InputError(_message(res.stderr))
        got = iter(res.stdout.split("\n"))
        out = [t if t is not None else next(got) for t in out]
    return out


def link(host: list, device: list, out: str | os.PathLike) -> Path:
    """Write the analysis module of one CUDA program (module docstring) to ``out``.

    Parameters
    ----------
    host, device : the host-side and device-side modules (``.bc`` or ``.ll``)
    out : the ``.bc`` to write

    Raises
    ------
    InputError
        An input cannot be read or linked, or the helper cannot be built.
    """
    res = subprocess.run([_need_linker(), str(out), "--host", *map(str, host), "--device", *map(str, device)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise InputError(_message(res.stderr))
    return Path(out)


def _message(stderr: str) -> str:
    line = _first_error(stderr)
    return line[len("error: "):] if line.startswith("error: ") else line


@dataclass(frozen=True)
class Program:
    """The modules of one CUDA program, compiled or given (see :func:`prepare`).

    Attributes
    ----------
    host, device : the host-side and device-side modules
    combined : the analysis module (:func:`link`)
    """

    host: list[Path]
    device: list[Path]
    combined: Path


def prepare(paths, work_dir: str | os.PathLike, extra_flags=()) -> Program | None:
    """The CUDA program among ``paths``, compiled and linked into ``work_dir``; None when
    ``paths`` are no CUDA program.

    ``paths`` is a CUDA program when one of them is a ``.cu`` source, or when they are
    two or more inputs and some modules are device modules by their triple (and some are
    not). C/C++ sources among them are compiled for the host. Without the ``cuda_link``
    helper, modules are not classified (a ``.cu`` source is then an error).

    Raises
    ------
    InputError
        As :func:`compile_cuda` and :func:`link`; also a device module without a
        host side (nothing launches its kernels), or two ``.cu`` sources.
    """
    from .inputs import SOURCE_SUFFIXES, compile_source

    paths = [Path(p) for p in paths]
    sources = [p for p in paths if p.suffix in CUDA_SUFFIXES]
    modules = [p for p in paths if p.suffix not in CUDA_SUFFIXES and p.suffix not in SOURCE_SUFFIXES]
    device_flags = []
    if not sources:
        if not modules or len(paths) < 2 or linker()[0] is None:
            return None
        device_flags = [is_device_triple(t) for t in triples(modules)]
        if not any(device_flags):
            return None
        if all(device_flags) and len(modules) == len(paths):
            raise InputError("only device modules: give the host side too (the module that launches the kernels)",
                             str(modules[0]))
    if len(sources) > 1:
        raise InputError("one .cu source per program (link the other parts as .bc/.ll)", str(sources[1]))
    work = Path(work_dir)
    host: list[Path] = []
    device: list[Path] = []
    if sources:
        h, d = compile_cuda(sources[0], work, extra_flags)
        host.append(h)
        device.append(d)
        if modules:
            device_flags = [is_device_triple(t) for t in triples(modules)]
    for p, dev in zip(modules, device_flags):
        (device if dev else host).append(p)
    for k, p in enumerate(x for x in paths if x.suffix in SOURCE_SUFFIXES):
        sub = work / f"host{k}"
        sub.mkdir()
        host.append(compile_source(p, sub, extra_flags))
    if not host:
        raise InputError("no host module among the inputs", str(paths[0]))
    combined = link(host, device, work / "cuda-program.bc")
    return Program(host, device, combined)


def device_text(program: Program) -> str:
    """The device side's IR text, as ``annotate`` edits it: a ``.ll`` device module as
    given, otherwise ``llvm-dis-19``'s print of it (one device module only).

    Raises
    ------
    InputError
        Several device modules (annotate one program's one device module), or
        ``llvm-dis-19`` missing or failing.
    """
    if len(program.device) != 1:
        raise InputError(f"{len(program.device)} device modules: annotate edits one; link them first "
                         f"(llvm-link-19) and give the result", str(program.device[-1]))
    dev = program.device[0]
    if dev.suffix == ".ll":
        try:
            return dev.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", str(dev)) from None
    res = subprocess.run([_tool(LLVM_DIS), "-o", "-", str(dev)], capture_output=True, text=True)
    if res.returncode != 0:
        raise InputError(f"{LLVM_DIS} failed: {_first_error(res.stderr)}", str(dev))
    return res.stdout
