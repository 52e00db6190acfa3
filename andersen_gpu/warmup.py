"""The one-time step before a solve: compiling the backends' numba code.

The cpu backend and the offline preprocessing every backend shares are numba
functions, compiled on first use and kept in numba's on-disk cache
(``__pycache__`` beside the sources, or ``$NUMBA_CACHE_DIR``). With a fresh
cache that compile takes tens of seconds on a 2-core machine; afterwards
loading the cache takes a fraction of a second. The GPU backend's kernels,
ours and CuPy's own, are compiled by CuPy on first use and kept in its cache:
:func:`warm_gpu_kernels` compiles all of them, and :func:`gpu_stamp` marks the
cache once it has, so that a first solve on a new machine neither pays for
them unannounced nor counts them in its time (a cold sqlite3 solve on the H200
took 23 s against 2 s warm: bench/results/h200-1b14a4e/FINDINGS.md).

:func:`compile_backend` does that step on its own, before the solve, so that
it is (1) announced: when it takes longer than :data:`ANNOUNCE_AFTER_S`, one
line on stderr says what is happening, and a second how long it took; and
(2) timed apart: ``SolveStats.compile_ms`` holds it and ``solve_ms`` does not.
It solves :func:`sample_set`, a constraint set of a dozen nodes that has
every kind of constraint, offline merges, an HCD table, a copy cycle and the
int-to-pointer object, with the backend itself: every compiled function the
real solve calls is compiled (or loaded) for the same argument types there
(``tests/test_warmup.py`` checks that a real solve then compiles nothing).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from constraints.model import ConstraintSet, NodeKind

from . import interrupt

#: The first line is printed when the step is still running after this many seconds.
ANNOUNCE_AFTER_S = 1.0

_done: set[tuple[str, int]] = set()   # (backend, threads) compiled or loaded in this process


@dataclass(frozen=True)
class CompileStep:
    """What :func:`compile_backend` did: ``ms`` of wall time, and whether numba compiled
    anything (``compiled``) rather than only loading its cache."""

    ms: float = 0.0
    compiled: bool = False


def sample_set() -> ConstraintSet:
    """A small set with every feature a solve can meet (see the module docstring).

    Nodes: 0 the int-to-pointer object, 1-2 an object of two slots, 3-5 an
    object of three slots, 6 a single object, 7-11 values (8 and 9 merged
    offline, 10 and 11 in a copy cycle).
    """
    n = 12
    kind = np.full(n, NodeKind.VALUE, np.int8)
    kind[[0, 1, 3, 6]] = NodeKind.OBJECT
    kind[[2, 4, 5]] = NodeKind.FIELD
    size = np.zeros(n, np.int64)
    size[[0, 1, 3, 6]] = (1, 2, 3, 1)
    rep = np.arange(n)
    rep[9] = 8
    return ConstraintSet.from_lists(
        n, obj_size=size, kind=kind, int_to_pointer=0, offline_rep=rep,
        addr=[(7, 1), (8, 3), (10, 6), (11, 0), (7, 0)],
        copy=[(10, 11), (11, 10), (9, 7), (8, 10)],
        load=[(10, 8), (11, 7), (7, 11)],
        store=[(8, 7), (7, 10), (11, 8)],
        gep=[(9, 8, 2), (10, 7, 1), (11, 9, 1)],
        hcd_ptr=[7, 8], hcd_target=[10, 11])


def gpu_sample_set(values: int = 6000, seed: int = 0) -> ConstraintSet:
    """A generated set on which a GPU solve takes every path a real program's does.

    Besides :func:`sample_set`'s features: ``values`` pointers whose copies only go from a lower
    id to a higher one (no offline cycle takes the work away), so that rounds carry thousands of
    copy pairs (the sorts of more than one block); loads and stores through shared objects that
    close copy cycles only the online pass can see; objects of one to four slots, nested ones,
    field-insensitive ones and functions with call geps (``call_geps``); gep cycles of ``+1``
    (walk geps) and walks of their own; the int-to-pointer object; HCD entries (true ones: a
    load and a store through the pointer close each cycle). Deterministic for a ``seed``.

    Layout: node 0 the int-to-pointer object, then the objects (their slots after them), then
    the values.
    """
    rng = np.random.default_rng(seed)
    sizes, kinds = [1], [NodeKind.OBJECT]
    fi, functions = [], []
    while len(sizes) < 400:
        size = int(rng.integers(1, 5))
        at = len(sizes)
        role = rng.integers(0, 8)
        kinds += [NodeKind.FUNCTION if role == 0 else NodeKind.OBJECT] + [NodeKind.FIELD] * (size - 1)
        sizes += [size] + [0] * (size - 1)
        if size > 2 and role == 1:
            sizes[at + 1] = size - 1          # a nested object at the second slot
        if role == 0:
            functions.append(at)
        elif size == 1 and role == 2:
            fi.append(at)
    n_obj = len(sizes)
    n = n_obj + values
    v0 = n_obj
    addr = [(v0 + int(rng.integers(values)), int(rng.integers(n_obj))) for _ in range(values // 2)]
    addr += [(v0 + int(rng.integers(values)), f) for f in functions for _ in range(3)]
    addr.append((v0, 0))
    copy = []
    for x in range(1, values):       # each value copies one or two lower ones
        for _ in range(int(rng.integers(1, 3))):
            copy.append((v0 + x, v0 + int(rng.integers(x))))
    some = lambda k: [(v0 + int(a), v0 + int(b)) for a, b in rng.integers(values, size=(k, 2))]  # noqa: E731
    load, store = some(values // 4), some(values // 4)
    # HCD entries that hold (a hint must): t = *p and *p = t put every pointee of p in a cycle with t
    hcd = [(v0 + 1, v0 + 3), (v0 + 2, v0 + 4)]
    load += [(t, p) for p, t in hcd]
    store += [(p, t) for p, t in hcd]
    gep = [(v0 + int(a), v0 + int(b), int(k)) for a, b, k in
           zip(rng.integers(values, size=values // 8), rng.integers(values, size=values // 8),
               rng.integers(0, 4, size=values // 8))]
    gep += [(v0 + 10, v0 + 10, 1), (v0 + 21, v0 + 20, 1)]
    copy.append((v0 + 20, v0 + 21))                        # a +1 cycle of two pointers
    walks = rng.integers(values, size=(8, 2)) + v0
    calls = rng.integers(values, size=(values // 16, 2)) + v0
    return ConstraintSet.from_lists(
        n, obj_size=np.array(sizes + [0] * values), kind=np.array(kinds + [NodeKind.VALUE] * values), addr=addr, copy=copy, load=load, store=store,
        gep=gep, int_to_pointer=0, field_insensitive=np.array(fi, np.int64),
        walk_dst=walks[:, 0], walk_src=walks[:, 1], walk_offset=rng.integers(1, 6, size=8),
        call_dst=calls[:, 0], call_src=calls[:, 1], call_offset=rng.integers(0, 3, size=calls.shape[0]),
        call_geps=True, hcd_ptr=[p for p, _ in hcd], hcd_target=[t for _, t in hcd])


def warm_gpu_kernels() -> None:
    """Compile (or load from CuPy's kernel cache) every kernel a GPU solve can launch.

    CuPy compiles on first use: our kernel files (``kernels_cu/*.cu``, one ``RawModule`` each)
    and its own elementwise, reduction and scan kernels, one per operation and dtypes, which the
    backend's stages use between launches of ours. This compiles every kernel file, then solves
    :func:`gpu_sample_set` with online cycle passes from the first round on and a pool of one
    element to start with (so that it grows, retries rounds and is compacted), and once more
    without the offline collapse and the pointee order: every stage runs, with the dtypes a
    real solve gives it; a sample of 400 values with the default pool (its memo caches fill and
    are cleared); then :func:`sample_set` and a sample of 10^5 values, for the kernels
    CuPy picks by size (its nonzero's for 512 elements or fewer, its scans' for large arrays). Needs
    CuPy and a device; raises what they raise.
    """
    import kernels_cu

    from .backends.gpu import GpuOptions
    from .backends.gpu.cycles import CyclePolicy
    from .backends.gpu.device import module
    from .backends.gpu.solver import solve_gpu

    for cu in sorted(kernels_cu.DIRECTORY.glob("*.cu")):
        module(cu.name).raw.compile()
    cs = gpu_sample_set()
    solve_gpu(cs, GpuOptions(capacity=1), CyclePolicy(first_round=1, min_rounds_ms=0.0))
    # CuPy's nonzero compiles another kernel for arrays of 512 elements or fewer: the 12-node sample
    # set's lists are that small
    solve_gpu(sample_set(), GpuOptions())
    solve_gpu(cs, GpuOptions(preprocess=False, pointee_order=False), CyclePolicy(first_round=1, min_rounds_ms=0.0))
    # the default pool, where no compaction forgets the caches: a persistent memo cache reaches its
    # largest size and is cleared (SetStore.fit); its rounds speculate (rounds.py)
    solve_gpu(gpu_sample_set(values=400, seed=1), GpuOptions())
    # the initial lists' record path (andersen_gpu.backends.gpu.lists: 2^15 pairs or more, dense)
    from .backends.gpu.lists import RECORDS_MIN_PAIRS
    objects, ptrs = 4096, -(-RECORDS_MIN_PAIRS // 4096)
    solve_gpu(ConstraintSet.from_lists(objects + ptrs, obj_size=[1] * objects + [0] * ptrs,
                                       addr=[(objects + p, o) for p in range(ptrs) for o in range(objects)]),
              GpuOptions(preprocess=False))
    # CuPy's scans and reductions (cumsum, sum, nonzero, unique, boolean masks) choose their
    # kernels by the array's size: a sample of 10^5 values, as large as a real program's arrays,
    # reaches those that the small one does not (on the emulator, every operation and dtype a
    # solve of bash or sqlite3 reaches at 2^16 elements or more; bench/results/h200-c2a85fb)
    solve_gpu(gpu_sample_set(values=100_000, seed=1), GpuOptions(capacity=1),
              CyclePolicy(first_round=1, min_rounds_ms=0.0))


def gpu_stamp() -> Path:
    """The file whose presence says that CuPy's kernel cache on this machine holds every kernel
    :func:`warm_gpu_kernels` compiles, for this code, this CuPy and this device.

    It lies in CuPy's cache folder (``$CUPY_CACHE_DIR``, else ``~/.cupy/kernel_cache``), so
    that clearing the cache clears it too; its name holds a hash of the kernel sources, the GPU
    backend's modules, this module, the compile options, CuPy's version and the device's
    compute capability."""
    import cupy
    import kernels_cu

    from .backends import gpu as gpu_package
    from .backends.gpu.device import compile_options, device_properties

    key = hashlib.sha256()
    files = sorted(kernels_cu.DIRECTORY.glob("*.cu*")) + sorted(Path(gpu_package.__file__).parent.glob("*.py"))
    for f in files + [Path(__file__)]:
        key.update(f.name.encode() + b"\0" + f.read_bytes())
    props = device_properties()
    key.update(repr((compile_options(), cupy.__version__, props.get("major"), props.get("minor"))).encode())
    cache_dir = getattr(getattr(cupy.cuda, "compiler", None), "get_cache_dir", None)
    folder = cache_dir() if cache_dir is not None else \
        os.environ.get("CUPY_CACHE_DIR", os.path.expanduser("~/.cupy/kernel_cache"))
    return Path(folder) / f"andersen-gpu-kernels-{key.hexdigest()[:20]}"


def _warm_gpu_once(announce) -> bool:
    """:func:`warm_gpu_kernels` unless :func:`gpu_stamp` says it ran on this machine; True when
    it ran. Nothing happens without a usable device."""
    from .solve import gpu_available

    if not gpu_available()[0]:
        return False
    stamp = gpu_stamp()
    if stamp.exists():
        return False
    announce("compiling the GPU kernels: CuPy compiles them on first use (a minute or so, once per "
             f"machine) and keeps them in its cache, {stamp.parent}")
    try:
        warm_gpu_kernels()
    except Exception as exc:   # the solve that follows compiles what it needs, and reports a real fault
        announce(f"the GPU warm-up stopped ({exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); "
                 "kernels compile on first use instead")
        return False
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text("every kernel of andersen-gpu's GPU backend is in this cache\n")
    except OSError:
        pass   # a read-only cache: the kernels are compiled again next time, no worse than without
    return True


def compile_backend(backend: str, threads: int = 1, announce=lambda message: None) -> CompileStep:
    """Compile (or load from numba's cache) what solving with ``backend`` needs, once per process.

    Parameters
    ----------
    backend : {"reference", "cpu", "gpu"}
        ``reference`` needs nothing; ``gpu`` needs the offline preprocessing and
        the pointee order, and where a device is usable the kernels CuPy compiles
        (:func:`warm_gpu_kernels`, once per machine: :func:`gpu_stamp`).
    threads : int
        The cpu backend's thread count (its multi-core mode is other code).
    announce : callable(str)
        Receives the line saying that a slow step runs, and the one saying how
        long it took.

    Returns
    -------
    CompileStep
        All zero when there was nothing to do.
    """
    key = (backend, 1 if threads <= 1 else 2)
    if backend not in ("cpu", "gpu") or key in _done:
        return CompileStep()
    what = "the cpu solver" if backend == "cpu" else "the preprocessing"
    timer = threading.Timer(ANNOUNCE_AFTER_S, announce,
                            (f"preparing {what}: numba compiles it on first use (a minute or so on a small "
                             "machine), later runs load it from numba's cache",))
    timer.daemon = True
    misses_before = _cache_misses()
    t0 = time.perf_counter()
    timer.start()
    try:
        interrupt.call(_run, backend, threads)
    finally:
        timer.cancel()
    ms = (time.perf_counter() - t0) * 1e3
    compiled = _cache_misses() > misses_before
    if ms >= ANNOUNCE_AFTER_S * 1e3:
        announce(f"{'compiled' if compiled else 'loaded'} {what} in {ms / 1e3:.1f} s")
    if backend == "gpu":
        t1 = time.perf_counter()
        if _warm_gpu_once(announce):
            compiled = True
            announce(f"compiled the GPU kernels in {time.perf_counter() - t1:.1f} s")
        ms = (time.perf_counter() - t0) * 1e3
    _done.add(key)
    return CompileStep(ms, compiled)


def _run(backend: str, threads: int) -> None:
    """Solve :func:`sample_set` as ``backend`` would: ``cpu`` all of the cpu backend, ``gpu``
    what the gpu backend runs on the host (the offline passes and the pointee order); both, the
    host parts of the object-level stage (:mod:`.preprocess.objects`)."""
    cs = sample_set()
    _run_objects(cs)
    if backend == "cpu":
        from .backends import cpu

        cpu.solve(cs, threads=threads)
        return
    from .preprocess import collapse

    collapse(cs)
    from .preprocess.order import pointee_order

    pointee_order(cs)


def _run_objects(cs: ConstraintSet) -> None:
    """The compiled host parts of :func:`.preprocess.objects.collapse_reached` on ``cs``."""
    from .preprocess import objects

    objects.cycle_nodes(cs)
    coarse, new = objects.object_level(cs.replace(offline_rep=None))
    objects._least_nodes(new, coarse.n_nodes, cs.n_nodes)


def dispatchers() -> list:
    """Every numba dispatcher of the modules whose code the backends compile."""
    import importlib

    from numba.core.registry import CPUDispatcher

    found = []
    for name in ("andersen_gpu.preprocess.hvn", "andersen_gpu.preprocess._hash", "andersen_gpu.preprocess.rewrite",
                 "andersen_gpu.preprocess.objects", "andersen_gpu.preprocess.scc",
                 "andersen_gpu.preprocess.order", "andersen_gpu.backends._cpu_bits",
                 "andersen_gpu.backends._cpu_core", "andersen_gpu.backends._cpu_wave"):
        module = importlib.import_module(name)
        found += [v for v in vars(module).values() if isinstance(v, CPUDispatcher)]
    return found


def _cache_misses() -> int:
    """Compilations so far of the :func:`dispatchers` (numba counts a compile as a cache miss)."""
    return sum(sum(d.stats.cache_misses.values()) for d in dispatchers())

