"""``cupy.RawModule`` and ``cupy.RawKernel`` of the emulator: the source is compiled with g++
against tests/emu/simt.h (``tests.emu.simt.Module``) and each launch runs on the CPU before
the call returns."""

from __future__ import annotations

import re

from tests.emu import simt

from . import _memory
from .cuda.compiler import CompileException


class Function:
    """A kernel of a module: ``fn(grid, block, args, shared_mem=0, stream=None)``."""

    def __init__(self, kernel: simt.Kernel):
        self._kernel = kernel
        self.name = kernel.name

    def __call__(self, grid, block, args, *, shared_mem: int = 0, stream=None,
                 enable_cooperative_groups: bool = False) -> None:
        if enable_cooperative_groups:
            raise NotImplementedError("cooperative launches are not emulated")
        try:
            self._kernel.launch(grid, block, args, int(shared_mem))
        except simt.KernelError as exc:
            m = re.search(r"invalid memory access at address 0x([0-9a-f]+)", str(exc))
            if m:
                raise simt.KernelError(f"{exc} ({_memory.describe_address(int(m.group(1), 16))})") from None
            raise

    @property
    def max_threads_per_block(self) -> int:
        return min(1024, self._kernel.max_threads)

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        return self._kernel.module.max_dynamic_shared(self.name)

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, size: int) -> None:
        self._kernel.module.set_max_dynamic_shared(self.name, size)

    @property
    def attributes(self) -> dict:
        return dict(max_threads_per_block=self.max_threads_per_block,
                    max_dynamic_shared_size_bytes=self.max_dynamic_shared_size_bytes,
                    shared_size_bytes=0, num_regs=32, ptx_version=90, binary_version=90)


class RawModule:
    """``cupy.RawModule(code=..., options=...)``; ``path=`` (a cubin) cannot be emulated."""

    def __init__(self, code: str | None = None, *, path: str | None = None, options=(), backend="nvrtc",
                 translate_cucomplex=False, enable_cooperative_groups=False, name_expressions=None,
                 jitify=False):
        if code is None:
            raise NotImplementedError("the emulator compiles source code only (no path= to a cubin)")
        self.code, self.options = code, tuple(options)
        self.name_expressions = tuple(name_expressions or ())
        try:
            self._module = simt.Module(code, self.options, self.name_expressions)
        except simt.CompileError as exc:
            raise CompileException(str(exc), code, "simt", self.options) from None
        self._functions: dict[str, Function] = {}

    def compile(self, log_stream=None) -> None:
        """CuPy compiles here (else on the first ``get_function``); the emulator built the
        module in the constructor."""

    def get_function(self, name: str) -> Function:
        """The kernel ``name`` (a name expression's own text for a template kernel)."""
        fn = self._functions.get(name)
        if fn is None:
            fn = self._functions[name] = Function(self._module.get_function(name))
        return fn


class RawKernel:
    """``cupy.RawKernel(code, name, options=...)``."""

    def __init__(self, code: str, name: str, options=(), backend="nvrtc", translate_cucomplex=False,
                 enable_cooperative_groups=False, jitify=False):
        self.code, self.name, self.options = code, name, tuple(options)
        self._fn = RawModule(code=code, options=options).get_function(name)

    def __call__(self, grid, block, args, **kwargs) -> None:
        self._fn(grid, block, args, **kwargs)

    @property
    def attributes(self) -> dict:
        return self._fn.attributes

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        return self._fn.max_dynamic_shared_size_bytes

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, size: int) -> None:
        self._fn.max_dynamic_shared_size_bytes = size
