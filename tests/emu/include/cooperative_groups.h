// cooperative_groups.h for the SIMT emulator (tests/emu): thread blocks and warp tiles, on the
// emulator's intrinsics. Grid-wide groups (this_grid().sync()) and coalesced groups are not here.
#pragma once

namespace cooperative_groups {

struct thread_block {
    void sync() const { __syncthreads(); }
    unsigned thread_rank() const {
        return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    }
    unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
    unsigned num_threads() const { return size(); }
    dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    dim3 dim_threads() const { return group_dim(); }
};

inline thread_block this_thread_block() { return thread_block(); }
inline void sync(const thread_block& b) { b.sync(); }

// A tile of N consecutive threads of the block (N a power of two up to 32).
template <unsigned N>
struct thread_block_tile {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tile sizes are powers of two up to 32");
    unsigned rank_in_block() const { return this_thread_block().thread_rank(); }
    unsigned mask() const {
        const unsigned lane = rank_in_block() & 31u;
        const unsigned bits = N == 32 ? 0xFFFFFFFFu : ((1u << N) - 1u);
        return bits << (lane & ~(N - 1u));
    }
    unsigned shift() const { return (rank_in_block() & 31u) & ~(N - 1u); }
    unsigned thread_rank() const { return rank_in_block() & (N - 1u); }
    static constexpr unsigned size() { return N; }
    static constexpr unsigned num_threads() { return N; }
    unsigned meta_group_rank() const { return rank_in_block() / N; }
    unsigned meta_group_size() const { return (this_thread_block().size() + N - 1) / N; }
    void sync() const { __syncwarp(mask()); }
    template <class T> T shfl(T v, int src) const { return __shfl_sync(mask(), v, src, N); }
    template <class T> T shfl_up(T v, unsigned d) const { return __shfl_up_sync(mask(), v, d, N); }
    template <class T> T shfl_down(T v, unsigned d) const { return __shfl_down_sync(mask(), v, d, N); }
    template <class T> T shfl_xor(T v, int m) const { return __shfl_xor_sync(mask(), v, m, N); }
    unsigned ballot(int p) const { return __ballot_sync(mask(), p) >> shift(); }
    int any(int p) const { return __any_sync(mask(), p); }
    int all(int p) const { return __all_sync(mask(), p); }
    template <class T> unsigned match_any(T v) const { return __match_any_sync(mask(), v) >> shift(); }
};

template <unsigned N, class Parent>
inline thread_block_tile<N> tiled_partition(const Parent&) { return thread_block_tile<N>(); }

template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return a < b ? a : b; } };
template <class T> struct greater { T operator()(T a, T b) const { return a > b ? a : b; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

// cg::reduce over a tile: every thread gets op over the tile's values.
template <unsigned N, class T, class Op>
inline T reduce(const thread_block_tile<N>& g, T v, Op op) {
    for (unsigned d = N / 2; d > 0; d >>= 1) v = op(v, g.shfl_xor(v, (int)d));
    return v;
}

}  // namespace cooperative_groups
