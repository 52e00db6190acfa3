"""The SIMT emulator itself (tests/emu): warp intrinsics, barriers, atomics, shared memory, the
errors it reports, CuPy's rules in the stand-in, and that deliberately broken kernels fail.

Each kernel here is tiny and written for the test; expected answers are computed with NumPy
in the test body. Needs g++ (as the fast bitcode reader does); no GPU.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from tests.emu import emulated, simt

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the emulated kernels")


@pytest.fixture(scope="module")
def cp():
    with emulated() as cupy:
        yield cupy


@pytest.fixture(autouse=True)
def round_robin(monkeypatch):
    """The deterministic schedule: some tests here show what a given order exposes."""
    monkeypatch.delenv("ANDERSEN_GPU_EMULATOR_SEED", raising=False)


def run(cp, src: str, name: str, grid, block, *args, shared_mem: int = 0):
    cp.RawModule(code=src).get_function(name)(grid, block, args, shared_mem=shared_mem)


WARP_OPS = r"""
extern "C" __global__ void warp_ops(const unsigned* in, unsigned* out, int width) {
    const unsigned t = threadIdx.x, lane = t & 31;
    const unsigned v = in[t];
    unsigned* o = out + t * 12;
    o[0] = __shfl_sync(0xFFFFFFFFu, v, (lane * 7 + 3) & 31, width);
    o[1] = __shfl_up_sync(0xFFFFFFFFu, v, 3, width);
    o[2] = __shfl_down_sync(0xFFFFFFFFu, v, 5, width);
    o[3] = __shfl_xor_sync(0xFFFFFFFFu, v, 6, width);
    o[4] = __ballot_sync(0xFFFFFFFFu, v & 1);
    o[5] = __any_sync(0xFFFFFFFFu, v == 12345u);
    o[6] = __all_sync(0xFFFFFFFFu, v < 1000u);
    o[7] = __reduce_min_sync(0xFFFFFFFFu, v);
    o[8] = __reduce_add_sync(0xFFFFFFFFu, v);
    o[9] = __reduce_max_sync(0xFFFFFFFFu, v);
    o[10] = __match_any_sync(0xFFFFFFFFu, v % 4);
    unsigned long long w = ((unsigned long long)v << 40) | lane;
    o[11] = (unsigned)(__shfl_sync(0xFFFFFFFFu, w, 31 - lane) >> 40);
}
"""


@pytest.mark.parametrize("width", [32, 16, 8, 2])
def test_warp_intrinsics_match_their_definitions(cp, width):
    rng = np.random.default_rng(width)
    host = rng.integers(0, 900, 64).astype(np.uint32)
    host[40] = 12345
    out = cp.zeros(64 * 12, cp.uint32)
    run(cp, WARP_OPS, "warp_ops", (1,), (64,), cp.asarray(host), out, np.int32(width))
    got = out.get().reshape(64, 12)
    for t in range(64):
        lane, base, warp = t & 31, t - (t & 31), host[t - (t & 31):t - (t & 31) + 32]
        seg = lane & ~(width - 1)
        idx = seg + (((lane * 7 + 3) & 31) & (width - 1))
        up = lane - 3 if lane - 3 >= seg else lane
        down = lane + 5 if lane + 5 < seg + width else lane
        xor = lane ^ 6 if (lane ^ 6) < seg + width else lane
        want = [warp[idx], warp[up], warp[down], warp[xor],
                sum(1 << i for i in range(32) if warp[i] & 1), int(12345 in warp), int(all(warp < 1000)),
                warp.min(), warp.sum() & 0xFFFFFFFF, warp.max(),
                sum(1 << i for i in range(32) if warp[i] % 4 == warp[lane] % 4), warp[31 - lane]]
        assert got[t].tolist() == [int(x) for x in want], (t, width)


BIT_OPS = r"""
extern "C" __global__ void bit_ops(const unsigned* in, const unsigned long long* in64, unsigned* out) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned v = in[t];
    const unsigned long long w = in64[t];
    unsigned* o = out + t * 7;
    o[0] = __popc(v);
    o[1] = __popcll(w);
    o[2] = __ffs((int)v);
    o[3] = __ffsll((long long)w);
    o[4] = __clz((int)v);
    o[5] = __brev(v);
    o[6] = (unsigned)__clzll((long long)w);
}
"""


def test_bit_intrinsics(cp):
    rng = np.random.default_rng(1)
    v = rng.integers(0, 2**32, 96, dtype=np.uint64).astype(np.uint32)
    w = rng.integers(0, 2**63, 96, dtype=np.uint64) >> rng.integers(0, 63, 96).astype(np.uint64)
    v[:3] = [0, 1, 0x80000000]
    w[:2] = [0, 1 << 63]
    out = cp.zeros(96 * 7, cp.uint32)
    run(cp, BIT_OPS, "bit_ops", (3,), (32,), cp.asarray(v), cp.asarray(w), out)
    got = out.get().reshape(96, 7)
    for i in range(96):
        x, y = int(v[i]), int(w[i])
        want = [bin(x).count("1"), bin(y).count("1"), (x & -x).bit_length(), (y & -y).bit_length(),
                32 - x.bit_length(), int(f"{x:032b}"[::-1], 2), 64 - y.bit_length()]
        assert got[i].tolist() == want, i


BLOCK_SUM = r"""
extern "C" __global__ void block_sum(const unsigned* in, unsigned* out, unsigned* poison) {
    __shared__ unsigned s[1024];
    const unsigned t = threadIdx.x;
    if (t == 0) poison[blockIdx.x] = s[5];      // not written yet in this block
    __syncthreads();
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
        if (t < d) s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
    if (t == 1) out[gridDim.x + blockIdx.x] = __syncthreads_count(0);   // a barrier thread 0 left
}
"""


def test_shared_memory_and_block_barriers(cp):
    # thread 0 of a block never reaches the last barrier: exited threads do not count
    rng = np.random.default_rng(2)
    host = rng.integers(0, 1000, 3 * 1024).astype(np.uint32)
    out = cp.zeros(6, cp.uint32)
    poison = cp.zeros(3, cp.uint32)
    run(cp, BLOCK_SUM, "block_sum", (3,), (1024,), cp.asarray(host), out, poison)
    assert out.get()[:3].tolist() == host.reshape(3, 1024).sum(axis=1).tolist()
    assert out.get()[3:].tolist() == [0, 0, 0]
    # shared memory starts undefined in every block: the emulator poisons it
    assert poison.get().tolist() == [0xA5A5A5A5] * 3


DYNAMIC = r"""
extern "C" __global__ void reverse(const int* in, int* out, int n) {
    extern __shared__ int buf[];
    const int t = threadIdx.x;
    buf[t] = in[blockIdx.x * n + t];
    __syncthreads();
    out[blockIdx.x * n + t] = buf[n - 1 - t];
}
"""


def test_dynamic_shared_memory(cp):
    host = np.arange(2 * 96, dtype=np.int32)
    out = cp.zeros(2 * 96, cp.int32)
    run(cp, DYNAMIC, "reverse", (2,), (96,), cp.asarray(host), out, np.int32(96), shared_mem=96 * 4)
    assert out.get().tolist() == host.reshape(2, 96)[:, ::-1].ravel().tolist()


ATOMICS = r"""
extern "C" __global__ void atomics(unsigned* c32, unsigned long long* c64, int* m, unsigned* flags) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&c32[0], 1u);
    atomicAdd(&c64[0], (unsigned long long)t);
    atomicSub(&c32[1], 2u);
    atomicMax(&m[0], (int)(t * 37 % 1001));
    atomicMin(&m[1], -(int)(t * 53 % 997));
    atomicOr(&flags[t / 32 % 4], 1u << (t & 31));
    atomicAnd(&c32[2], ~(1u << (t % 32)));
    atomicExch(&c32[3], 7u);
    if (atomicCAS(&c32[4], 0u, t + 1) == 0u) atomicAdd(&c32[5], 1u);   // exactly one winner
    __syncwarp();
    atomicAdd(&c64[1], 1ull);
}
"""


def test_atomics_are_exact(cp):
    n = 5 * 192
    c32 = cp.asarray(np.array([0, 10 * n, 0xFFFFFFFF, 0, 0, 0], np.uint32))
    c64 = cp.zeros(2, cp.uint64)
    m = cp.asarray(np.array([-1, 0], np.int32))
    flags = cp.zeros(4, cp.uint32)
    run(cp, ATOMICS, "atomics", (5,), (192,), c32, c64, m, flags)
    t = np.arange(n)
    assert c32.get().tolist() == [n, 8 * n, 0, 7, 1, 1]
    assert c64.get().tolist() == [int(t.sum()), n]
    assert m.get().tolist() == [int((t * 37 % 1001).max()), int((-(t * 53 % 997)).min())]
    assert flags.get().tolist() == [0xFFFFFFFF] * 4


SCAN = r"""
extern "C" __global__ void scan(const unsigned* in, unsigned* out) {
    const unsigned lane = threadIdx.x & 31;
    unsigned x = in[threadIdx.x];
    for (int d = 1; d < 32; d <<= 1) {
        unsigned y = __shfl_up_sync(0xFFFFFFFFu, x, d);
        if (lane >= (unsigned)d) x += y;
    }
    out[threadIdx.x] = x;
}
"""


def test_a_broken_scan_gives_a_wrong_answer(cp):
    # an off-by-one lane bound (lane > d): each lane d misses its partner's partial sum
    host = np.arange(1, 65, dtype=np.uint32)
    want = np.concatenate([np.cumsum(host[:32]), np.cumsum(host[32:])]).astype(np.uint32)
    out = cp.zeros(64, cp.uint32)
    run(cp, SCAN, "scan", (1,), (64,), cp.asarray(host), out)
    assert np.array_equal(out.get(), want)
    run(cp, SCAN.replace("lane >= (unsigned)d", "lane > (unsigned)d"), "scan", (1,), (64,), cp.asarray(host), out)
    assert not np.array_equal(out.get(), want)


EXCHANGE = r"""
extern "C" __global__ void rotate(const unsigned* in, unsigned* out) {
    __shared__ unsigned sh[32];
    const unsigned lane = threadIdx.x & 31;
    sh[lane] = in[lane];
    __syncwarp();
    out[lane] = sh[(lane + 1) & 31];
}
"""


def test_a_missing_syncwarp_gives_a_wrong_answer(cp):
    # without the __syncwarp, lane l reads sh[l + 1] before lane l + 1 has written it
    host = np.arange(100, 132, dtype=np.uint32)
    out = cp.zeros(32, cp.uint32)
    run(cp, EXCHANGE, "rotate", (1,), (32,), cp.asarray(host), out)
    assert out.get().tolist() == np.roll(host, -1).tolist()
    run(cp, EXCHANGE.replace("__syncwarp();", ""), "rotate", (1,), (32,), cp.asarray(host), out)
    assert out.get().tolist() != np.roll(host, -1).tolist()


COUNTER = r"""
extern "C" __global__ void count(unsigned* c) {
    const unsigned lane = threadIdx.x & 31;
    unsigned seen = *(volatile unsigned*)c;    // read ...
    __syncwarp();                               // ... others run here ...
    if (lane < 16) *c = seen + 1;               // ... write: a lost update
}
"""


def test_a_lost_update_across_a_synchronisation_shows(cp):
    # the update atomicAdd(c, 1) would make: read and write of 16 lanes around a sync point
    c = cp.zeros(1, cp.uint32)
    run(cp, COUNTER, "count", (1,), (32,), c)
    assert int(c[0]) == 1   # not 16: the lanes' updates were lost
    run(cp, COUNTER.replace("unsigned seen = *(volatile unsigned*)c;", "unsigned seen = 0;")
        .replace("if (lane < 16) *c = seen + 1;", "if (lane < 16) atomicAdd(c, 1u);"), "count", (1,), (32,), c)
    assert int(c[0]) == 17


WORK_COUNTER = r"""
// a persistent work counter whose atomicAdd was split into a read and a later write
extern "C" __global__ void claim(unsigned* counter, unsigned* claimed, unsigned n) {
    const unsigned lane = threadIdx.x & 31;
    for (;;) {
        unsigned i = 0;
        if (lane == 0) i = ATOMIC_OR_NOT;
        i = __shfl_sync(0xFFFFFFFFu, i, 0);
        if (lane == 0 && !IS_ATOMIC) *counter = i + 1;
        if (i >= n) return;
        if (lane == 0) atomicAdd(&claimed[i], 1u);
    }
}
"""


@pytest.mark.parametrize("atomic", [True, False])
def test_a_lost_atomic_between_warps_shows(cp, atomic):
    # every warp takes a step in turn: another warp's read lands between a warp's read and its
    # write, so items are claimed twice (an atomic claims each once)
    src = WORK_COUNTER.replace("ATOMIC_OR_NOT", "atomicAdd(counter, 1u)" if atomic else "*counter").replace(
        "IS_ATOMIC", "1" if atomic else "0")
    counter, claimed = cp.zeros(1, cp.uint32), cp.zeros(100, cp.uint32)
    run(cp, src, "claim", (2,), (128,), counter, claimed, np.uint32(100))
    got = claimed.get()
    if atomic:
        assert got.tolist() == [1] * 100
    else:
        assert got.max() > 1


EXITED = r"""
extern "C" __global__ void early_exit(unsigned* out) {
    const unsigned lane = threadIdx.x & 31;
    if (lane == 7) return;
    out[lane] = __shfl_sync(0xFFFFFFFFu, lane, 0);
}
"""


def test_waiting_for_an_exited_lane_is_reported(cp):
    with pytest.raises(simt.KernelError, match=r"early_exit.*exited"):
        run(cp, EXITED, "early_exit", (1,), (32,), cp.zeros(32, cp.uint32))


DEADLOCK = r"""
extern "C" __global__ void stuck(unsigned* out) {
    if ((threadIdx.x & 31) == 0) __syncthreads();   // lane 0 at the block barrier ...
    else __syncwarp();                              // ... the others wait for lane 0 here
    out[threadIdx.x] = 1;
}
"""


def test_deadlock_is_reported_with_the_call_sites(cp):
    with pytest.raises(simt.KernelError) as exc:
        run(cp, DEADLOCK, "stuck", (1,), (64,), cp.zeros(64, cp.uint32))
    msg = str(exc.value)
    assert "stuck" in msg and "deadlock" in msg
    assert "__syncthreads" in msg and "__syncwarp" in msg and "lanes {1-31}" in msg


DIVERGENT = r"""
extern "C" __global__ void divergent(unsigned* out) {
    const unsigned lane = threadIdx.x & 31;
    if (lane < 16) out[lane] = __ballot_sync(0xFFFFFFFFu, 1);
    else out[lane] = __shfl_sync(0xFFFFFFFFu, lane, 0);
}
"""


def test_divergent_warp_synchronous_calls_are_reported(cp):
    with pytest.raises(simt.KernelError, match=r"divergent.*__ballot_sync.*__shfl_sync|divergent.*__shfl_sync.*__ballot_sync"):
        run(cp, DIVERGENT, "divergent", (1,), (32,), cp.zeros(32, cp.uint32))


HALF = r"""
extern "C" __global__ void halves(unsigned* out) {
    const unsigned lane = threadIdx.x & 31;
    if (lane < 16) out[lane] = __reduce_add_sync(0x0000FFFFu, lane);
    else out[lane] = __reduce_add_sync(0xFFFF0000u, lane);
}
"""


def test_disjoint_masks_in_divergent_branches_work(cp):
    out = cp.zeros(32, cp.uint32)
    run(cp, HALF, "halves", (1,), (32,), out)
    assert out.get().tolist() == [sum(range(16))] * 16 + [sum(range(16, 32))] * 16


PARAMS = r"""
extern "C" __global__ void __launch_bounds__(64) params(unsigned* out, unsigned a, unsigned long long b, int c,
                                                        float d, double e) {
    out[0] = a; out[1] = (unsigned)b; out[2] = (unsigned)(b >> 32); out[3] = (unsigned)c;
    out[4] = (unsigned)(d * 2); out[5] = (unsigned)(e * 4);
}
"""


def test_kernel_arguments_as_cupy_passes_them(cp):
    fn = cp.RawModule(code=PARAMS).get_function("params")
    out = cp.zeros(6, cp.uint32)
    fn((1,), (1,), (out, np.uint32(7), 2**40 + 5, np.int32(-1), np.float32(1.5), 2.25))
    assert out.get().tolist() == [7, 5, 256, 0xFFFFFFFF, 3, 9]
    # a Python int is CuPy's int64: 8 bytes for a 4-byte parameter shifts the rest on a GPU
    with pytest.raises(simt.LaunchError, match="argument 1.*8 bytes.*4 bytes"):
        fn((1,), (1,), (out, 7, np.uint64(1), np.int32(0), np.float32(0), 0.0))
    with pytest.raises(simt.LaunchError, match="host"):
        fn((1,), (1,), (out.get(), np.uint32(7), np.uint64(1), np.int32(0), np.float32(0), 0.0))
    with pytest.raises(simt.LaunchError, match="takes 6 arguments"):
        fn((1,), (1,), (out,))
    with pytest.raises(simt.LaunchError, match="__launch_bounds__"):
        fn((1,), (128,), (out, np.uint32(7), np.uint64(1), np.int32(0), np.float32(0), 0.0))
    with pytest.raises(simt.LaunchError, match="float"):
        fn((1,), (1,), (out, np.uint32(7), np.uint64(1), np.int32(0), 1.5, 0.0))


def test_compile_errors_carry_the_diagnostics(cp):
    from cupy.cuda.compiler import CompileException
    with pytest.raises(CompileException, match="undeclared|not declared"):
        cp.RawModule(code='extern "C" __global__ void k(int* p) { *p = nope; }')


def test_cupy_rules_the_stand_in_keeps(cp):
    a = cp.arange(10, dtype=cp.uint32)
    # no implicit host conversion, either way
    with pytest.raises(TypeError):
        np.asarray(a)
    with pytest.raises(TypeError):
        a + np.arange(10, dtype=np.uint32)
    with pytest.raises(TypeError):
        cp.concatenate([a, np.zeros(2, np.uint32)])
    # integer indexing gives a 0-d device array; a view's pointer lies inside its parent
    x = a[3]
    assert isinstance(x, cp.ndarray) and x.shape == () and int(x) == 3 and x.get().shape == ()
    assert a[4:].data.ptr == a.data.ptr + 16
    a[4:6] = cp.asarray(np.array([40, 50], np.uint32))
    assert a.get().tolist() == [0, 1, 2, 3, 40, 50, 6, 7, 8, 9]
    assert ((a >> np.uint32(1)) & 3).get().tolist() == [0, 0, 1, 1, 0, 1, 3, 3, 0, 0]
    # allocations are 256-byte aligned and cupy.empty is not zeroed
    e = cp.empty(5, cp.uint32)
    assert e.data.ptr % 256 == 0 and e.get().tolist() == [0xA5A5A5A5] * 5
    # a memset must stay inside one allocation
    cp.cuda.runtime.memsetAsync(a.data.ptr + 4, 0xFF, 8, 0)
    assert a.get()[:4].tolist() == [0, 0xFFFFFFFF, 0xFFFFFFFF, 3]
    with pytest.raises(cp.cuda.runtime.CUDARuntimeError):
        cp.cuda.runtime.memsetAsync(a.data.ptr, 0, 41, 0)


def test_memory_pool_accounting_and_limit(cp):
    import gc
    pool = cp.get_default_memory_pool()
    gc.collect()
    before = pool.used_bytes()
    big = cp.empty(1000, cp.uint64)
    assert pool.used_bytes() == before + 8192
    view = big[10:20]
    del big
    gc.collect()
    assert pool.used_bytes() == before + 8192   # the view keeps the allocation
    del view
    gc.collect()
    assert pool.used_bytes() == before
    pool.set_limit(size=before + (1 << 20))
    try:
        with pytest.raises(cp.cuda.memory.OutOfMemoryError):
            cp.zeros((1 << 20) + 1, cp.uint8)
        small = cp.zeros(1 << 10, cp.uint8)
        assert small.size == 1024
    finally:
        pool.set_limit(size=0)


def test_streams_events_and_device(cp):
    s = cp.cuda.Stream(non_blocking=True)
    assert cp.cuda.get_current_stream() == cp.cuda.Stream.null
    with s:
        assert cp.cuda.get_current_stream() is s
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        b.record()
    assert cp.cuda.get_current_stream() == cp.cuda.Stream.null
    assert cp.cuda.get_elapsed_time(a, b) >= 0
    with pytest.raises(cp.cuda.runtime.CUDARuntimeError):
        cp.cuda.get_elapsed_time(cp.cuda.Event(disable_timing=True), b)
    props = cp.cuda.runtime.getDeviceProperties(0)
    assert props["name"] == b"SIMT emulator" and props["multiProcessorCount"] == 2
    cp.cuda.Device().synchronize()


def test_random_schedules_keep_the_answers(cp, monkeypatch):
    # the project's own sort kernels under pseudo-random thread schedules
    from andersen_gpu.backends.gpu.sort import sort_keys
    monkeypatch.setenv("ANDERSEN_GPU_EMULATOR_SEED", "7")
    rng = np.random.default_rng(5)
    host = rng.integers(0, 50, 9000, dtype=np.uint64)
    keys = cp.asarray(host)
    sort_keys(keys)
    assert np.array_equal(keys.get(), np.sort(host))


def test_kernels_are_found_in_included_headers_and_skip_templates():
    text = """
    template <class T> __global__ void tk(T* p) {}
    extern "C" __global__ void __launch_bounds__(WARPS * 32, 2) a(int* p) {}
    __global__ void b(int x) {}   // __global__ void commented(int)
    extern "C" { __global__ void
      c(const unsigned* __restrict__ q) {} }
    """
    assert simt.find_kernels(text) == [("a", "WARPS * 32"), ("b", None), ("c", None)]


FAULTS = r"""
extern "C" __global__ void wild(unsigned* p) { if (threadIdx.x == 33) p[0] = *(volatile unsigned*)16; }
extern "C" __global__ void asserts(int n) { assert(threadIdx.x < (unsigned)n); }
extern "C" __global__ void divide(int* p, int d) { p[threadIdx.x] = 7 / d; }
extern "C" __global__ void spin(volatile unsigned* flag) {
    if (threadIdx.x == 0) while (*flag == 0) {}   // set by no one: never reaches a synchronisation
}
__device__ unsigned deep(unsigned k) { volatile char pad[4096]; pad[0] = (char)k; return k ? deep(k - 1) + pad[0] : 0; }
extern "C" __global__ void recurse(unsigned* p, unsigned k) { p[0] = deep(k); }
"""


def test_faults_end_the_launch_not_the_process(cp, monkeypatch):
    mod = cp.RawModule(code=FAULTS)
    out = cp.zeros(64, cp.uint32)
    with pytest.raises(simt.KernelError, match=r"wild.*thread \(33,0,0\).*invalid memory access at address 0x10"):
        mod.get_function("wild")((1,), (64,), (out,))
    with pytest.raises(simt.KernelError, match=r"asserts.*thread \(5,0,0\).*assertion failed: threadIdx.x < \(unsigned\)n"):
        mod.get_function("asserts")((1,), (32,), (np.int32(5),))
    mod.get_function("asserts")((1,), (32,), (np.int32(32),))
    with pytest.raises(simt.KernelError, match="arithmetic exception"):
        mod.get_function("divide")((1,), (32,), (cp.zeros(32, cp.int32), np.int32(0)))
    with pytest.raises(simt.KernelError, match="stack overflow"):
        mod.get_function("recurse")((1,), (32,), (out, np.uint32(1 << 20)))
    monkeypatch.setenv("ANDERSEN_GPU_EMULATOR_TIMEOUT_S", "1")
    with pytest.raises(simt.KernelError, match=r"spin.*did not finish within 1 s"):
        mod.get_function("spin")((1,), (32,), (cp.zeros(1, cp.uint32),))
    # and the emulator still works afterwards
    test_atomics_are_exact(cp)


def test_a_fault_names_the_allocation_it_missed(cp):
    src = 'extern "C" __global__ void past(unsigned* p, unsigned long long off) { p[off] = 1; }'
    buf = cp.zeros(1 << 10, cp.uint32)
    with pytest.raises(simt.KernelError, match=r"invalid memory access.*bytes past the end of the [0-9,]+-byte allocation"):
        run(cp, src, "past", (1,), (1,), buf, np.uint64(1 << 38))   # 1 TiB on: unmapped, still a canonical address


def test_template_kernels_by_name_expressions(cp):
    src = "template <class T, int K> __global__ void scale(T* p) { p[threadIdx.x] *= (T)K; }"
    mod = cp.RawModule(code=src, name_expressions=["scale<float, 3>", "scale<unsigned long long, 5>"])
    f = cp.asarray(np.arange(4, dtype=np.float32))
    u = cp.asarray(np.arange(4, dtype=np.uint64))
    mod.get_function("scale<float, 3>")((1,), (4,), (f,))
    mod.get_function("scale<unsigned long long, 5>")((1,), (4,), (u,))
    assert f.get().tolist() == [0, 3, 6, 9] and u.get().tolist() == [0, 5, 10, 15]


def test_emulated_puts_back_what_was_imported(monkeypatch):
    # as on a GPU machine: a real cupy and a backend module bound to it before the block
    import sys
    import types
    real = types.ModuleType("cupy")
    bound = types.ModuleType("andersen_gpu.backends.gpu.pool")
    bound.cupy = real
    monkeypatch.setitem(sys.modules, "cupy", real)
    monkeypatch.setitem(sys.modules, "andersen_gpu.backends.gpu.pool", bound)
    with emulated() as fake:
        assert sys.modules["cupy"] is fake and fake is not real
        from andersen_gpu.backends.gpu import pool
        assert pool is not bound and pool.cupy is fake
    assert sys.modules["cupy"] is real
    assert sys.modules["andersen_gpu.backends.gpu.pool"] is bound


CG = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void tiles(const unsigned* in, unsigned* out) {
    cg::thread_block b = cg::this_thread_block();
    cg::thread_block_tile<8> t = cg::tiled_partition<8>(b);
    const unsigned v = in[b.thread_rank()];
    unsigned s = cg::reduce(t, v, cg::plus<unsigned>());
    b.sync();
    out[b.thread_rank()] = s * 1000 + t.shfl(v, 0) + (t.ballot(v & 1) << 20);
}
"""


def test_cooperative_groups_tiles(cp):
    host = np.arange(64, dtype=np.uint32) * 3
    out = cp.zeros(64, cp.uint32)
    run(cp, CG, "tiles", (1,), (64,), cp.asarray(host), out)
    g = host.reshape(8, 8)
    odd = [sum(1 << i for i in range(8) if g[k, i] & 1) for k in range(8)]
    want = [(int(g[k].sum()) * 1000 + int(g[k, 0]) + (odd[k] << 20)) for k in range(8) for _ in range(8)]
    assert out.get().tolist() == [w & 0xFFFFFFFF for w in want]


SPIN = r"""
extern "C" __global__ void spin_wait(unsigned* flag, unsigned* ready, unsigned* out) {
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    __syncwarp();
    const unsigned f = *(volatile unsigned*)flag;   // the whole warp reads the flag in one step
    if (warp == 0) {
        if (lane == 0) while (*(volatile unsigned*)ready == 0) __nanosleep(100);
    } else if (lane == 0) {
        *(volatile unsigned*)flag = 1;
        __threadfence();
        *(volatile unsigned*)ready = 1;
    }
    __syncwarp();
    out[threadIdx.x] = f;
}
"""


def test_nanosleep_spins_wait_for_other_warps(cp):
    # warp 0's lane 0 waits for warp 1; its other lanes read the flag as it was when the warp
    # read it (before warp 1 set it), as a converged warp does
    flag, ready, out = cp.zeros(1, cp.uint32), cp.zeros(1, cp.uint32), cp.zeros(64, cp.uint32)
    run(cp, SPIN, "spin_wait", (1,), (64,), flag, ready, out)
    assert out.get()[:32].tolist() == [0] * 32 and int(ready[0]) == 1
