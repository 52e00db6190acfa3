"""``cupy.cuda.runtime`` of the emulator: one device, whose properties say what it is."""

from __future__ import annotations

import ctypes

from .. import _memory

cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost = 0, 1, 2
cudaMemcpyDeviceToDevice, cudaMemcpyDefault = 3, 4
# A small device: persistent grids (multiprocessors x resident blocks) stay a few blocks.
MULTIPROCESSORS = 2


class CUDARuntimeError(RuntimeError):
    def __init__(self, status: int, message: str = ""):
        self.status = status
        super().__init__(message or f"CUDA runtime error {status}")


def getDeviceCount() -> int:
    return 1


def getDevice() -> int:
    return 0


def setDevice(device: int) -> None:
    if int(device) != 0:
        raise CUDARuntimeError(101, f"cudaErrorInvalidDevice: device {device} (the emulator has one)")


def getDeviceProperties(device: int) -> dict:
    setDevice(device)
    return {
        "name": b"SIMT emulator", "totalGlobalMem": _memory.POOL.capacity(),
        "sharedMemPerBlock": 48 * 1024, "sharedMemPerBlockOptin": 227 * 1024,
        "sharedMemPerMultiprocessor": 228 * 1024, "regsPerBlock": 65536, "warpSize": 32,
        "maxThreadsPerBlock": 1024, "maxThreadsDim": (1024, 1024, 64),
        "maxGridSize": (2**31 - 1, 65535, 65535), "clockRate": 1_000_000, "totalConstMem": 65536,
        "major": 9, "minor": 0, "multiProcessorCount": MULTIPROCESSORS,
        "maxThreadsPerMultiProcessor": 2048, "maxBlocksPerMultiProcessor": 32,
        "l2CacheSize": 1 << 20, "memoryBusWidth": 64, "memoryClockRate": 1_000_000,
        "concurrentKernels": 1, "asyncEngineCount": 1, "unifiedAddressing": 1,
        "managedMemory": 0, "pciBusID": 0, "pciDeviceID": 0, "pciDomainID": 0,
        "ECCEnabled": 0, "integrated": 0, "canMapHostMemory": 0, "computeMode": 0,
        "uuid": b"\0" * 16,
    }


def deviceGetAttribute(attrib: int, device: int) -> int:
    raise CUDARuntimeError(1, "deviceGetAttribute is not emulated; use getDeviceProperties")


def runtimeGetVersion() -> int:
    return 13000


def driverGetVersion() -> int:
    return 13000


def deviceSynchronize() -> None:
    pass


def streamSynchronize(stream: int) -> None:
    pass


def memGetInfo() -> tuple[int, int]:
    cap = _memory.POOL.capacity()
    return max(0, cap - _memory.POOL.used_bytes()), cap


def memsetAsync(ptr: int, value: int, size: int, stream: int = 0) -> None:
    """Set ``size`` bytes at device address ``ptr`` to ``value`` (now)."""
    _memory.check_range(ptr, int(size), "cudaMemsetAsync")
    if size:
        ctypes.memset(int(ptr), int(value) & 0xFF, int(size))


def memset(ptr: int, value: int, size: int) -> None:
    memsetAsync(ptr, value, size)


def memcpyAsync(dst: int, src: int, size: int, kind: int, stream: int = 0) -> None:
    """Copy ``size`` bytes; device addresses must lie inside one allocation each."""
    size = int(size)
    if kind in (cudaMemcpyDeviceToDevice, cudaMemcpyHostToDevice):
        _memory.check_range(dst, size, "cudaMemcpyAsync (destination)")
    if kind in (cudaMemcpyDeviceToDevice, cudaMemcpyDeviceToHost):
        _memory.check_range(src, size, "cudaMemcpyAsync (source)")
    if size:
        ctypes.memmove(int(dst), int(src), size)


def memcpy(dst: int, src: int, size: int, kind: int) -> None:
    memcpyAsync(dst, src, size, kind)


def profilerStart() -> None:
    pass


def profilerStop() -> None:
    pass
