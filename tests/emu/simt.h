// simt.h: compile CUDA C++ kernels as host C++ and run them under a SIMT emulator.
//
// tests/emu/simt.py includes this header first in a kernel file's source and builds it with
// g++ into a shared library; see tests/emu/README.md. Nothing here is specific to one kernel.
//
// Model
// -----
// A launch runs its blocks one after another (the order of blockIdx, x fastest; a legal CUDA
// schedule: blocks have no forward-progress guarantee towards each other). The threads of a
// block are fibers on the one OS thread (a hand-written context switch on x86-64, ucontext
// elsewhere). A thread runs alone until it reaches a scheduling point:
//   * a warp-synchronous intrinsic (__shfl*_sync, __ballot_sync, __any/__all_sync,
//     __reduce_*_sync, __match_*_sync, __syncwarp): it waits until every lane of its mask has
//     reached one with the same mask and kind (PTX: "executed shfl.sync with the same
//     qualifiers and the same membermask"); the values are exchanged then, all at once;
//   * __syncthreads() and its _count/_and/_or forms: every thread of the block that has not
//     exited;
//   * __nanosleep(): a yield (after the other lanes of the warp have finished their step), so
//     that spin loops that sleep make progress.
// Memory accesses between scheduling points are therefore atomic with respect to other threads,
// and atomics are plain read-modify-writes. A lane waiting for a lane that exited, lanes of one
// mask at different kinds of intrinsic, and a block whose threads all wait with none able to go
// on are errors reported with the kernel name, the block and the call sites (no hang).
// __shared__ variables live in one section ("simt_shared") that is filled with a poison byte
// before every block (shared memory starts undefined on a GPU); dynamic shared memory
// (`extern __shared__ T name[];`, rewritten by simt.py) likewise.
#pragma once

#include <cassert>
#include <cerrno>
#include <climits>
#include <csetjmp>
#include <csignal>
#include <ctime>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include <pthread.h>
#include <sys/mman.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

// ---- what nvcc/NVRTC define -------------------------------------------------------------------
#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __CUDA_ARCH__ 900
#define __SIMT_EMULATOR__ 1

#ifdef SIMT_SCAN   // simt.py's preprocessing pass that lists the kernels
#define __global__ __simt_kernel__
#define __launch_bounds__(...) __simt_bounds__(__VA_ARGS__)
#else
#define __global__
#define __launch_bounds__(...)
#endif
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
#define __shared__ static __attribute__((section("simt_shared")))

struct uint3 { unsigned int x, y, z; };
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};
#define SIMT_VEC2(T, N) struct N##2 { T x, y; }; \
    inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define SIMT_VEC4(T, N) struct alignas(4 * sizeof(T) <= 16 ? 4 * sizeof(T) : 16) N##4 { T x, y, z, w; }; \
    inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
SIMT_VEC2(int, int) SIMT_VEC4(int, int)
SIMT_VEC2(unsigned int, uint) SIMT_VEC4(unsigned int, uint)
SIMT_VEC2(float, float) SIMT_VEC4(float, float)
SIMT_VEC2(long long, longlong) SIMT_VEC2(unsigned long long, ulonglong)
SIMT_VEC2(double, double)
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
struct int3 { int x, y, z; };
inline int3 make_int3(int x, int y, int z) { return int3{x, y, z}; }

#define warpSize 32

// ---- the runtime --------------------------------------------------------------------------------
namespace simt {

enum Op : int {
    OP_NONE, OP_SYNCWARP, OP_SHFL_IDX, OP_SHFL_UP, OP_SHFL_DOWN, OP_SHFL_XOR, OP_BALLOT, OP_ANY,
    OP_ALL, OP_MATCH_ANY, OP_MATCH_ALL,
    OP_REDUCE_ADD_U, OP_REDUCE_MIN_U, OP_REDUCE_MAX_U, OP_REDUCE_ADD_I, OP_REDUCE_MIN_I,
    OP_REDUCE_MAX_I, OP_REDUCE_AND, OP_REDUCE_OR, OP_REDUCE_XOR,
    OP_SYNCTHREADS, OP_NANOSLEEP
};

static const char* op_name(int op) {
    static const char* names[] = {
        "(running)", "__syncwarp", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
        "__shfl_xor_sync", "__ballot_sync", "__any_sync", "__all_sync", "__match_any_sync",
        "__match_all_sync", "__reduce_add_sync(unsigned)", "__reduce_min_sync(unsigned)",
        "__reduce_max_sync(unsigned)", "__reduce_add_sync(int)", "__reduce_min_sync(int)",
        "__reduce_max_sync(int)", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
        "__syncthreads", "__nanosleep"};
    return names[op];
}

enum State : int { READY, WAIT_WARP, WAIT_BLOCK, DONE };

struct Thread {
    void* sp;             // saved stack pointer (x86-64) while switched out
#if !defined(__x86_64__)
    ucontext_t uc;
#endif
    char* stack;          // lowest usable byte of this fiber's stack
    uint3 tid;
    unsigned linear, lane, warp;
    int state;
    // the pending scheduling point
    int op, width, line;
    unsigned mask;
    uint64_t val, arg, result;
    const char* file;
};

struct Launch {
    void (*tramp)(void**);
    void** args;
    const char* name;
    uint3 grid, block;
    unsigned nthreads, nwarps;
    char* dyn_smem;
    uint64_t seed;        // 0: the deterministic round-robin schedule
};

struct Warp {
    unsigned exists, exited, waiting, ready;
    unsigned deferred;   // lanes that yielded (__nanosleep): they go on after the other warps
    bool queued;
};

static const size_t MAX_THREADS = 1024;
static size_t stack_bytes = 256 * 1024;

static Thread threads[MAX_THREADS];
static Warp warps[MAX_THREADS / 32];
static unsigned warp_queue[MAX_THREADS / 32];   // warps with runnable lanes, in turn
static unsigned queue_head, queue_count;
static unsigned cur_warp;
static bool rotate;        // the current warp yielded: let the others run first
static unsigned live, at_barrier;
static uint64_t barrier_acc;
static int barrier_op;
static Launch L;
static uint3 cur_block;
static Thread* cur;
static void* main_sp;
#if !defined(__x86_64__)
static ucontext_t main_uc;
#endif
static char* stacks;       // MAX_THREADS stacks, each with a guard page below
static size_t stacks_each;
static char* errbuf;
static size_t errlen;
static int failed;
static uint64_t rng_state;
static unsigned char* dyn_smem_buf;
static size_t dyn_smem_cap;
// ANDERSEN_GPU_EMULATOR_TRACE=KERNEL[:WARP]: every scheduling point of that kernel's warps (or
// of warp WARP of every block) on stderr
static char trace_kernel[256];
static int trace_warp = -1;
static bool tracing;

}  // namespace simt

extern "C" {
extern char __start_simt_shared[] __attribute__((weak, visibility("hidden")));
extern char __stop_simt_shared[] __attribute__((weak, visibility("hidden")));
}

namespace simt {

// -- context switch -------------------------------------------------------------------------------
#if defined(__x86_64__)
extern "C" void simt_swap(void** save_sp, void* load_sp) __attribute__((visibility("hidden")));
extern "C" void simt_fiber_start() __attribute__((visibility("hidden")));
asm(R"(
    .text
    .p2align 4
    .globl simt_swap
    .hidden simt_swap
    .type simt_swap, @function
simt_swap:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size simt_swap, .-simt_swap

    .p2align 4
    .globl simt_fiber_start
    .hidden simt_fiber_start
    .type simt_fiber_start, @function
simt_fiber_start:
    movq %r12, %rdi
    andq $-16, %rsp
    callq *%r13
    ud2
    .size simt_fiber_start, .-simt_fiber_start
)");
#endif

static void fiber_main(Thread* t);

static void switch_to(Thread* from, Thread* to) {
    cur = to;
#if defined(__x86_64__)
    simt_swap(from ? &from->sp : &main_sp, to->sp);
#else
    swapcontext(from ? &from->uc : &main_uc, &to->uc);
#endif
}

static void switch_to_main(Thread* from) {
    cur = nullptr;
#if defined(__x86_64__)
    simt_swap(&from->sp, main_sp);
#else
    swapcontext(&from->uc, &main_uc);
#endif
}

#if !defined(__x86_64__)
static void fiber_entry_uc(unsigned hi, unsigned lo) {
    fiber_main((Thread*)(((uintptr_t)hi << 32) | lo));
}
#endif

static void fiber_init(Thread* t) {
    // stacks are page-aligned: offset each top so that the fibers' hot frames do not all map to
    // the same cache sets
    char* top = t->stack + stacks_each - (t->linear * 832u) % 4096u;
#if defined(__x86_64__)
    uint64_t* sp = (uint64_t*)((uintptr_t)top & ~(uintptr_t)15);
    *--sp = 0;                                   // alignment slot
    *--sp = (uint64_t)(uintptr_t)&simt_fiber_start;   // return address of the first swap
    *--sp = 0;                                   // rbp
    *--sp = 0;                                   // rbx
    *--sp = (uint64_t)(uintptr_t)t;              // r12: the thread
    *--sp = (uint64_t)(uintptr_t)&fiber_main;    // r13: the entry
    *--sp = 0;                                   // r14
    *--sp = 0;                                   // r15
    uint32_t csr[2];
    __asm__ volatile("stmxcsr %0" : "=m"(csr[0]));
    __asm__ volatile("fnstcw %0" : "=m"(csr[1]));
    csr[1] &= 0xFFFF;
    --sp;
    memcpy(sp, csr, 8);
    t->sp = sp;
#else
    getcontext(&t->uc);
    t->uc.uc_stack.ss_sp = t->stack;
    t->uc.uc_stack.ss_size = stacks_each;
    t->uc.uc_link = nullptr;
    uintptr_t p = (uintptr_t)t;
    makecontext(&t->uc, (void (*)())fiber_entry_uc, 2, (unsigned)(p >> 32), (unsigned)p);
#endif
}

// -- errors ---------------------------------------------------------------------------------------
static void append(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static void append(const char* fmt, ...) {
    size_t used = strlen(errbuf);
    if (used + 1 >= errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf + used, errlen - used, fmt, ap);
    va_end(ap);
}

static void where(const Thread* t) {
    append("kernel '%s' block (%u,%u,%u) thread (%u,%u,%u) [warp %u lane %u]", L.name, cur_block.x,
           cur_block.y, cur_block.z, t->tid.x, t->tid.y, t->tid.z, t->warp, t->lane);
}

static void lanes_text(unsigned m) {
    append("{");
    bool first = true;
    for (int l = 0; l < 32;) {
        if (!((m >> l) & 1u)) { ++l; continue; }
        int e = l;
        while (e + 1 < 32 && ((m >> (e + 1)) & 1u)) ++e;
        append(first ? "%d" : ",%d", l);
        if (e > l) append("-%d", e);
        first = false;
        l = e + 1;
    }
    append("}");
}

// The state of every warp that has not finished (for deadlock and divergence reports).
static void warp_report() {
    for (unsigned w = 0; w < L.nwarps; ++w) {
        const Warp& W = warps[w];
        if ((W.exited & W.exists) == W.exists) continue;
        append("\n  warp %u:", w);
        unsigned todo = W.exists;
        while (todo) {
            int l = __builtin_ctz(todo);
            const Thread& a = threads[w * 32 + l];
            unsigned same = 0;
            for (unsigned m = todo; m; m &= m - 1) {
                const Thread& b = threads[w * 32 + __builtin_ctz(m)];
                if (b.state == a.state && b.op == a.op && b.mask == a.mask && b.line == a.line &&
                    b.file == a.file)
                    same |= 1u << __builtin_ctz(m);
            }
            todo &= ~same;
            append(" lanes ");
            lanes_text(same);
            if (a.state == DONE) append(" exited;");
            else if (a.state == READY) append(" runnable;");
            else if (a.state == WAIT_BLOCK) append(" wait at %s (%s:%d);", op_name(a.op), a.file, a.line);
            else append(" wait at %s(mask 0x%08x) (%s:%d);", op_name(a.op), a.mask, a.file, a.line);
        }
    }
}

[[noreturn]] static void fail_here() {
    failed = 1;
    Thread* t = cur;
    switch_to_main(t);
    __builtin_unreachable();
}

// -- scheduling -----------------------------------------------------------------------------------
static uint64_t next_random() {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

// Scheduling is by warp step: the lanes of the current warp run, one after another, until none
// is runnable (all wait at a synchronisation or have exited); when that synchronisation
// completes, the warp goes to the back of the queue and the next warp takes its step. So no
// other warp's writes appear between the lanes of one step (as on a GPU, where a converged warp
// executes each instruction for all its lanes at once), warps interleave at every step, and the
// lanes of a warp see each other's writes of the step in lane order (which is what exposes a
// missing __syncwarp). With a seed, the next lane of a warp and the next warp are drawn at
// random.
static void enqueue_warp(unsigned w) {
    if (warps[w].queued) return;
    warps[w].queued = true;
    warp_queue[(queue_head + queue_count++) % (MAX_THREADS / 32)] = w;
}

static void make_ready(unsigned i) {
    Warp& w = warps[i >> 5];
    w.ready |= 1u << (i & 31);
    if (i >> 5 != cur_warp || rotate) enqueue_warp(i >> 5);
}

static Thread* pop_ready() {
    Warp* w = &warps[cur_warp];
    if (rotate || !w->ready) {
        rotate = false;
        w->ready |= w->deferred;
        w->deferred = 0;
        if (w->ready) enqueue_warp(cur_warp);
        for (;;) {
            if (!queue_count) return nullptr;
            unsigned k = L.seed ? (unsigned)(next_random() % queue_count) : 0;
            const unsigned cap = MAX_THREADS / 32;
            unsigned a = (queue_head + k) % cap;
            unsigned pick = warp_queue[a];
            warp_queue[a] = warp_queue[queue_head];
            queue_head = (queue_head + 1) % cap;
            --queue_count;
            warps[pick].queued = false;
            if (warps[pick].ready) {
                cur_warp = pick;
                w = &warps[pick];
                break;
            }
        }
    }
    unsigned m = w->ready, lane;
    if (L.seed) {
        unsigned k = (unsigned)(next_random() % (unsigned)__builtin_popcount(m));
        while (k--) m &= m - 1;
    }
    lane = __builtin_ctz(m);
    w->ready &= ~(1u << lane);
    return &threads[(cur_warp << 5) + lane];
}

// Leave the current thread (waiting, or done) for the next runnable one, or for the launcher
// when the block is finished or stuck.
static void block_on(Thread* t) {
    Thread* next = pop_ready();
    if (next) {
        if (next != t) switch_to(t, next);
        else cur = t;
        return;
    }
    if (live) {
        where(t);
        append(": deadlock: every thread of the block that has not exited waits, and none can go on:");
        warp_report();
        failed = 1;
    }
    switch_to_main(t);
}

static void wake(unsigned i) {
    threads[i].state = READY;
    make_ready(i);
}

static uint64_t read_lane(const Thread* t, int src, unsigned mask) {
    if (src < 0 || src > 31 || !((mask >> src) & 1u)) return 0xDEADBEEFDEADBEEFull;   // undefined
    return threads[(t->warp << 5) + src].val;
}

// All lanes of `mask` in warp w wait at a scheduling point: check they agree, compute every
// lane's result, and let them go on (the calling thread keeps running).
static void complete(Thread* me, unsigned mask) {
    const unsigned base = me->warp << 5;
    for (unsigned m = mask; m; m &= m - 1) {
        const Thread& o = threads[base + __builtin_ctz(m)];
        if (o.mask != mask || o.op != me->op || o.width != me->width) {
            where(me);
            append(": divergent warp-synchronous calls: lane %u reached %s(mask 0x%08x, width %d) "
                   "at %s:%d while lane %u waits at %s(mask 0x%08x, width %d) at %s:%d:",
                   me->lane, op_name(me->op), me->mask, me->width, me->file, me->line, o.lane,
                   op_name(o.op), o.mask, o.width, o.file, o.line);
            warp_report();
            fail_here();
        }
    }
    uint64_t all = 0;   // ballot / reduction over the mask
    int op = me->op;
    switch (op) {
    case OP_BALLOT: case OP_ANY: case OP_ALL:
        for (unsigned m = mask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            if (threads[base + l].val) all |= 1ull << l;
        }
        break;
    case OP_REDUCE_ADD_U: case OP_REDUCE_ADD_I: case OP_REDUCE_OR: case OP_REDUCE_XOR:
        for (unsigned m = mask; m; m &= m - 1) {
            uint32_t v = (uint32_t)threads[base + __builtin_ctz(m)].val;
            all = op == OP_REDUCE_OR ? (all | v) : op == OP_REDUCE_XOR ? (all ^ v) : (uint32_t)(all + v);
        }
        break;
    case OP_REDUCE_AND:
        all = 0xFFFFFFFFu;
        for (unsigned m = mask; m; m &= m - 1) all &= (uint32_t)threads[base + __builtin_ctz(m)].val;
        break;
    case OP_REDUCE_MIN_U: case OP_REDUCE_MAX_U: case OP_REDUCE_MIN_I: case OP_REDUCE_MAX_I: {
        bool first = true;
        int64_t best = 0;
        for (unsigned m = mask; m; m &= m - 1) {
            uint32_t raw = (uint32_t)threads[base + __builtin_ctz(m)].val;
            int64_t v = (op == OP_REDUCE_MIN_I || op == OP_REDUCE_MAX_I) ? (int64_t)(int32_t)raw : (int64_t)raw;
            bool better = (op == OP_REDUCE_MIN_U || op == OP_REDUCE_MIN_I) ? v < best : v > best;
            if (first || better) best = v;
            first = false;
        }
        all = (uint32_t)best;
        break;
    }
    default: break;
    }
    for (unsigned m = mask; m; m &= m - 1) {
        Thread& o = threads[base + __builtin_ctz(m)];
        const int lane = (int)o.lane, w = o.width;
        const int seg = lane & ~(w - 1);
        uint64_t r = 0;
        switch (op) {
        case OP_SHFL_IDX: r = read_lane(&o, seg + (int)(o.arg & (uint64_t)(w - 1)), mask); break;
        case OP_SHFL_UP: {
            int src = lane - (int)o.arg;
            r = src < seg ? o.val : read_lane(&o, src, mask);
            break;
        }
        case OP_SHFL_DOWN: {
            int src = lane + (int)o.arg;
            r = src >= seg + w ? o.val : read_lane(&o, src, mask);
            break;
        }
        case OP_SHFL_XOR: {
            int src = lane ^ (int)o.arg;
            r = src >= seg + w ? o.val : read_lane(&o, src, mask);
            break;
        }
        case OP_BALLOT: r = all; break;
        case OP_ANY: r = all != 0; break;
        case OP_ALL: r = (uint32_t)all == mask; break;
        case OP_MATCH_ANY: case OP_MATCH_ALL: {
            unsigned eq = 0;
            for (unsigned q = mask; q; q &= q - 1) {
                int l = __builtin_ctz(q);
                if (threads[base + l].val == o.val) eq |= 1u << l;
            }
            r = op == OP_MATCH_ANY ? eq : (eq == mask ? mask : 0);
            break;
        }
        default: r = all; break;
        }
        o.result = r;
    }
    warps[me->warp].waiting &= ~mask;
    for (unsigned m = mask; m; m &= m - 1) {
        unsigned i = base + __builtin_ctz(m);
        threads[i].op = OP_NONE;
        wake(i);
    }
}

static void trace(const Thread* t, const char* what, int op, unsigned mask, uint64_t val, const char* file,
                  int line) {
    if (!tracing || (trace_warp >= 0 && (int)t->warp != trace_warp)) return;
    fprintf(stderr, "simt %s block (%u,%u,%u) warp %u lane %2u: %s %s mask 0x%08x value 0x%llx at %s:%d\n",
            L.name, cur_block.x, cur_block.y, cur_block.z, t->warp, t->lane, what, op_name(op), mask,
            (unsigned long long)val, file, line);
}

static uint64_t warp_op(int op, unsigned mask, uint64_t val, uint64_t arg, int width, const char* file,
                        int line) {
    Thread* t = cur;
    trace(t, "arrives at", op, mask, val, file, line);
    t->op = op;
    t->mask = mask;
    t->val = val;
    t->arg = arg;
    t->width = width;
    t->file = file;
    t->line = line;
    Warp& w = warps[t->warp];
    const unsigned bit = 1u << t->lane;
    if (width < 1 || width > 32 || (width & (width - 1))) {
        where(t);
        append(": %s with width %d (not a power of two up to 32) at %s:%d", op_name(op), width, file, line);
        fail_here();
    }
    if (!(mask & bit)) {
        where(t);
        append(": %s(mask 0x%08x) at %s:%d by a lane outside its mask", op_name(op), mask, file, line);
        fail_here();
    }
    if (mask & ~w.exists) {
        where(t);
        append(": %s(mask 0x%08x) at %s:%d names lanes the block does not have (%u threads)",
               op_name(op), mask, file, line, L.nthreads);
        fail_here();
    }
    if (mask & w.exited) {
        where(t);
        append(": %s(mask 0x%08x) at %s:%d waits for lanes that have exited: ", op_name(op), mask, file, line);
        lanes_text(mask & w.exited);
        fail_here();
    }
    t->state = WAIT_WARP;
    w.waiting |= bit;
    if ((w.waiting & mask) == mask) {
        // the step is complete: every warp with runnable lanes takes its next step before
        // this one goes on (round-robin, or at random with a seed)
        complete(t, mask);
        rotate = true;
        make_ready(t->linear);
    }
    block_on(t);
    if (failed) fail_here();
    return t->result;
}

static void barrier_release() {
    for (unsigned i = 0; i < L.nthreads; ++i) {
        Thread& o = threads[i];
        if (o.state != WAIT_BLOCK) continue;
        o.result = barrier_op == 1 ? barrier_acc : barrier_op == 2 ? (barrier_acc == live) : (barrier_acc != 0);
        o.op = OP_NONE;
        if (&o == cur) o.state = READY;
        else wake(i);
    }
    at_barrier = 0;
    barrier_acc = 0;
}

// kind: 0 plain, 1 count, 2 and, 3 or
static uint64_t block_barrier(int kind, int pred, const char* file, int line) {
    Thread* t = cur;
    trace(t, "arrives at", OP_SYNCTHREADS, 0, (uint64_t)pred, file, line);
    t->op = OP_SYNCTHREADS;
    t->file = file;
    t->line = line;
    t->mask = 0;
    t->state = WAIT_BLOCK;
    if (at_barrier == 0) barrier_op = kind;
    barrier_acc += pred != 0;
    if (++at_barrier == live) {
        barrier_release();
    } else {
        block_on(t);
        if (failed) fail_here();
    }
    return t->result;
}

static void yield_point(const char* file, int line) {
    Thread* t = cur;
    trace(t, "yields at", OP_NANOSLEEP, 0, 0, file, line);
    t->op = OP_NANOSLEEP;
    t->file = file;
    t->line = line;
    // the other lanes of this warp finish their step first (on a GPU the converged warp read
    // what they read before this lane began to spin), then the other warps take theirs
    warps[t->warp].deferred |= 1u << t->lane;
    block_on(t);
    if (failed) fail_here();
    t->op = OP_NONE;
}

static void fiber_main(Thread* t) {
    L.tramp(L.args);
    trace(t, "exits after", t->op, t->mask, 0, t->file ? t->file : "", t->line);
    t->state = DONE;
    t->op = OP_NONE;
    Warp& w = warps[t->warp];
    const unsigned bit = 1u << t->lane;
    w.exited |= bit;
    --live;
    for (unsigned m = w.waiting; m; m &= m - 1) {
        const Thread& o = threads[(t->warp << 5) + __builtin_ctz(m)];
        if (o.mask & bit) {
            where(t);
            append(": this lane exited while lane %u waits for it at %s(mask 0x%08x) (%s:%d):", o.lane,
                   op_name(o.op), o.mask, o.file, o.line);
            warp_report();
            fail_here();
        }
    }
    if (at_barrier && at_barrier == live) barrier_release();
    block_on(t);
    // the launcher never resumes a finished thread
    __builtin_trap();
}

static bool ensure_stacks() {
    if (stacks) return true;
    const char* env = getenv("ANDERSEN_GPU_EMULATOR_STACK_KB");
    if (env && atoi(env) > 0) stack_bytes = (size_t)atoi(env) * 1024;
    const size_t page = 4096;
    stacks_each = (stack_bytes + page - 1) / page * page;
    const size_t each = stacks_each + page;   // a guard page below every stack
    void* p = mmap(nullptr, each * MAX_THREADS, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    stacks = (char*)p;
    for (size_t i = 0; i < MAX_THREADS; ++i) {
        mprotect(stacks + i * each, page, PROT_NONE);
        threads[i].stack = stacks + i * each + page;
    }
    return true;
}

static void poison_shared() {
    if (&__start_simt_shared[0] != nullptr && &__stop_simt_shared[0] != nullptr)
        memset(__start_simt_shared, 0xA5, (size_t)(__stop_simt_shared - __start_simt_shared));
    if (L.dyn_smem) memset(L.dyn_smem, 0xA5, dyn_smem_cap);
}

static int run_block() {
    const unsigned n = L.nthreads;
    queue_head = queue_count = 0;
    rotate = false;
    live = n;
    at_barrier = 0;
    barrier_acc = 0;
    for (unsigned w = 0; w < L.nwarps; ++w) {
        unsigned lanes = n - w * 32 >= 32 ? 32 : n - w * 32;
        warps[w].exists = lanes == 32 ? 0xFFFFFFFFu : ((1u << lanes) - 1);
        warps[w].exited = warps[w].waiting = 0;
        warps[w].ready = warps[w].exists;
        warps[w].deferred = 0;
        warps[w].queued = false;
        enqueue_warp(w);
    }
    cur_warp = 0;
    rotate = true;   // the first pick takes a warp from the queue
    for (unsigned i = 0; i < n; ++i) {
        Thread& t = threads[i];
        t.linear = i;
        t.tid = uint3{i % L.block.x, (i / L.block.x) % L.block.y, i / (L.block.x * L.block.y)};
        t.lane = i & 31;
        t.warp = i >> 5;
        t.state = READY;
        t.op = OP_NONE;
        t.mask = 0;
        t.file = "";
        t.line = 0;
        fiber_init(&t);
    }
    poison_shared();
    Thread* first = pop_ready();
    switch_to(nullptr, first);
    cur = nullptr;
    return failed ? -1 : 0;
}

}  // namespace simt

#define SIMT_SITE const char* simt_file = __builtin_FILE(), int simt_line = __builtin_LINE()
#define SIMT_SITE_DECL SIMT_SITE

namespace simt {
[[noreturn]] static void device_abort(const char* what, const char* expr, const char* file, int line) {
    where(cur);
    append(": %s%s%s (%s:%d)", what, expr ? ": " : "", expr ? expr : "", file, line);
    fail_here();
}
}  // namespace simt

// A failed device assert ends the launch with an error (cudaErrorAssert), not the process.
#undef assert
#define assert(e) ((e) ? (void)0 : ::simt::device_abort("assertion failed", #e, __FILE__, __LINE__))
inline void __trap(SIMT_SITE_DECL) { ::simt::device_abort("__trap()", nullptr, simt_file, simt_line); }
inline void __brkpt(SIMT_SITE_DECL) { ::simt::device_abort("__brkpt()", nullptr, simt_file, simt_line); }

// ---- what kernels see ---------------------------------------------------------------------------
#define threadIdx (::simt::cur->tid)
#define blockIdx (::simt::cur_block)
#define blockDim (::simt::L.block)
#define gridDim (::simt::L.grid)


template <class T>
inline uint64_t simt_bits(T v) {
    static_assert(sizeof(T) <= 8, "warp intrinsics exchange values of at most 8 bytes");
    uint64_t b = 0;
    memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T>
inline T simt_from_bits(uint64_t b) {
    T v;
    memcpy(&v, &b, sizeof(T));
    return v;
}

inline void __syncwarp(unsigned mask = 0xFFFFFFFFu, SIMT_SITE) {
    simt::warp_op(simt::OP_SYNCWARP, mask, 0, 0, 32, simt_file, simt_line);
}
template <class T>
inline T __shfl_sync(unsigned mask, T var, int src, int width = 32, SIMT_SITE) {
    return simt_from_bits<T>(simt::warp_op(simt::OP_SHFL_IDX, mask, simt_bits(var), (uint64_t)(int64_t)src,
                                           width, simt_file, simt_line));
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32, SIMT_SITE) {
    return simt_from_bits<T>(simt::warp_op(simt::OP_SHFL_UP, mask, simt_bits(var), delta, width,
                                           simt_file, simt_line));
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32, SIMT_SITE) {
    return simt_from_bits<T>(simt::warp_op(simt::OP_SHFL_DOWN, mask, simt_bits(var), delta, width,
                                           simt_file, simt_line));
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32, SIMT_SITE) {
    return simt_from_bits<T>(simt::warp_op(simt::OP_SHFL_XOR, mask, simt_bits(var),
                                           (uint64_t)(unsigned)lane_mask, width, simt_file, simt_line));
}
inline unsigned __ballot_sync(unsigned mask, int pred, SIMT_SITE) {
    return (unsigned)simt::warp_op(simt::OP_BALLOT, mask, pred != 0, 0, 32, simt_file, simt_line);
}
inline int __any_sync(unsigned mask, int pred, SIMT_SITE) {
    return (int)simt::warp_op(simt::OP_ANY, mask, pred != 0, 0, 32, simt_file, simt_line);
}
inline int __all_sync(unsigned mask, int pred, SIMT_SITE) {
    return (int)simt::warp_op(simt::OP_ALL, mask, pred != 0, 0, 32, simt_file, simt_line);
}
template <class T>
inline unsigned __match_any_sync(unsigned mask, T value, SIMT_SITE) {
    return (unsigned)simt::warp_op(simt::OP_MATCH_ANY, mask, simt_bits(value), 0, 32, simt_file, simt_line);
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T value, int* pred, SIMT_SITE) {
    unsigned r = (unsigned)simt::warp_op(simt::OP_MATCH_ALL, mask, simt_bits(value), 0, 32, simt_file, simt_line);
    *pred = r != 0;
    return r;
}
#define SIMT_REDUCE(NAME, T, OP) \
    inline T NAME(unsigned mask, T value, SIMT_SITE) { \
        return (T)(uint32_t)simt::warp_op(simt::OP, mask, (uint32_t)value, 0, 32, simt_file, simt_line); \
    }
SIMT_REDUCE(__reduce_add_sync, unsigned, OP_REDUCE_ADD_U)
SIMT_REDUCE(__reduce_min_sync, unsigned, OP_REDUCE_MIN_U)
SIMT_REDUCE(__reduce_max_sync, unsigned, OP_REDUCE_MAX_U)
SIMT_REDUCE(__reduce_add_sync, int, OP_REDUCE_ADD_I)
SIMT_REDUCE(__reduce_min_sync, int, OP_REDUCE_MIN_I)
SIMT_REDUCE(__reduce_max_sync, int, OP_REDUCE_MAX_I)
SIMT_REDUCE(__reduce_and_sync, unsigned, OP_REDUCE_AND)
SIMT_REDUCE(__reduce_or_sync, unsigned, OP_REDUCE_OR)
SIMT_REDUCE(__reduce_xor_sync, unsigned, OP_REDUCE_XOR)
#undef SIMT_REDUCE

// The lanes of this warp that have not exited (the emulator has no notion of divergence).
inline unsigned __activemask() {
    const simt::Warp& w = simt::warps[simt::cur->warp];
    return w.exists & ~w.exited;
}

inline void __syncthreads(SIMT_SITE) { simt::block_barrier(0, 0, simt_file, simt_line); }
inline int __syncthreads_count(int pred, SIMT_SITE) { return (int)simt::block_barrier(1, pred, simt_file, simt_line); }
inline int __syncthreads_and(int pred, SIMT_SITE) { return (int)simt::block_barrier(2, pred, simt_file, simt_line); }
inline int __syncthreads_or(int pred, SIMT_SITE) { return (int)simt::block_barrier(3, pred, simt_file, simt_line); }
inline void __nanosleep(unsigned, SIMT_SITE) { simt::yield_point(simt_file, simt_line); }

inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---- atomics: CUDA's overload set (a call nvcc rejects as ambiguous is rejected here too) --------
#define SIMT_ATOMIC(NAME, T, EXPR) \
    inline T NAME(T* a, T v) { T old = *a; *a = (EXPR); return old; } \
    inline T NAME##_block(T* a, T v) { return NAME(a, v); } \
    inline T NAME##_system(T* a, T v) { return NAME(a, v); }
SIMT_ATOMIC(atomicAdd, int, old + v)
SIMT_ATOMIC(atomicAdd, unsigned int, old + v)
SIMT_ATOMIC(atomicAdd, unsigned long long, old + v)
SIMT_ATOMIC(atomicAdd, float, old + v)
SIMT_ATOMIC(atomicAdd, double, old + v)
SIMT_ATOMIC(atomicSub, int, old - v)
SIMT_ATOMIC(atomicSub, unsigned int, old - v)
SIMT_ATOMIC(atomicExch, int, v)
SIMT_ATOMIC(atomicExch, unsigned int, v)
SIMT_ATOMIC(atomicExch, unsigned long long, v)
SIMT_ATOMIC(atomicExch, float, v)
SIMT_ATOMIC(atomicMin, int, v < old ? v : old)
SIMT_ATOMIC(atomicMin, unsigned int, v < old ? v : old)
SIMT_ATOMIC(atomicMin, unsigned long long, v < old ? v : old)
SIMT_ATOMIC(atomicMin, long long, v < old ? v : old)
SIMT_ATOMIC(atomicMax, int, v > old ? v : old)
SIMT_ATOMIC(atomicMax, unsigned int, v > old ? v : old)
SIMT_ATOMIC(atomicMax, unsigned long long, v > old ? v : old)
SIMT_ATOMIC(atomicMax, long long, v > old ? v : old)
SIMT_ATOMIC(atomicAnd, int, old & v)
SIMT_ATOMIC(atomicAnd, unsigned int, old & v)
SIMT_ATOMIC(atomicAnd, unsigned long long, old & v)
SIMT_ATOMIC(atomicOr, int, old | v)
SIMT_ATOMIC(atomicOr, unsigned int, old | v)
SIMT_ATOMIC(atomicOr, unsigned long long, old | v)
SIMT_ATOMIC(atomicXor, int, old ^ v)
SIMT_ATOMIC(atomicXor, unsigned int, old ^ v)
SIMT_ATOMIC(atomicXor, unsigned long long, old ^ v)
SIMT_ATOMIC(atomicInc, unsigned int, old >= v ? 0u : old + 1u)
SIMT_ATOMIC(atomicDec, unsigned int, (old == 0u || old > v) ? v : old - 1u)
#undef SIMT_ATOMIC
#define SIMT_CAS(T) \
    inline T atomicCAS(T* a, T compare, T v) { T old = *a; if (old == compare) *a = v; return old; } \
    inline T atomicCAS_block(T* a, T compare, T v) { return atomicCAS(a, compare, v); } \
    inline T atomicCAS_system(T* a, T compare, T v) { return atomicCAS(a, compare, v); }
SIMT_CAS(int)
SIMT_CAS(unsigned int)
SIMT_CAS(unsigned long long)
SIMT_CAS(unsigned short)
#undef SIMT_CAS

// ---- integer and float intrinsics ---------------------------------------------------------------
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline unsigned __brev(unsigned x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
    return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    uint64_t v = ((uint64_t)y << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i);
    return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
    return (unsigned)(((((uint64_t)hi << 32) | lo) << (s & 31)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
    return (unsigned)((((uint64_t)hi << 32) | lo) >> (s & 31));
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
    return s >= 32 ? lo : __funnelshift_l(lo, hi, s);
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
    return s >= 32 ? hi : __funnelshift_r(lo, hi, s);
}
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }
inline int __mulhi(int a, int b) { return (int)(((int64_t)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline int __mul24(int a, int b) { return (int)((int64_t)(a << 8 >> 8) * (b << 8 >> 8)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }
inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
inline unsigned __float_as_uint(float f) { unsigned i; memcpy(&i, &f, 4); return i; }
inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned i) { float f; memcpy(&f, &i, 4); return f; }
inline long long __double_as_longlong(double d) { long long i; memcpy(&i, &d, 8); return i; }
inline double __longlong_as_double(long long i) { double d; memcpy(&d, &i, 8); return d; }
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *(const volatile T*)p; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *p = v; }
inline long long clock64() {
    static long long ticks = 0;   // monotonic per thread switch order; kernels only difference it
    return ++ticks;
}
template <class A, class B>
inline typename std::common_type<A, B>::type min(A a, B b) {
    typedef typename std::common_type<A, B>::type C;
    return (C)a < (C)b ? (C)a : (C)b;
}
template <class A, class B>
inline typename std::common_type<A, B>::type max(A a, B b) {
    typedef typename std::common_type<A, B>::type C;
    return (C)a > (C)b ? (C)a : (C)b;
}
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }

// `extern __shared__ T name[];` is rewritten by simt.py into SIMT_DYNAMIC_SHARED(T, name).
namespace simt {
template <class T>
struct DynamicShared {
    operator T*() const { return reinterpret_cast<T*>(L.dyn_smem); }
    T& operator[](size_t i) const { return reinterpret_cast<T*>(L.dyn_smem)[i]; }
};
}  // namespace simt
#define SIMT_DYNAMIC_SHARED(T, NAME) static const ::simt::DynamicShared<T> NAME

// ---- the launcher's entry points (tests/emu/simt.py) -------------------------------------------
template <class T>
inline void simt_param_code(char* out) {
    typedef typename std::decay<T>::type D;
    char kind = std::is_pointer<D>::value ? 'p'
              : std::is_same<D, bool>::value ? 'b'
              : std::is_floating_point<D>::value ? 'f'
              : std::is_enum<D>::value ? 'i'
              : std::is_integral<D>::value ? (std::is_signed<D>::value ? 'i' : 'u')
              : 's';
    snprintf(out, 16, "%c%zu,", kind, sizeof(D));
}

template <class... A, size_t... I>
inline void simt_call(void (*f)(A...), void** args, std::index_sequence<I...>) {
    f(*reinterpret_cast<typename std::remove_cv<A>::type*>(args[I])...);
}

template <class... A>
inline void simt_invoke(void (*f)(A...), void** args) {
    simt_call(f, args, std::index_sequence_for<A...>{});
}

template <class... A>
inline const char* simt_signature(void (*)(A...)) {
    static char buf[16 * (sizeof...(A) + 1)];
    buf[0] = 0;
    char one[16];
    int dummy[] = {0, (simt_param_code<A>(one), strcat(buf, one), 0)...};
    (void)dummy;
    return buf;
}

// One trampoline per kernel, appended by simt.py:
//   SIMT_KERNEL(name, max_threads) -> simt_tramp_name(void**), simt_sig_name(), simt_bounds_name()
#define SIMT_KERNEL(NAME, BOUNDS) \
    extern "C" __attribute__((visibility("default"))) void simt_tramp_##NAME(void** a) { simt_invoke(NAME, a); } \
    extern "C" __attribute__((visibility("default"))) const char* simt_sig_##NAME() { return simt_signature(NAME); } \
    extern "C" __attribute__((visibility("default"))) int simt_bounds_##NAME() { return (int)(BOUNDS); }

// ---- faults and time-outs: an error of the launch, not the end of the process ---------------------
namespace simt {
static sigjmp_buf escape;
static volatile sig_atomic_t in_launch;
static volatile sig_atomic_t fault_sig;
static void* volatile fault_addr;
static const int caught_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGUSR2};
static struct sigaction saved_actions[5];
static stack_t saved_altstack;
static char* altstack_mem;

static void on_signal(int sig, siginfo_t* si, void*) {
    if (!in_launch) {   // not ours: let the previous handler (or the default) have it
        for (int i = 0; i < 5; ++i)
            if (caught_signals[i] == sig) sigaction(sig, &saved_actions[i], nullptr);
        raise(sig);
        return;
    }
    fault_sig = sig;
    fault_addr = si ? si->si_addr : nullptr;
    siglongjmp(escape, 1);
}

// The watchdog: a thread that sends SIGUSR2 to the launching thread when a launch outlives its
// deadline (a thread spinning without ever reaching a scheduling point).
static pthread_mutex_t wd_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cv;
static bool wd_started, wd_armed;
static uint64_t wd_gen;
static struct timespec wd_deadline;
static pthread_t wd_target;

static void* watchdog(void*) {
    pthread_mutex_lock(&wd_mu);
    for (;;) {
        if (!wd_armed) {
            pthread_cond_wait(&wd_cv, &wd_mu);
            continue;
        }
        uint64_t gen = wd_gen;
        int rc = pthread_cond_timedwait(&wd_cv, &wd_mu, &wd_deadline);
        if (rc == ETIMEDOUT && wd_armed && gen == wd_gen) {
            wd_armed = false;
            pthread_kill(wd_target, SIGUSR2);
        }
    }
    return nullptr;
}

static void watchdog_arm(double seconds) {
    pthread_mutex_lock(&wd_mu);
    if (!wd_started) {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&wd_cv, &ca);
        pthread_t t;
        pthread_attr_t ta;
        pthread_attr_init(&ta);
        pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
        wd_started = pthread_create(&t, &ta, watchdog, nullptr) == 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &wd_deadline);
    wd_deadline.tv_sec += (time_t)seconds;
    wd_deadline.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (wd_deadline.tv_nsec >= 1000000000L) {
        wd_deadline.tv_sec += 1;
        wd_deadline.tv_nsec -= 1000000000L;
    }
    wd_target = pthread_self();
    ++wd_gen;
    wd_armed = true;
    pthread_cond_signal(&wd_cv);
    pthread_mutex_unlock(&wd_mu);
}

static void watchdog_disarm() {
    pthread_mutex_lock(&wd_mu);
    wd_armed = false;
    ++wd_gen;
    pthread_cond_signal(&wd_cv);
    pthread_mutex_unlock(&wd_mu);
}

static void catch_signals() {
    if (!altstack_mem) altstack_mem = (char*)malloc(1 << 16);
    stack_t ss;
    ss.ss_sp = altstack_mem;
    ss.ss_size = 1 << 16;
    ss.ss_flags = 0;
    sigaltstack(&ss, &saved_altstack);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 5; ++i) sigaction(caught_signals[i], &sa, &saved_actions[i]);
}

static void release_signals() {
    for (int i = 0; i < 5; ++i) sigaction(caught_signals[i], &saved_actions[i], nullptr);
    sigaltstack(&saved_altstack, nullptr);
}

static void describe_fault(double timeout_s) {
    Thread* t = cur;
    if (t) where(t);
    else append("kernel '%s' block (%u,%u,%u)", L.name, cur_block.x, cur_block.y, cur_block.z);
    const int sig = fault_sig;
    if (sig == SIGUSR2) {
        append(": did not finish within %.0f s (ANDERSEN_GPU_EMULATOR_TIMEOUT_S): a thread that never "
               "reaches a synchronisation, e.g. spinning on a flag another warp or a later block sets "
               "(the emulator runs a warp until it waits, and blocks one after another); last "
               "synchronisation of this thread at %s:%d:", timeout_s, t ? t->file : "?", t ? t->line : 0);
        warp_report();
        return;
    }
    uintptr_t a = (uintptr_t)fault_addr;
    if (sig == SIGSEGV || sig == SIGBUS) {
        for (size_t i = 0; i < MAX_THREADS && stacks; ++i) {
            uintptr_t lo = (uintptr_t)threads[i].stack;
            if (a >= lo - 4096 && a < lo) {
                append(": fiber stack overflow (at address 0x%llx): raise ANDERSEN_GPU_EMULATOR_STACK_KB "
                       "(now %zu)", (unsigned long long)a, stacks_each / 1024);
                return;
            }
        }
        append(": invalid memory access at address 0x%llx", (unsigned long long)a);
    } else if (sig == SIGFPE) {
        append(": arithmetic exception (integer division by zero?) at 0x%llx", (unsigned long long)a);
    } else {
        append(": illegal instruction at 0x%llx (unreachable code reached?)", (unsigned long long)a);
    }
}
}  // namespace simt

// A template kernel named by an expression (RawModule's name_expressions): kernel number I.
#define SIMT_KERNEL_EXPR(I, ...) \
    extern "C" __attribute__((visibility("default"))) void simt_tramp_expr##I(void** a) { simt_invoke(__VA_ARGS__, a); } \
    extern "C" __attribute__((visibility("default"))) const char* simt_sig_expr##I() { return simt_signature(__VA_ARGS__); } \
    extern "C" __attribute__((visibility("default"))) int simt_bounds_expr##I() { return 1024; }

// Run one launch; 0 on success, -1 with a message in err on a failure of the kernel (deadlock,
// divergent synchronisation), -2 for a launch the emulator cannot run.
extern "C" __attribute__((visibility("default"))) int simt_launch(
    void (*tramp)(void**), void** args, const char* name, const unsigned* grid, const unsigned* block,
    unsigned long long dyn_smem, unsigned long long seed, char* err, unsigned long long err_len,
    double timeout_s) {
    using namespace simt;
    errbuf = err;
    errlen = err_len;
    err[0] = 0;
    failed = 0;
    const uint64_t n = (uint64_t)block[0] * block[1] * block[2];
    if (n == 0 || n > MAX_THREADS) {
        snprintf(err, err_len, "kernel '%s': %llu threads per block (1 to %zu)", name,
                 (unsigned long long)n, MAX_THREADS);
        return -2;
    }
    if (!ensure_stacks()) {
        snprintf(err, err_len, "kernel '%s': cannot map the fiber stacks", name);
        return -2;
    }
    if (dyn_smem > dyn_smem_cap) {
        free(dyn_smem_buf);
        dyn_smem_buf = (unsigned char*)aligned_alloc(256, (dyn_smem + 255) / 256 * 256);
        dyn_smem_cap = dyn_smem_buf ? dyn_smem : 0;
    }
    L.tramp = tramp;
    L.args = args;
    L.name = name;
    L.grid = uint3{grid[0], grid[1], grid[2]};
    L.block = uint3{block[0], block[1], block[2]};
    L.nthreads = (unsigned)n;
    L.nwarps = (unsigned)((n + 31) / 32);
    L.dyn_smem = dyn_smem ? (char*)dyn_smem_buf : nullptr;
    L.seed = seed;
    rng_state = seed ? seed : 1;
    {
        const char* tr = getenv("ANDERSEN_GPU_EMULATOR_TRACE");
        tracing = false;
        if (tr && *tr) {
            snprintf(trace_kernel, sizeof trace_kernel, "%s", tr);
            char* colon = strchr(trace_kernel, ':');
            trace_warp = colon ? atoi(colon + 1) : -1;
            if (colon) *colon = 0;
            tracing = strcmp(trace_kernel, name) == 0;
        }
    }
    cur = nullptr;
    catch_signals();
    if (timeout_s > 0) watchdog_arm(timeout_s);
    int rc = 0;
    if (sigsetjmp(escape, 1) == 0) {
        in_launch = 1;
        for (unsigned z = 0; z < grid[2] && rc == 0; ++z)
            for (unsigned y = 0; y < grid[1] && rc == 0; ++y)
                for (unsigned x = 0; x < grid[0] && rc == 0; ++x) {
                    cur_block = uint3{x, y, z};
                    if (run_block() != 0) rc = -1;
                }
        in_launch = 0;
    } else {
        in_launch = 0;
        describe_fault(timeout_s);
        rc = -1;
    }
    if (timeout_s > 0) watchdog_disarm();
    release_signals();
    cur = nullptr;
    return rc;
}
