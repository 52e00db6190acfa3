"""Device helpers shared by every stage: kernel modules, launch sizes, the control block.

CuPy is imported here, so only :func:`andersen_gpu.backends.gpu.solve` imports this module:
machines without CuPy import the backend package fine.
"""

from __future__ import annotations

import functools
import os

import cupy
import numpy as np

import kernels_cu

NIL = np.uint32(0xFFFFFFFF)
BLOCK = 256          # threads per block of every warp kernel (WARPS_PER_BLOCK * 32 in bitvec.cuh)

# Slots of the control block, u64[CTL_SLOTS]; must match kernels_cu/setstore.cuh.
CTL_TOP, CTL_OVF, CTL_NSETS, CTL_LOAD_LIVE, CTL_UPDATE_CLAIMS, CTL_SHIFT_CLAIMS = 0, 1, 2, 3, 4, 5
CTL_ROUND_FIRST = 8
CTL_C_FILL, CTL_G_FILL, CTL_NCHG, CTL_NEXT_C, CTL_NEXT_G = 8, 9, 11, 12, 13
CTL_DELTA_BITS, CTL_MEMO_HITS, CTL_MEMO_MISSES, CTL_UNIONS, CTL_WORK = 14, 15, 16, 17, 18
CTL_GE_FILL, CTL_EXPAND_BOUND, CTL_TABLE_FULL, CTL_CHUNKS = 24, 25, 26, 27
CTL_IMAGE_CLAIMS, CTL_ELEM_CLAIMS, CTL_TABLE_CLAIMS = 28, 29, 30
CTL_ROUND_END = 32
CTL_SLOTS = 80
#: Slots 32.. of the control block: profile counters, filled only when the kernels are compiled
#: with ANDERSEN_GPU_PROFILE=1 in the environment (a diagnostic: it slows every kernel).
PROFILE_SLOTS = ("emit_changed_cycles", "shift_cycles", "image_full_cycles", "image_delta_cycles",
                 "emit_loads_cycles", "run_union_cycles", "update_cycles", "memo_wait_cycles",
                 "store_union_cycles", "store_expand_cycles", "images_full", "images_delta", "sids_full",
                 "sids_delta", "max_union_sids", "run_sids", "updates", "update_elems", "expand_pairs",
                 "elems_full", "elems_delta_selected", "elems_delta_scanned", "union_batches",
                 "union_elems", "union_runs", "elem_images", "elem_hits", "emit_item_max_cycles",
                 "union_warp_max_cycles", "store_warp_max_cycles", "expand_cycles", "expand_warp_max_cycles",
                 # the longest one of each part of an emit item (cycles, and three counts)
                 "item_max_cycles_x4_plus_kind", "max_copy_cycles", "max_geps_cycles", "max_shift_cycles",
                 "max_lfull_cycles", "max_stores_cycles", "max_ldelta_cycles", "max_image_cycles",
                 "max_image_wait_cycles", "max_image_parts_cycles", "max_image_finish_cycles",
                 "max_elem_image_cycles", "max_memo_wait_cycles", "max_image_elems", "max_image_computed",
                 "max_elem_sids")
PROFILE = os.environ.get("ANDERSEN_GPU_PROFILE", "") == "1"


def compile_options() -> tuple[str, ...]:
    """NVRTC options shared by every kernel file (they include bitvec.cuh)."""
    return ("-std=c++17", f"-I{kernels_cu.DIRECTORY}") + (("-DANDERSEN_PROFILE",) if PROFILE else ())


class KernelModule:
    """A compiled kernel file whose functions are looked up once each (a lookup costs about
    2 us of host time, and a solve launches hundreds of kernels)."""

    def __init__(self, raw):
        self.raw = raw
        self._functions: dict[str, object] = {}

    def __call__(self, name: str):
        fn = self._functions.get(name)
        if fn is None:
            fn = self._functions[name] = self.raw.get_function(name)
        return fn


@functools.cache
def _headers_digest() -> str:
    """A hash of every header in kernels_cu/: CuPy keys its on-disk cache by a kernel file's own
    text and options, not by what it includes, so the source carries this in a comment and a
    changed header compiles again instead of loading a stale binary (read once per process)."""
    import hashlib

    key = hashlib.sha256()
    for h in sorted(kernels_cu.DIRECTORY.glob("*.cuh")):
        key.update(h.name.encode() + b"\0" + h.read_bytes())
    return key.hexdigest()[:16]


@cupy.memoize(for_each_device=True)
def module(name: str) -> KernelModule:
    """The kernels of ``kernels_cu/<name>`` (compiled on first use, per device)."""
    code = kernels_cu.source(name) + f"\n// kernels_cu headers {_headers_digest()}\n"
    return KernelModule(cupy.RawModule(code=code, options=compile_options()))


_PROPERTIES: dict[int, dict] = {}


def device_properties() -> dict:
    """``cudaGetDeviceProperties`` of the current device, memoized (a query costs about a
    millisecond of host time)."""
    dev = cupy.cuda.runtime.getDevice()
    props = _PROPERTIES.get(dev)
    if props is None:
        props = _PROPERTIES[dev] = cupy.cuda.runtime.getDeviceProperties(dev)
    return props


def device_name() -> str:
    name = device_properties()["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def persistent_grid() -> tuple[int]:
    """Blocks for a persistent (work-counter or grid-stride) kernel: every multiprocessor full."""
    return (int(device_properties()["multiProcessorCount"]) * (2048 // BLOCK),)


def blocks_for(threads: int) -> tuple[int]:
    """Blocks of BLOCK threads for one thread per item (at least one block)."""
    return (max(1, (int(threads) + BLOCK - 1) // BLOCK),)


def fill_bytes(arr, value: int) -> None:
    """Set every byte of the contiguous ``arr`` to ``value`` (0xFF gives NIL words) by one
    memset on the current stream."""
    if arr.nbytes:
        cupy.cuda.runtime.memsetAsync(arr.data.ptr, value, arr.nbytes, cupy.cuda.get_current_stream().ptr)


#: :func:`fill_many` memsets a region larger than this (a memset is as fast as a kernel on large
#: buffers, and its cost is one operation either way); smaller ones share one launch.
FILL_KERNEL_MAX_BYTES = 1 << 20
_FILL_GROUP = 8   # regions of one fill_words launch (kernels_cu/commit.cu)


def fill_many(regions) -> None:
    """:func:`fill_bytes` of each ``(arr, value)`` of ``regions``, in stream order with what comes
    before and after: the regions of at most FILL_KERNEL_MAX_BYTES (whole 32-bit words) by one
    ``fill_words`` launch per 8, the larger ones by a memset each. Empty regions are skipped."""
    small = []
    for arr, value in regions:
        if not arr.nbytes:
            continue
        if arr.nbytes > FILL_KERNEL_MAX_BYTES or arr.nbytes % 4:
            fill_bytes(arr, value)
        else:
            small.append((arr, value))
    for k in range(0, len(small), _FILL_GROUP):
        group = small[k:k + _FILL_GROUP]
        args = []
        for arr, value in group:
            args += [arr, np.uint64(arr.nbytes // 4), np.uint32((value & 0xFF) * 0x01010101)]
        args += [group[0][0], np.uint64(0), np.uint32(0)] * (_FILL_GROUP - len(group))
        words = max(arr.nbytes // 4 for arr, _ in group)
        module("commit.cu")("fill_words")((min(blocks_for(words)[0], 128), len(group)), (BLOCK,), tuple(args))


def descriptor(*fields) -> cupy.ndarray:
    """A kernel's struct argument: uint64[len(fields)] on the device holding each field (a
    cupy array's device pointer, or an integer), in the order of the struct's members (all
    64-bit wide in kernels_cu/setstore.cuh and emit.cu)."""
    vals = [f.data.ptr if isinstance(f, cupy.ndarray) else int(f) for f in fields]
    return cupy.asarray(np.array(vals, dtype=np.uint64))
