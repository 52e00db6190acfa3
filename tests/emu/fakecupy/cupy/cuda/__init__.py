"""``cupy.cuda`` of the emulator: one device, streams that run their work when it is issued,
events that record the host clock."""

from __future__ import annotations

import itertools
import threading
import time

from .. import _memory
from . import compiler, driver, memory, runtime  # noqa: F401
from .memory import MemoryPointer, MemoryPool, OutOfMemoryError, PinnedMemoryPool  # noqa: F401

_ptrs = itertools.count(0x5171_0000)
_local = threading.local()


class Stream:
    """``cupy.cuda.Stream``: work issued on it has run when the call that issued it returns
    (the same order on every stream is a legal CUDA schedule). ``with stream:`` makes it the
    current stream of this host thread."""

    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False,
                 priority: int | None = None):
        self.ptr = 0 if null else next(_ptrs)
        self.non_blocking = bool(non_blocking)
        self.priority = priority or 0
        self.device_id = 0

    def __enter__(self):
        stack = _stack()
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _stack().pop()

    def use(self):
        stack = _stack()
        if len(stack) > 1:
            stack[-1] = self
        else:
            stack.append(self)
        return self

    def synchronize(self) -> None:
        pass

    @property
    def done(self) -> bool:
        return True

    def record(self, event: "Event | None" = None) -> "Event":
        event = event or Event()
        event.record(self)
        return event

    def wait_event(self, event: "Event") -> None:
        if not isinstance(event, Event):
            raise TypeError(f"wait_event needs a cupy.cuda.Event, not {type(event).__name__}")

    def add_callback(self, callback, arg) -> None:
        callback(self, 0, arg)

    def launch_host_func(self, callback, arg) -> None:
        callback(arg)

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other.ptr == self.ptr

    def __hash__(self) -> int:
        return hash(self.ptr)

    def __repr__(self) -> str:
        return f"<Stream 0x{self.ptr:x} (SIMT emulator)>"


Stream.null = Stream(null=True)


class ExternalStream(Stream):
    def __init__(self, ptr: int, device_id: int = 0):
        super().__init__()
        self.ptr = int(ptr)


def _stack() -> list:
    stack = getattr(_local, "streams", None)
    if stack is None:
        stack = _local.streams = [Stream.null]
    return stack


def get_current_stream(device_id: int | None = None) -> Stream:
    return _stack()[-1]


class Event:
    """``cupy.cuda.Event``: ``record`` notes the host clock (the work before it has run)."""

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False):
        self.disable_timing = bool(disable_timing)
        self.ptr = next(_ptrs)
        self._t: float | None = None

    def record(self, stream: Stream | None = None) -> None:
        self._t = time.perf_counter()

    def synchronize(self) -> None:
        pass

    @property
    def done(self) -> bool:
        return True


def get_elapsed_time(start_event: Event, end_event: Event) -> float:
    """Milliseconds between two recorded events (host time of the emulated work)."""
    for e in (start_event, end_event):
        if e.disable_timing:
            raise runtime.CUDARuntimeError(400, "cudaErrorInvalidResourceHandle: an event made with "
                                                "disable_timing=True cannot be timed")
        if e._t is None:
            raise runtime.CUDARuntimeError(600, "cudaErrorNotReady: event not recorded")
    return (end_event._t - start_event._t) * 1e3


class Device:
    """``cupy.cuda.Device``: the one emulated device (id 0)."""

    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)
        if self.id != 0:
            raise runtime.CUDARuntimeError(101, f"cudaErrorInvalidDevice: device {self.id} (the emulator has one)")

    def synchronize(self) -> None:
        pass

    def use(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    @property
    def compute_capability(self) -> str:
        return "90"

    @property
    def mem_info(self) -> tuple[int, int]:
        return runtime.memGetInfo()

    def __int__(self) -> int:
        return self.id

    def __repr__(self) -> str:
        return "<CUDA Device 0 (SIMT emulator)>"


def is_available() -> bool:
    return True


def get_device_id() -> int:
    return 0


def set_allocator(allocator=None) -> None:
    pass


def set_pinned_memory_allocator(allocator=None) -> None:
    pass
