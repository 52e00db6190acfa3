"""Device memory of the emulated GPU: host buffers with CuPy's memory-pool accounting.

Every allocation is a NumPy byte buffer aligned to 256 bytes (as cudaMalloc's); the pool
counts its size rounded up to 512 bytes (CuPy's pool granularity) while any array still uses
it. A limit (``MemoryPool.set_limit`` or ANDERSEN_GPU_EMULATOR_MEMORY, e.g. ``64M``) makes
allocations past it raise ``OutOfMemoryError``, as on a device that is full.
"""

from __future__ import annotations

import bisect
import os
import re
import threading
import weakref

import numpy as np

ALIGN = 256
ROUND = 512


def _parse_size(text: str) -> int:
    """Bytes of a size such as ``65536``, ``64M``, ``1.5GiB``."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([KMGT]?)(?:I?B)?\s*", text, re.I)
    if not m:
        raise ValueError(f"ANDERSEN_GPU_EMULATOR_MEMORY: not a size: {text!r} (e.g. 64M, 2G)")
    return int(float(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2).upper()])


class OutOfMemoryError(MemoryError):
    """``cupy.cuda.memory.OutOfMemoryError``: the device (its limit) cannot hold an allocation."""

    def __init__(self, size: int, total: int, limit: int = 0):
        self.size, self.total, self.limit = size, total, limit
        msg = f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes"
        msg += f", limit set to: {limit:,} bytes)." if limit else ")."
        super().__init__(msg)


class MemoryPool:
    """``cupy.cuda.MemoryPool``: what the arrays of this process hold on the device."""

    def __init__(self):
        self._used = 0
        self._limit = 0
        env = os.environ.get("ANDERSEN_GPU_EMULATOR_MEMORY")
        if env:
            self._limit = _parse_size(env)
        self._lock = threading.Lock()
        self._starts: list[int] = []           # sorted start addresses of live allocations
        self._ends: dict[int, int] = {}
        self._roots: dict[int, weakref.ref] = {}   # id(buffer) -> buffer, for views

    # -- CuPy's interface
    def used_bytes(self) -> int:
        return self._used

    def total_bytes(self) -> int:
        return self._used

    def free_bytes(self) -> int:
        return 0

    def n_free_blocks(self) -> int:
        return 0

    def free_all_blocks(self, stream=None) -> None:
        """Nothing is cached: a buffer goes back when its last array does."""

    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        if fraction is not None:
            size = int(fraction * DEVICE_BYTES)
        self._limit = int(size or 0)

    def get_limit(self) -> int:
        return self._limit

    # -- the emulator's side
    def capacity(self) -> int:
        return self._limit or DEVICE_BYTES

    def _charge(self, nbytes: int) -> int:
        size = -(-max(nbytes, 1) // ROUND) * ROUND
        with self._lock:
            limit = self._limit
            if limit and self._used + size > limit:
                raise OutOfMemoryError(nbytes, self._used, limit)
            self._used += size
        return size

    def _release(self, size: int, start: int) -> None:
        with self._lock:
            self._used -= size
            i = bisect.bisect_left(self._starts, start)
            if i < len(self._starts) and self._starts[i] == start:
                del self._starts[i]
                self._ends.pop(start, None)

    def _forget(self, key: int, size: int, start: int) -> None:
        self._roots.pop(key, None)
        self._release(size, start)

    def allocate(self, nbytes: int) -> np.ndarray:
        """A fresh uint8 buffer of ``nbytes`` at a 256-byte aligned address."""
        size = self._charge(nbytes)
        try:
            raw = np.empty(nbytes + ALIGN, np.uint8)
        except MemoryError:
            self._release(size, -1)
            raise OutOfMemoryError(nbytes, self._used, self._limit) from None
        off = (-raw.ctypes.data) % ALIGN
        buf = raw[off:off + nbytes]
        # the finalizer watches `raw`, which every view keeps alive through its bases
        self._register_raw(raw, buf, size)
        return buf

    def _register_raw(self, raw: np.ndarray, buf: np.ndarray, size: int) -> None:
        start = buf.ctypes.data
        with self._lock:
            bisect.insort(self._starts, start)
            self._ends[start] = start + max(buf.nbytes, 1)
            self._roots[id(raw)] = weakref.ref(raw)
        weakref.finalize(raw, self._forget, id(raw), size, start)

    def adopt(self, arr: np.ndarray) -> None:
        """Count a fresh array NumPy made (an operation's result) as a device allocation,
        unless it is a view of one already counted."""
        root = arr
        while isinstance(root.base, np.ndarray):
            root = root.base
        ref = self._roots.get(id(root))
        if ref is not None and ref() is root:
            return
        size = self._charge(root.nbytes)
        with self._lock:
            start = root.ctypes.data
            bisect.insort(self._starts, start)
            self._ends[start] = start + max(root.nbytes, 1)
            self._roots[id(root)] = weakref.ref(root)
        weakref.finalize(root, self._forget, id(root), size, start)

    def owner_range(self, ptr: int) -> tuple[int, int] | None:
        """[start, end) of the live allocation holding address ``ptr``, or None."""
        with self._lock:
            i = bisect.bisect_right(self._starts, ptr) - 1
            if i < 0:
                return None
            start = self._starts[i]
            end = self._ends[start]
            return (start, end) if ptr < end else None


DEVICE_BYTES = 16 << 30   # what the emulated device reports without a limit
POOL = MemoryPool()


def get_default_memory_pool() -> MemoryPool:
    return POOL


class PinnedMemoryPool:
    def used_bytes(self) -> int:
        return 0

    def free_all_blocks(self) -> None:
        pass


PINNED_POOL = PinnedMemoryPool()


def get_default_pinned_memory_pool() -> PinnedMemoryPool:
    return PINNED_POOL


class MemoryPointer:
    """``cupy.cuda.MemoryPointer`` of an array: ``ptr`` is its first byte's address."""

    __slots__ = ("ptr", "device_id")

    def __init__(self, ptr: int):
        self.ptr = int(ptr)
        self.device_id = 0

    def __int__(self) -> int:
        return self.ptr

    def __repr__(self) -> str:
        return f"<MemoryPointer 0x{self.ptr:x} (SIMT emulator)>"


def describe_address(ptr: int) -> str:
    """Where ``ptr`` lies against the live device allocations (for fault reports)."""
    with POOL._lock:
        i = bisect.bisect_right(POOL._starts, ptr) - 1
        below = (POOL._starts[i], POOL._ends[POOL._starts[i]]) if i >= 0 else None
    if below and ptr < below[1]:
        return f"inside the {below[1] - below[0]:,}-byte allocation at 0x{below[0]:x}"
    if below:
        return (f"{ptr - below[1]:,} bytes past the end of the {below[1] - below[0]:,}-byte allocation at "
                f"0x{below[0]:x}, the nearest below it")
    return "below every device allocation"


def check_range(ptr: int, nbytes: int, what: str) -> None:
    """Raise the CUDA error a device would for ``nbytes`` at ``ptr`` outside one allocation."""
    from .cuda.runtime import CUDARuntimeError
    if nbytes == 0:
        return
    rng = POOL.owner_range(int(ptr))
    if rng is None or int(ptr) + nbytes > rng[1]:
        raise CUDARuntimeError(1, f"{what}: {nbytes} bytes at 0x{int(ptr):x} are not inside one device "
                                  f"allocation (cudaErrorInvalidValue)")
