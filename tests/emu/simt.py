"""Compile CUDA kernel sources with g++ against ``simt.h`` and launch them on the CPU.

A :class:`Module` takes a kernel file's source text and options as ``cupy.RawModule`` gets
them, finds its ``__global__`` functions, appends one trampoline per kernel
(``SIMT_KERNEL``, see simt.h), builds a shared library with g++ (cached by a hash of
everything that goes into it) and loads it. :meth:`Kernel.launch` converts the argument tuple
as CuPy does (arrays by their device pointer, NumPy scalars as their own C type, a Python
``int`` as a 64-bit integer, ``float`` as a double), checks each against the kernel's
parameter types (a size mismatch, which on a GPU shifts every later parameter, is an error
here), and runs the grid.

Environment
-----------
ANDERSEN_GPU_EMULATOR_CACHE     folder of the built libraries (default ~/.cache/andersen-gpu-simt)
ANDERSEN_GPU_EMULATOR_CFLAGS    extra g++ flags (e.g. ``-O0 -g`` for gdb)
ANDERSEN_GPU_EMULATOR_SEED      an integer: schedule the threads of a block in a pseudo-random
                                order (different for every launch, repeatable per seed)
                                instead of round-robin
ANDERSEN_GPU_EMULATOR_STACK_KB  fiber stack size (256)
ANDERSEN_GPU_EMULATOR_TRACE     KERNEL[:WARP]: every scheduling point of that kernel on stderr
ANDERSEN_GPU_EMULATOR_TIMEOUT_S a launch still running after this many seconds is stopped and
                                reported as a KernelError (300; 0: never)
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import shlex
import struct
import subprocess
import tempfile
import threading
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
HEADER = HERE / "simt.h"
MAX_THREADS = 1024
MAX_DYNAMIC_SHARED = 48 * 1024
TIMEOUT_S = 300.0   # a launch still running then is stopped and reported (0: never)
_OPT = ("-O2",)
_LOCK = threading.Lock()          # one launch at a time: a library's runtime state is global
_LAUNCHES = [0]


class CompileError(RuntimeError):
    """g++ rejected a kernel source; the message holds its diagnostics."""


class LaunchError(RuntimeError):
    """A launch that CUDA would refuse (configuration, arguments)."""


class KernelError(RuntimeError):
    """A kernel failed under the emulator: deadlock, divergent warp-synchronous calls, a lane
    waiting for one that exited. The message names the kernel, block, thread and call sites."""


def cache_dir() -> Path:
    """Where built libraries are kept: ANDERSEN_GPU_EMULATOR_CACHE, else ~/.cache/andersen-gpu-simt,
    else (no writable home) a folder under the system's temporary directory."""
    d = os.environ.get("ANDERSEN_GPU_EMULATOR_CACHE")
    if d:
        return Path(d)
    home = Path.home() / ".cache" / "andersen-gpu-simt"
    try:
        home.mkdir(parents=True, exist_ok=True)
        if os.access(home, os.W_OK):
            return home
    except OSError:
        pass
    return Path(tempfile.gettempdir()) / f"andersen-gpu-simt-{os.getuid()}"


# -- finding the kernels ----------------------------------------------------------------------

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"", re.S)
_IDENT = re.compile(r"[A-Za-z_]\w*")
_DYN_SHARED = re.compile(
    r"extern\s+__shared__\s+(?:__align__\s*\(\s*\w+\s*\)\s*)?([^;\[\]]*?)\s*(?:__align__\s*\(\s*\w+\s*\)\s*)?"
    r"\b([A-Za-z_]\w*)\s*\[\s*\]\s*;")


def _blank(m: re.Match) -> str:
    text = m.group(0)
    return text if text.startswith('"') else re.sub(r"[^\n]", " ", text)


def _balanced(text: str, i: int) -> int:
    """Index just past the parenthesis that closes the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    raise CompileError("unbalanced parentheses after __launch_bounds__")


def find_kernels(text: str, kernel_word: str = "__global__",
                 bounds_word: str = "__launch_bounds__") -> list[tuple[str, str | None]]:
    """``(name, max-threads expression or None)`` of every non-template kernel of ``text``
    (best on the preprocessed translation unit, where simt.h marks kernels with
    ``__simt_kernel__`` and launch bounds with ``__simt_bounds__``), in order."""
    text = _COMMENTS.sub(_blank, text)
    text = "\n".join("" if ln.lstrip().startswith("#") else ln for ln in text.split("\n"))
    out, seen = [], set()
    for m in re.finditer(rf"\b{kernel_word}\b", text):
        before = text[max(0, m.start() - 400):m.start()]
        stmt = re.split(r"[;{}]", before)[-1]
        if re.search(r"\btemplate\s*<", stmt):
            continue
        i, bounds, name = m.end(), None, None
        while i < len(text):
            while i < len(text) and text[i].isspace():
                i += 1
            t = _IDENT.match(text, i)
            if not t:
                break
            word, i = t.group(0), t.end()
            if word == bounds_word:
                j = text.index("(", i)
                end = _balanced(text, j)
                bounds = text[j + 1:end - 1].split(",")[0].strip()
                i = end
                continue
            k = i
            while k < len(text) and text[k].isspace():
                k += 1
            if k < len(text) and text[k] == "(":
                name = word
                break
        if name and name not in seen:
            seen.add(name)
            out.append((name, bounds))
    return out


def _include_dirs(options) -> list[str]:
    dirs, opts = [], list(options)
    for i, o in enumerate(opts):
        if o.startswith("-I") and len(o) > 2:
            dirs.append(o[2:])
        elif o in ("-I", "--include-path") and i + 1 < len(opts):
            dirs.append(opts[i + 1])
        elif o.startswith("--include-path="):
            dirs.append(o.split("=", 1)[1])
    return dirs


def _gxx_flags(options) -> list[str]:
    """The NVRTC options g++ understands (-I, -D, -U, -std); the rest are the device's."""
    flags, opts, std = [], list(options), "-std=c++17"
    i = 0
    while i < len(opts):
        o = opts[i]
        if o in ("-I", "-D", "-U", "--include-path", "--define-macro") and i + 1 < len(opts):
            flags += [{"--include-path": "-I", "--define-macro": "-D"}.get(o, o) + opts[i + 1]]
            i += 2
            continue
        if o.startswith(("-I", "-D", "-U")):
            flags.append(o)
        elif o.startswith(("--include-path=", "--define-macro=")):
            flags.append(("-I" if o.startswith("--include-path") else "-D") + o.split("=", 1)[1])
        elif o.startswith(("-std=", "--std=")):
            std = "-std=" + o.split("=", 1)[1]
        i += 1
    return [std] + flags


def _display_name(code: str, dirs: list[str]) -> str:
    """The name of the file under the include folders whose text is ``code`` (for the call
    sites of reports), else a name from its hash."""
    for d in dirs:
        p = Path(d)
        if p.is_dir():
            for f in sorted(p.iterdir()):
                if f.suffix in (".cu", ".cuh") and f.is_file():
                    try:
                        if f.read_text() == code:
                            return f.name
                    except (OSError, UnicodeDecodeError):
                        pass
    return f"kernel-{hashlib.sha256(code.encode()).hexdigest()[:12]}.cu"


def _dir_digest(dirs: list[str]) -> str:
    h = hashlib.sha256()
    for d in dirs:
        p = Path(d)
        if not p.is_dir():
            continue
        for f in sorted(p.rglob("*")):
            if f.is_file() and f.suffix in (".h", ".hh", ".hpp", ".cuh", ".cu", ".inc", ".inl"):
                h.update(str(f.relative_to(p)).encode())
                h.update(f.read_bytes())
    return h.hexdigest()


_GXX_VERSION: list[str] = []


def _gxx_version() -> str:
    if not _GXX_VERSION:
        try:
            _GXX_VERSION.append(subprocess.run(["g++", "--version"], capture_output=True, text=True,
                                               check=True).stdout.split("\n")[0])
        except (OSError, subprocess.CalledProcessError) as exc:
            raise CompileError(f"g++ is needed to build kernels for the emulator: {exc}") from None
    return _GXX_VERSION[0]


# -- modules and kernels ----------------------------------------------------------------------

_PACK = {("u", 1): "B", ("i", 1): "b", ("b", 1): "?", ("u", 2): "H", ("i", 2): "h", ("u", 4): "I",
         ("i", 4): "i", ("u", 8): "Q", ("i", 8): "q", ("f", 4): "f", ("f", 8): "d", ("p", 8): "Q",
         ("f", 2): "e"}
_C_NAMES = {("u", 1): "unsigned char", ("i", 1): "signed char", ("b", 1): "bool",
            ("u", 2): "unsigned short", ("i", 2): "short", ("u", 4): "unsigned int", ("i", 4): "int",
            ("u", 8): "unsigned long long", ("i", 8): "long long", ("f", 4): "float",
            ("f", 8): "double", ("p", 8): "pointer"}


def _what(kind: str, size: int) -> str:
    return _C_NAMES.get((kind, size), f"{size}-byte {kind}")


class Kernel:
    """One ``__global__`` function of a :class:`Module`."""

    def __init__(self, module: "Module", symbol: str, display: str | None = None):
        self.module, self.name = module, display or symbol
        name = symbol
        lib = module.lib
        try:
            self._tramp = ctypes.cast(getattr(lib, f"simt_tramp_{name}"), ctypes.c_void_p).value
        except AttributeError:
            raise LaunchError(f"no kernel {name!r} in {module.display}") from None
        sig = getattr(lib, f"simt_sig_{name}")
        sig.restype = ctypes.c_char_p
        bounds = getattr(lib, f"simt_bounds_{name}")
        bounds.restype = ctypes.c_int
        self.params = [(p[0], int(p[1:])) for p in sig().decode().split(",") if p]
        self.max_threads = int(bounds())
        self._name_b = self.name.encode()

    def _convert(self, args) -> ctypes.Array:
        if not isinstance(args, tuple):
            raise TypeError(f"kernel {self.name}: the arguments must be a tuple, not {type(args).__name__}")
        if len(args) != len(self.params):
            raise LaunchError(f"kernel {self.name} takes {len(self.params)} arguments, {len(args)} given")
        buf = ctypes.create_string_buffer(8 * max(1, len(args)))
        for i, (a, (kind, size)) in enumerate(zip(args, self.params)):
            vkind, vsize, value = _classify(a)
            where = f"kernel {self.name}, argument {i}"
            if kind == "s":
                raise LaunchError(f"{where}: parameters passed by value as structs are not supported")
            if vkind == "p":
                if kind != "p":
                    raise LaunchError(f"{where}: a device array for a {_what(kind, size)} parameter")
            elif kind == "p":
                if vkind not in "iu" or vsize != 8:
                    raise LaunchError(f"{where}: {_what(vkind, vsize)} for a pointer parameter")
            elif kind in "iub":
                if vkind not in "iub":
                    raise LaunchError(f"{where}: {_what(vkind, vsize)} for a {_what(kind, size)} parameter")
                if vsize != size:
                    raise LaunchError(
                        f"{where}: {_what(vkind, vsize)} ({vsize} bytes) for a {_what(kind, size)} "
                        f"parameter ({size} bytes): CuPy passes the argument's own type, so every "
                        f"later parameter would be read from the wrong place on a GPU"
                        + (" (a Python int is passed as a 64-bit integer)" if isinstance(a, int) else ""))
            elif kind == "f" and (vkind != "f" or vsize != size):
                raise LaunchError(f"{where}: {_what(vkind, vsize)} for a {_what(kind, size)} parameter")
            try:
                struct.pack_into("<" + _PACK[(vkind, vsize)], buf, 8 * i, value)
            except (struct.error, OverflowError) as exc:
                raise LaunchError(f"{where}: {value!r} does not fit a {_what(vkind, vsize)}: {exc}") from None
        return buf

    def launch(self, grid, block, args, shared_mem: int = 0) -> None:
        """Run the kernel over ``grid`` x ``block`` (ints or tuples of up to three) with
        ``args``; returns when every block has finished. Raises LaunchError for what CUDA
        would refuse and KernelError when the kernel fails under the emulator."""
        g, b = _dims(grid, "grid"), _dims(block, "block")
        if g[0] > 2**31 - 1 or g[1] > 65535 or g[2] > 65535:
            raise LaunchError(f"kernel {self.name}: grid {g} exceeds (2^31-1, 65535, 65535)")
        if b[0] > 1024 or b[1] > 1024 or b[2] > 64:
            raise LaunchError(f"kernel {self.name}: block {b} exceeds (1024, 1024, 64)")
        threads = b[0] * b[1] * b[2]
        if threads > min(MAX_THREADS, self.max_threads):
            raise LaunchError(f"kernel {self.name}: {threads} threads per block, more than its "
                              f"__launch_bounds__ ({self.max_threads}) allow (too many resources requested)")
        if shared_mem < 0 or shared_mem > self.module.max_dynamic_shared(self.name):
            raise LaunchError(f"kernel {self.name}: {shared_mem} bytes of dynamic shared memory "
                              f"(at most {self.module.max_dynamic_shared(self.name)})")
        buf = self._convert(args)
        n = len(self.params)
        base = ctypes.addressof(buf)
        argv = (ctypes.c_void_p * max(1, n))(*[base + 8 * i for i in range(n)])
        err = ctypes.create_string_buffer(16384)
        seed_env = os.environ.get("ANDERSEN_GPU_EMULATOR_SEED")
        with _LOCK:
            _LAUNCHES[0] += 1
            seed = 0
            if seed_env:
                seed = int(hashlib.sha256(f"{seed_env}:{_LAUNCHES[0]}".encode()).hexdigest()[:15], 16) | 1
            rc = self.module._launch(self._tramp, argv, self._name_b, (ctypes.c_uint * 3)(*g),
                                     (ctypes.c_uint * 3)(*b), shared_mem, seed, err, len(err),
                                     float(os.environ.get("ANDERSEN_GPU_EMULATOR_TIMEOUT_S", TIMEOUT_S)))
        if rc == -1:
            raise KernelError(err.value.decode(errors="replace"))
        if rc != 0:
            raise LaunchError(err.value.decode(errors="replace"))


def _dims(v, what: str) -> tuple[int, int, int]:
    t = tuple(int(x) for x in v) if isinstance(v, (tuple, list)) else (int(v),)
    if not 1 <= len(t) <= 3 or any(x < 1 for x in t):
        raise LaunchError(f"invalid {what} dimensions {v!r} (1 to 3 positive sizes)")
    return t + (1,) * (3 - len(t))


def _classify(a) -> tuple[str, int, object]:
    """(kind, size, value to pack) of a kernel argument, the way CuPy passes it."""
    iface = getattr(a, "__cuda_array_interface__", None)
    if iface is not None:
        return "p", 8, int(iface["data"][0])
    if isinstance(a, np.ndarray):
        raise LaunchError(f"a numpy.ndarray (host memory) passed to a kernel: copy it to the device first")
    if isinstance(a, np.generic):
        dt = a.dtype
        kind = {"u": "u", "i": "i", "b": "b", "f": "f"}.get(dt.kind)
        if kind is None:
            raise LaunchError(f"unsupported scalar argument of dtype {dt}")
        return kind, dt.itemsize, (bool(a) if kind == "b" else a.item())
    if isinstance(a, bool):
        return "b", 1, a
    if isinstance(a, int):
        return "i", 8, a
    if isinstance(a, float):
        return "f", 8, a
    raise LaunchError(f"unsupported kernel argument of type {type(a).__name__}")


class Module:
    """A kernel source compiled for the emulator (what ``cupy.RawModule`` compiles for a GPU).

    Parameters
    ----------
    code : str        the CUDA C++ source, unchanged
    options : tuple   NVRTC options; -I, -D, -U and -std are passed to g++, the rest ignored
    name_expressions : sequence of str
                      template kernels to instantiate (``"k<float, 4>"``), then found by
                      :meth:`get_function` under that same text
    """

    def __init__(self, code: str, options=(), name_expressions=()):
        self.code = code
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions or ())
        dirs = _include_dirs(self.options)
        self.display = _display_name(code, dirs)
        self._max_dyn: dict[str, int] = {}
        body = _DYN_SHARED.sub(lambda m: f"SIMT_DYNAMIC_SHARED({m.group(1)}, {m.group(2)});", code)
        body = f'#include "simt.h"\n#line 1 "{self.display}"\n{body}\n'
        if self.name_expressions:
            body += '#line 1 "<simt name expressions>"\n' + "".join(
                f"SIMT_KERNEL_EXPR({i}, {e})\n" for i, e in enumerate(self.name_expressions))
        flags = ["g++", *_gxx_flags(self.options), f"-I{HERE}", f"-I{HERE / 'include'}"]
        extra = [*_OPT, "-fPIC", "-shared", "-fno-strict-aliasing", "-Wno-unknown-pragmas",
                 *shlex.split(os.environ.get("ANDERSEN_GPU_EMULATOR_CFLAGS", ""))]
        key = hashlib.sha256("\0".join([HEADER.read_text(), body, " ".join(flags + extra), _gxx_version(),
                                        _dir_digest(dirs)]).encode()).hexdigest()[:24]
        out = cache_dir() / f"{Path(self.display).stem}-{key}.so"
        listing = out.with_suffix(".kernels.json")
        if not (out.is_file() and listing.is_file()):
            self._build(body, flags, extra, out, listing)
        self.kernels_found = [tuple(k) for k in json.loads(listing.read_text())]
        self.path = out
        self.lib = ctypes.CDLL(str(out))
        self._launch = self.lib.simt_launch
        self._launch.restype = ctypes.c_int
        self._launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                 ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint),
                                 ctypes.c_ulonglong, ctypes.c_ulonglong, ctypes.c_char_p, ctypes.c_ulonglong,
                                 ctypes.c_double]
        self._kernels: dict[str, Kernel] = {}

    def _build(self, body: str, flags: list[str], extra: list[str], out: Path, listing: Path) -> None:
        """Preprocess (to list the kernels of the whole translation unit, headers included),
        append the trampolines, compile; the library and its kernel list land atomically."""
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=out.parent, prefix=".build-") as tmp:
            src = Path(tmp) / (Path(self.display).stem + ".cpp")
            src.write_text(body)
            r = subprocess.run(flags + ["-E", "-DSIMT_SCAN", str(src)], capture_output=True, text=True)
            if r.returncode != 0:
                raise CompileError(f"g++ failed on {self.display} for the SIMT emulator:\n{r.stderr}")
            kernels = find_kernels(r.stdout, "__simt_kernel__", "__simt_bounds__")
            tramps = "\n".join(f"SIMT_KERNEL({name}, {bounds if bounds else MAX_THREADS})"
                               for name, bounds in kernels)
            src.write_text(body + f'#line 1 "<simt trampolines>"\n{tramps}\n')
            so = Path(tmp) / "out.so"
            r = subprocess.run(flags + extra + ["-o", str(so), str(src)], capture_output=True, text=True)
            if r.returncode != 0:
                raise CompileError(f"g++ failed on {self.display} for the SIMT emulator:\n{r.stderr}")
            tmp_listing = Path(tmp) / "kernels.json"
            tmp_listing.write_text(json.dumps(kernels))
            os.replace(tmp_listing, listing)
            os.replace(so, out)   # atomic: another process may build the same library at once

    def get_function(self, name: str) -> Kernel:
        k = self._kernels.get(name)
        if k is None and name in self.name_expressions:
            k = self._kernels[name] = Kernel(self, f"expr{self.name_expressions.index(name)}", display=name)
        if k is None:
            if name not in {n for n, _ in self.kernels_found}:
                raise LaunchError(f"no kernel {name!r} in {self.display} (found: "
                                  f"{', '.join(n for n, _ in self.kernels_found) or 'none'})")
            k = self._kernels[name] = Kernel(self, name)
        return k

    def max_dynamic_shared(self, name: str) -> int:
        return self._max_dyn.get(name, MAX_DYNAMIC_SHARED)

    def set_max_dynamic_shared(self, name: str, size: int) -> None:
        if size > 227 * 1024:
            raise LaunchError(f"kernel {name}: {size} bytes of dynamic shared memory (at most 227 KiB)")
        self._max_dyn[name] = int(size)
