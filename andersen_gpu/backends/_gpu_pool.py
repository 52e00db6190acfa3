"""The device pool of sparse bit-vector elements and the control block (see kernels_cu/bitvec.cuh).

One element is 32 uint32 words (base, 30 bit-words, next): 128 bytes. Elements are handed out
by a bump pointer kept on the device in ``ctl[CTL_TOP]``; kernels that find the pool full raise
an overflow flag, and :meth:`DevicePool.grow` reallocates (copying the used part) so that the
host can run the interrupted step again.
"""

from __future__ import annotations

import cupy
import numpy as np

import kernels_cu

ELEM_WORDS = 32
ELEM_BYTES = 4 * ELEM_WORDS
NIL = np.uint32(0xFFFFFFFF)

# slots of the control block; must match kernels_cu/bitvec.cuh
CTL_TOP, CTL_OVF_RULES, CTL_OVF_UPDATE, CTL_CHANGED, CTL_NPAIRS, CTL_PAIR_FILL = 0, 1, 2, 3, 4, 5
CTL_WORK_RULES, CTL_WORK_UPDATE, CTL_WORK_AUX, CTL_DELTA_BITS = 6, 7, 8, 9
CTL_NSUCC, CTL_SUCC_FILL, CTL_NACTIVE, CTL_ACTIVE_FILL = 10, 11, 12, 13
CTL_RULES_ITEMS, CTL_UPDATE_ITEMS, CTL_EMIT_ITEMS = 16, 17, 18   # 14, 15: _gpu_merge
CTL_SLOTS = 24
BLOCK = 256  # WARPS_PER_BLOCK * 32
# Below this many representatives the per-node kernels walk all of them (see DevicePool.frontier):
# a frontier launch then costs more than the walk it saves.
FRONTIER_MIN_NODES = 8192


def compile_options() -> tuple[str, ...]:
    """NVRTC options shared by every kernel file (they include bitvec.cuh)."""
    return ("-std=c++17", f"-I{kernels_cu.DIRECTORY}")


class KernelModule:
    """A compiled kernel file whose functions are looked up once each.

    ``RawModule.get_function`` costs about 2.3 us a call on the H200's host, and a solve of
    ex made 438 of them (1 ms of its 20)."""

    def __init__(self, raw: cupy.RawModule):
        self.raw = raw
        self._functions: dict[str, object] = {}

    def get_function(self, name: str):
        fn = self._functions.get(name)
        if fn is None:
            fn = self._functions[name] = self.raw.get_function(name)
        return fn


@cupy.memoize(for_each_device=True)
def module(name: str) -> KernelModule:
    """The kernels of file ``name`` (compiled on first use, per device)."""
    return KernelModule(cupy.RawModule(code=kernels_cu.source(name), options=compile_options()))


_PROPERTIES: dict[int, dict] = {}


def device_properties() -> dict:
    """``cudaGetDeviceProperties`` of the current device, memoized per device: a query costs
    about 1.2 ms of host time on the H200's host, and every solve needs the name and the
    multiprocessor count."""
    dev = cupy.cuda.runtime.getDevice()
    props = _PROPERTIES.get(dev)
    if props is None:
        props = _PROPERTIES[dev] = cupy.cuda.runtime.getDeviceProperties(dev)
    return props


def persistent_grid() -> int:
    """Blocks for a persistent kernel: enough resident warps to fill every multiprocessor."""
    return int(device_properties()["multiProcessorCount"]) * (2048 // BLOCK)


def fill_bytes(arr: cupy.ndarray, value: int) -> None:
    """Set every byte of the contiguous ``arr`` to ``value`` (0xFF gives NIL words) by one
    memset on the current stream: a launch costs less host time than CuPy's ``fill``."""
    if arr.nbytes:
        cupy.cuda.runtime.memsetAsync(arr.data.ptr, value, arr.nbytes, cupy.cuda.get_current_stream().ptr)


class DevicePool:
    """Element pool (uint32[cap * 32]) plus the u64[24] control block.

    Parameters
    ----------
    capacity : int
        Initial capacity in elements (>= 1).
    """

    def __init__(self, capacity: int):
        self.cap = int(max(1, capacity))
        self.words = cupy.empty(self.cap * ELEM_WORDS, dtype=cupy.uint32)
        self.ctl = cupy.zeros(CTL_SLOTS, dtype=cupy.uint64)
        self.growths = 0
        self._scratch: dict[str, cupy.ndarray] = {}

    def scratch(self, key: str, size: int) -> cupy.ndarray:
        """uint32[size], uninitialised: a buffer kept for this solve under ``key`` and reused
        (reallocated larger when short), so that per-round buffers cost no allocation."""
        buf = self._scratch.get(key)
        if buf is None or buf.size < size:
            buf = self._scratch[key] = cupy.empty(max(size, 1024, 2 * (buf.size if buf is not None else 0)),
                                                  cupy.uint32)
        return buf[:size]

    def clear_counts(self) -> None:
        """Zero the per-round slots of the control block (``ctl[CTL_CHANGED:]``), one memset."""
        fill_bytes(self.ctl[CTL_CHANGED:], 0)

    def frontier(self, key: str, slot: int, g, kernel, args: tuple,
                 again: bool = False) -> tuple[cupy.ndarray, cupy.ndarray]:
        """The nodes of the device graph ``g`` that a per-node kernel must visit this round, as
        ``(work, count)``: the first ``count[0]`` (uint64, on the device) entries of ``work``.

        From ``FRONTIER_MIN_NODES`` representatives on, a frontier kernel (``heads_frontier``,
        ``rules_frontier``; see bitvec.cuh; ``args`` are its arguments before ``work``) fills
        this solve's buffer ``key`` and counts into ``ctl[slot]`` (zeroed first); below, it is
        every representative (``g.nodes``, ``g.n_work_dev``). With ``again``, the list the
        last call made (for a kernel run again over the same nodes). No synchronisation."""
        n_work = g.n_work
        if n_work < FRONTIER_MIN_NODES:
            return g.nodes, g.n_work_dev
        work = self.scratch(key, n_work)
        count = self.ctl[slot:slot + 1]
        if again:
            return work, count
        fill_bytes(count, 0)
        kernel(((n_work + BLOCK - 1) // BLOCK,), (BLOCK,), (*args, work, count))
        return work, count

    @property
    def nbytes(self) -> int:
        return self.cap * ELEM_BYTES

    def args(self) -> tuple:
        """The (pool_w, ctl, cap) kernel arguments."""
        return (self.words, self.ctl, np.uint32(self.cap))

    def grow(self, top: int, stage_through_host: bool = False) -> None:
        """Reallocate to at least twice the capacity and continue.

        ``top`` is the bump pointer the kernels left (it may run past ``cap`` after failed
        requests); it is reset to the old capacity, the first element nothing used.

        The used part is copied on the device when the old and the new pool fit side by side.
        When they do not (or ``stage_through_host``, for tests), it is copied to host memory,
        the old pool is freed, and the new one is allocated alone (twice the pool, else the
        least the kernels asked for plus an eighth): the pool can then grow to nearly all of the
        device's memory, where a 52 GiB pool could not double beside itself on a 139 GiB H200,
        at the cost of two host copies. Only when even that fails, MemoryError.
        """
        old = self.cap
        new_cap = max(2 * old, int(top) + old // 2 + 1)
        if new_cap >= 2**32 - 1:
            raise MemoryError(f"points-to pool would need {new_cap:,} elements (over 2^32)")
        words = None
        if not stage_through_host:
            try:
                words = cupy.empty(new_cap * ELEM_WORDS, dtype=cupy.uint32)
            except cupy.cuda.memory.OutOfMemoryError:
                pass
        if words is not None:
            words[: old * ELEM_WORDS] = self.words
        else:
            # at least what the kernels asked for, if twice the pool does not fit
            words, new_cap = self._grow_through_host(old, (new_cap, max(int(top) + old // 8 + 1, old + old // 4)))
        self.words = words
        self.cap = new_cap
        self.ctl[CTL_TOP] = min(int(top), old)
        self.growths += 1

    def _grow_through_host(self, old: int, caps: tuple[int, int]):
        """(array, capacity): the pool's first ``old`` elements in a new device array of the
        first capacity in ``caps`` that can be allocated, staged through host memory so that
        the old pool is freed before the new one exists."""
        new_cap = caps[0]
        try:
            host = cupy.asnumpy(self.words[: old * ELEM_WORDS])
        except MemoryError:
            raise MemoryError(f"device out of memory growing the points-to pool to "
                              f"{new_cap * ELEM_BYTES / 2**30:.1f} GiB, and no host memory to stage "
                              f"its {old * ELEM_BYTES / 2**30:.1f} GiB through") from None
        self.words = None
        cupy.get_default_memory_pool().free_all_blocks()
        for cap in caps:
            try:
                words = cupy.empty(cap * ELEM_WORDS, dtype=cupy.uint32)
                break
            except cupy.cuda.memory.OutOfMemoryError as exc:
                failure = exc
        else:
            raise MemoryError(f"device out of memory growing the points-to pool to "
                              f"{caps[-1] * ELEM_BYTES / 2**30:.1f} GiB (even with the old pool freed): "
                              f"{failure}") from None
        words[: old * ELEM_WORDS].set(host)
        return words, cap
