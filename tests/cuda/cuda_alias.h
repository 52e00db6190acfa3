/* Alias assertions for CUDA programs, callable in host and device code and checked by
   `andersen-gpu check-aliases` (plain C names: the extractor knows them).
   With -DANDERSEN_NO_ALIAS_ASSERTIONS they are no code at all: the builds that are compiled
   to PTX and run (bench/cuda_transforms.py) use it. */
#ifndef CUDA_ALIAS_H
#define CUDA_ALIAS_H
#ifdef ANDERSEN_NO_ALIAS_ASSERTIONS
#define MAYALIAS(p, q) ((void)0)
#define NOALIAS(p, q) ((void)0)
#define EXPECTEDFAIL_NOALIAS(p, q) ((void)0)
#define EXPECTEDFAIL_MAYALIAS(p, q) ((void)0)
#else
extern "C" __host__ __device__ void MAYALIAS(const void *, const void *);
extern "C" __host__ __device__ void NOALIAS(const void *, const void *);
extern "C" __host__ __device__ void EXPECTEDFAIL_NOALIAS(const void *, const void *);
extern "C" __host__ __device__ void EXPECTEDFAIL_MAYALIAS(const void *, const void *);
#endif
/* deterministic inputs: a 32-bit LCG */
static inline unsigned lcg(unsigned *s) { *s = *s * 1664525u + 1013904223u; return *s >> 8; }
#endif
