// The rules of one round, as contribution pairs (t << 32 | sid): "P(t) ⊇ set sid".
//
// Semi-naive over interned sets (setstore.cuh). Per representative node: P (its set), ΔP
// (what the last round added: P = Pold ∪ ΔP, disjoint) and Pold. The copy edges that loads
// and stores make are never stored: a load's edges are the pointees of P(y), a store's those
// of P(x), so the rules read them off the sets:
//
//   Copy     y →c x                    ⟹  P(x) ⊇ ΔP(y)
//   AddPtr   x = y + o                 ⟹  P(x) ⊇ {z+o : z ∈ ΔP(y), o < size(z)}
//            x = y +w d (walk)         ⟹  P(x) ⊇ {z+d : z ∈ ΔP(y), d < walk_size(z)}
//            x = y +c k (call)         ⟹  P(x) ⊇ {z+k : z ∈ ΔP(y), k < call_size(z)}  (functions only)
//            gep or walk, o ≥ 1        ⟹  P(x) ⊇ {z : z ∈ ΔP(y), z field-insensitive}
//   Load     x = *y,  z ∈ ΔP(y)        ⟹  P(x) ⊇ P(z)        (new edges z →c x: Lfull)
//            x = *y,  z ∈ Pold(y)      ⟹  P(x) ⊇ ΔP(z)       (old edges: Ldelta)
//   Store    *x = y,  z ∈ ΔP(x)        ⟹  P(z) ⊇ P(y)        (new edges y →c z)
//            *x = y,  z ∈ Pold(x)      ⟹  P(z) ⊇ ΔP(y)       (old edges)
//
// (z read through rep, z ≠ i2p for loads and stores). Lfull(T) = ∪_{z∈T} P(rep z) and
// Ldelta(S) = ∪_{z∈S} ΔP(rep z) are computed once per distinct set and round (a per-round memo
// keyed by sid: many pointers share their set); shift(ΔP, o) once per (sid, o) for the whole
// solve (a persistent memo), and so is the field-insensitive part, shift(ΔP, 0) against `fi`.
// The stores emit grouping pairs (T << 32 | sid) for stores.cu, which unions the values of each
// T and expands T: one walk of T per distinct set.
//
// Before emit, image_chunks lists the images this round will compute of sets of at least a few
// elements (Lfull(ΔP(y)) of a changed load pointer, Ldelta(Pold(y)) of a load pointer; the host's
// IMAGE_CHUNK_MIN), each once, as chunks of a few elements (IMAGE_CHUNK_ELEMS); emit's first items
// are those chunks, whose warps compute and publish the element parts no warp has claimed yet and
// wait for none. An image's parts, each the union of as many sets as its element has ids, are then
// computed by many warps side by side, and the warp that images the set finds them done or under
// way instead of computing dozens of them in a row.
//
// One kernel, emit, one warp per item: a node y of the changed list (ΔP(y) ≠ ∅) pushes to its
// copy, gep and load successors (C pairs) and the stores it is the pointer or the value of (G
// pairs), its gep edges past the first GEP_CHUNK split off into heavy items of their own; a load
// pointer y with Pold(y) ≠ ∅ pushes Ldelta(Pold(y)) to its load successors. A
// pointee z changed in the last round iff bit z of `ch` is set; `cb` has a bit per element base
// with any such z, so Ldelta reads only the elements of Pold(y) that can contribute.
// Pairs past a buffer's capacity are counted, not written (the host grows it and runs the
// round again). Kernels give up on CTL_OVF (pool, set table or intern table full). The C
// buffer passed in starts after the pairs carried over from the last round's stores.
#include "setstore.cuh"

struct Graph {
    const u32 *c_ptr, *c_dst;            // copy successors: y →c x
    const u32 *g_ptr, *g_dst, *g_off;    // gep successors: x = y + o
    const u32 *l_ptr, *l_dst;            // load successors: x = *y
    const u32 *s_ptr, *s_val;            // stores by pointer: *x = y gives y in s(x)
    const u32 *v_ptr, *v_ptr_of;         // stores by value: *x = y gives x in v(y)
    const u32 *rep, *size, *walk_size;   // the gep bound and the walk bound per node
    const u32 *call_size;                // the call gep bound: a function's slots, 0 elsewhere
    const u32 *fi;                       // 1 at field-insensitive objects, else 0; nullptr: none
    u64 i2p;
};

#define IMG_FULL 1ull
#define IMG_DELTA 2ull

// The union of arr[rep z] over z ∈ the element at pool index e, z ≠ i2p (with `ch`, only the z
// whose bit is set in `ch`). NIL when the pool or the set table is full.
__device__ u32 elem_image(Pool& p, SetStore& s, u32 e, const u32* __restrict__ arr,
                          const u32* __restrict__ rep, const u32* __restrict__ ch, u32 i2p, u32* hd) {
    const u32 lane = lane_id();
    PROF_T0(t0);
    SidUnion u;
    su_init(u, hd);
    const u32 w = elem_word(p, e, lane);
    const u32 base = __shfl_sync(FULL_MASK, w, 0);
    u32 m = bits_lane(lane) ? w : 0u;
    if (ch != nullptr && bits_lane(lane)) m &= ch[(size_t)base * 30 + lane - 1];
    m = without_id(m, base, i2p);
    while (__any_sync(FULL_MASK, m != 0)) {
        u32 v = 0;
        if (m) {
            u32 b = __ffs(m) - 1;
            m &= m - 1;
            v = arr[rep[base * ELEM_BITS + (lane - 1) * 32 + b]];
        }
        PROF_CNT(p.ctl, ch == nullptr ? PF_SIDS_FULL : PF_SIDS_DELTA, __popc(__ballot_sync(FULL_MASK, v != 0)));
        for (u32 cand = __ballot_sync(FULL_MASK, v != 0); cand; cand &= cand - 1) {
            u32 sv = __shfl_sync(FULL_MASK, v, __ffs(cand) - 1);
            if (!su_add(p, s, u, sv)) return NIL;
        }
    }
    const u32 out = su_finish(p, s, u);
    PROF_MAX(p.ctl, PF_MAX_ELEM_IMAGE, clock64() - t0);
    PROF_MAX(p.ctl, PF_MAX_ELEM_SIDS, u.n);
    return out;
}

// Whether the element at pool index e is read by an image: always by Lfull (`cb` null); by Ldelta
// when its base has a bit in `cb` (a pointee of it changed last round).
__device__ __forceinline__ bool elem_wanted(const Pool& p, u32 e, const u32* __restrict__ cb) {
    if (cb == nullptr) return true;
    const u32 base = elem_word(p, e, 0);
    return cb[base / 32] >> (base % 32) & 1u;
}

// The element parts of the lanes in `todo`, computed one after another by the warp (lane l: the
// element at pool index e, and the memo slot it claimed when r == 0, which is published). After a
// failure, and when `failed` is already set, every claim left is published as given up. Returns
// this lane's part (when its bit is in `todo`; NIL after a failure); `failed` is warp-uniform.
__device__ u32 compute_parts(Pool& p, SetStore& s, ElemMemo& em, u32 todo, u32 e, u32 slot, int r,
                             const u32* __restrict__ arr, const u32* __restrict__ rep, const u32* __restrict__ ch,
                             u32 i2p, u32* hd, bool& failed) {
    u32 part = NIL;
    for (; todo; todo &= todo - 1) {
        const u32 l = __ffs(todo) - 1;
        const u32 el = __shfl_sync(FULL_MASK, e, l), sl = __shfl_sync(FULL_MASK, slot, l);
        const int rl = __shfl_sync(FULL_MASK, r, l);
        const u32 pt = failed ? NIL : elem_image(p, s, el, arr, rep, ch, i2p, hd);
        failed |= pt == NIL;
        if (rl == 0) publish_value(em.vals, sl, pt == NIL ? MEMO_ABORTED : (u64)pt);
        if (lane_id() == l) part = pt;
    }
    return part;
}

// The union of arr[rep z] over z ∈ set `sid` \ {i2p}; with `ch` (Ldelta), only the z whose bit
// is set in `ch`, and only elements whose base has a bit in `cb` are read (the set is scanned
// 32 elements at a time by their bases). Each element's part is memoized for the round by the
// element's content (`em`, kind IMG_FULL or IMG_DELTA): sets that share an element, as most do,
// pay for it once. The 32 elements' memo lookups run side by side (a lane each); the parts no
// warp has computed are then computed one after another by the warp and published, and only
// then does it wait for the parts other warps are computing. `hd` is this warp's two list-head
// slots. NIL when the pool or the set table is full, or a warp gave up on an element this one needs.
__device__ u32 image(Pool& p, SetStore& s, ElemMemo& em, u32 sid, const u32* __restrict__ arr,
                     const u32* __restrict__ rep, const u32* __restrict__ ch, const u32* __restrict__ cb,
                     u32 i2p, u32* hd) {
    const u32 lane = lane_id();
    const u64 kind = ch != nullptr ? IMG_DELTA : IMG_FULL;
    PROF_T0(t_img);
#ifdef ANDERSEN_PROFILE
    u64 waited = 0, computed = 0, parts = 0;
#endif
    SidUnion u;
    su_init(u, hd);
    const u32 start = s.start[sid], n = s.nelem[sid];
    PROF_CNT(p.ctl, cb == nullptr ? PF_ELEMS_FULL : PF_SCAN_DELTA, n);
    PROF_MAX(p.ctl, PF_MAX_IMAGE_ELEMS, n);
    for (u32 i0 = 0; i0 < n; i0 += 32) {
        const u32 e = start + i0 + lane;
        const bool want = i0 + lane < n && elem_wanted(p, e, cb);
        if (cb != nullptr) PROF_CNT(p.ctl, PF_ELEMS_DELTA, __popc(__ballot_sync(FULL_MASK, want)));
        u64 val = 0;
        u32 slot = 0;
        int r = want ? elem_memo_lookup_lane(p, em, e, kind, val, slot) : 4;   // 4: not wanted
        // (the element memo is not in CTL_MEMO_HITS/MISSES, which count the other memos' lookups)
        // the parts to compute (claimed here, or not cacheable); after a failure every claim left
        // is published as given up
        const u32 compute = __ballot_sync(FULL_MASK, r == 0 || r == 2);
        PROF_CNT(p.ctl, PF_ELEM_HITS, __popc(__ballot_sync(FULL_MASK, r == 1 || r == 3)));
        PROF_CNT(p.ctl, PF_ELEM_IMAGES, __popc(compute));
        bool failed = __any_sync(FULL_MASK, r == -1);
#ifdef ANDERSEN_PROFILE
        computed += __popc(compute);
        const long long t_parts = clock64();
#endif
        const u32 mine = compute_parts(p, s, em, compute, e, slot, r, arr, rep, ch, i2p, hd + 1, failed);
        u32 part = r == 1 ? (u32)val : (r == 0 || r == 2) ? mine : 0u;
        if (failed) return NIL;
#ifdef ANDERSEN_PROFILE
        const long long t_wait = clock64();
        parts += t_wait - t_parts;
#endif
        if (r == 3) {
            r = memo_wait_value(em.vals, slot, val, p.ctl);
            part = (u32)val;
        }
        if (__any_sync(FULL_MASK, r == -1)) return NIL;
#ifdef ANDERSEN_PROFILE
        waited += clock64() - t_wait;
#endif
        for (u32 sel = __ballot_sync(FULL_MASK, want); sel; sel &= sel - 1)
            if (!su_add(p, s, u, __shfl_sync(FULL_MASK, part, __ffs(sel) - 1))) return NIL;
    }
    PROF_T0(t_fin);
    const u32 out = su_finish(p, s, u);
    PROF_MAX(p.ctl, PF_MAX_IMAGE_FINISH, clock64() - t_fin);
    PROF_MAX(p.ctl, PF_MAX_IMAGE, clock64() - t_img);
#ifdef ANDERSEN_PROFILE
    PROF_MAX(p.ctl, PF_MAX_IMAGE_WAIT, waited);
    PROF_MAX(p.ctl, PF_MAX_IMAGE_PARTS, parts);
    PROF_MAX(p.ctl, PF_MAX_IMAGE_COMPUTED, computed);
#endif
    return out;
}

// One image chunk (image_chunks): the element parts of elements [ce·c, ce·c + ce) of set `sid` for
// an image of kind `kind` (IMG_FULL: arr = P; IMG_DELTA: arr = D, only the z set in `ch`, and only
// elements whose base has a bit in `cb`) that no warp has claimed: claimed, computed and
// published here. A part claimed already is left to its claimer (no wait). `ce` (1 to 32): elements
// a chunk, one a lane. False when it gave up.
__device__ bool image_chunk(Pool& p, SetStore& s, ElemMemo& em, u32 sid, u32 c, u32 ce, u64 kind,
                            const u32* __restrict__ arr, const u32* __restrict__ rep, const u32* __restrict__ ch,
                            const u32* __restrict__ cb, u32 i2p, u32* hd) {
    const u32 lane = lane_id();
    const u32 start = s.start[sid], n = s.nelem[sid];
    const u32 i = c * ce + lane;
    const u32 e = start + i;
    const bool want = lane < ce && i < n && elem_wanted(p, e, kind == IMG_DELTA ? cb : nullptr);
    u64 val = 0;
    u32 slot = 0;
    const int r = want ? elem_memo_lookup_lane(p, em, e, kind, val, slot) : 4;
    bool failed = false;
    compute_parts(p, s, em, __ballot_sync(FULL_MASK, r == 0), e, slot, r, arr, rep,
                  kind == IMG_DELTA ? ch : nullptr, i2p, hd, failed);
    return !failed;
}

// An offset in g_off with this bit is a walk gep x = y +w d (d = the other bits), bound walk_size;
// with CALL, a call gep x = y +c k, bound call_size.
#define WALK 0x80000000u
#define CALL 0x40000000u
// The shift memo's offset for ΔP's field-insensitive part (no gep or walk has it: offsets are < n).
#define FI_PART 0x7FFFFFFFu

// {z+o : z ∈ set sid, o < size(z)}, interned; NIL when the pool or set table is full.
// `sh` is this warp's 64 words of shared memory, `hd` its list-head slot.
__device__ u32 shift(Pool& p, SetStore& s, u32 sid, u32 o, const u32* __restrict__ size, u32* sh,
                     u32* hd) {
    const u32 lane = lane_id();
    if (lane == 0) *hd = NIL;
    Cursor c;
    cursor_init(p, c, hd);
    const u32 ob = o / ELEM_BITS, orr = o % ELEM_BITS;
    for (SetStream src(p, s.start[sid], s.nelem[sid]); src.base != NIL; src.next(p)) {
        const u32 sbase = src.base;
        u32 m = src.bits();
        sh[lane] = 0;
        sh[32 + lane] = 0;
        __syncwarp();
        while (m) {
            u32 b = __ffs(m) - 1;
            m &= m - 1;
            u32 rel = (lane - 1) * 32 + b;
            u32 z = sbase * ELEM_BITS + rel;
            if (o < size[z]) {
                u32 q = rel + orr;
                u32 blk = q / ELEM_BITS, r = q % ELEM_BITS;
                atomicOr(&sh[blk * 32 + 1 + r / 32], 1u << (r % 32));
            }
        }
        __syncwarp();
        u32 b0 = bits_lane(lane) ? sh[lane] : 0u;
        u32 b1 = bits_lane(lane) ? sh[32 + lane] : 0u;
        __syncwarp();
        if (__any_sync(FULL_MASK, b0 != 0) && merge_elem(p, c, hd, sbase + ob, b0, CTL_OVF) < 0) return NIL;
        if (__any_sync(FULL_MASK, b1 != 0) && merge_elem(p, c, hd, sbase + ob + 1, b1, CTL_OVF) < 0) return NIL;
    }
    __syncwarp();
    return intern_list(p, s, *(volatile u32*)hd);
}

// A changed node's gep edges j in [j0, j1) (ΔP(y) = d ≠ ∅): (x, shift(d, o)), and with `fi` the
// field-insensitive part of d. A node with more than GEP_CHUNK gep edges has its edges past the
// first GEP_CHUNK pushed by heavy items, GEP_CHUNK edges each, handed to other warps (one node
// with thousands of offsets would otherwise hold its round for thousands of shifts in a row).
// False when it gave up.
#define GEP_CHUNK 16
__device__ bool emit_geps(Pool& p, SetStore& s, Memo& shift_memo, const Graph& g, u32 d, u32 j0, u32 j1,
                          u64* C, u64 cap_c, u32* sh, u32* hd) {
    const u32 lane = lane_id();
    u64* ctl = p.ctl;
    PROF_T0(t_geps);
    for (u32 j = j0; j < j1; ++j) {
        const u32 x = g.g_dst[j], o = g.g_off[j];
        u32 r = memoized(shift_memo, (u64)d << 32 | o, ctl, [&] {
            PROF_T0(t0);
            u32 out = (o & WALK) ? shift(p, s, d, o & ~WALK, g.walk_size, sh, hd)
                    : (o & CALL) ? shift(p, s, d, o & ~CALL, g.call_size, sh, hd)
                                 : shift(p, s, d, o, g.size, sh, hd);
            PROF_ADD(ctl, PF_SHIFT, t0);
            PROF_MAX(ctl, PF_MAX_SHIFT, clock64() - t0);
            return out;
        });
        if (r == NIL) return false;
        emit_pair(lane == 0 && r != 0, (u64)x << 32 | r, C, cap_c, &ctl[CTL_C_FILL], ctl);
        if (g.fi != nullptr && (o & ~WALK) != 0 && !(o & CALL)) {   // a field-insensitive z stays z
            u32 f = memoized(shift_memo, (u64)d << 32 | FI_PART, ctl, [&] {
                return shift(p, s, d, 0, g.fi, sh, hd);
            });
            if (f == NIL) return false;
            emit_pair(lane == 0 && f != 0, (u64)x << 32 | f, C, cap_c, &ctl[CTL_C_FILL], ctl);
        }
    }
    PROF_MAX(ctl, PF_MAX_GEPS, clock64() - t_geps);
    return true;
}

// One node of the changed list (ΔP(y) = d ≠ ∅): its pushes. False when it gave up.
__device__ bool emit_one_changed(Pool& p, SetStore& s, Memo& shift_memo, Memo& img_memo, ElemMemo& em,
                                 const Graph& g,
                                 u32 y, const u32* __restrict__ P, const u32* __restrict__ D,
                                 const u32* __restrict__ Pold, u64* C, u64 cap_c, u64* G, u64 cap_g,
                                 u32* sh, u32* hd) {
    const u32 lane = lane_id();
    u64* ctl = p.ctl;
    const u32 d = D[y];
    if (d == 0) return true;
    PROF_T0(t_copy);
    // Copy: (x, ΔP(y)) for y →c x
    for (u32 j = g.c_ptr[y], end = g.c_ptr[y + 1]; j < end; j += 32) {
        u32 x = j + lane < end ? g.c_dst[j + lane] : y;
        emit_pair(x != y, (u64)x << 32 | d, C, cap_c, &ctl[CTL_C_FILL], ctl);
    }
    PROF_MAX(ctl, PF_MAX_COPY, clock64() - t_copy);
    // AddPtr: (x, shift(ΔP(y), o)), the first GEP_CHUNK gep edges (heavy items do the rest)
    const u32 g0 = g.g_ptr[y];
    if (!emit_geps(p, s, shift_memo, g, d, g0, min(g.g_ptr[y + 1], g0 + GEP_CHUNK), C, cap_c, sh, hd))
        return false;
    PROF_T0(t_lfull);
    // Load, new edges: (x, Lfull(ΔP(y)))
    if (g.l_ptr[y + 1] > g.l_ptr[y]) {
        u32 r = memoized(img_memo, IMG_FULL << 32 | d, ctl, [&] {
            PROF_T0(t0);
            u32 out = image(p, s, em, d, P, g.rep, nullptr, nullptr, (u32)g.i2p, hd);
            PROF_ADD(ctl, PF_IMG_FULL, t0);
            PROF_CNT(ctl, PF_N_FULL, 1);
            return out;
        });
        if (r == NIL) return false;
        if (r != 0)
            for (u32 j = g.l_ptr[y], end = g.l_ptr[y + 1]; j < end; j += 32)
                emit_pair(j + lane < end, (u64)(j + lane < end ? g.l_dst[j + lane] : 0) << 32 | r,
                          C, cap_c, &ctl[CTL_C_FILL], ctl);
    }
    PROF_MAX(ctl, PF_MAX_LFULL, clock64() - t_lfull);
    PROF_T0(t_stores);
    // Store, new edges (y the pointer): (ΔP(y), P(v)) for *y = v
    for (u32 j = g.s_ptr[y], end = g.s_ptr[y + 1]; j < end; j += 32) {
        u32 pv = j + lane < end ? P[g.s_val[j + lane]] : 0;
        emit_pair(pv != 0, (u64)d << 32 | pv, G, cap_g, &ctl[CTL_G_FILL], ctl);
    }
    // Store, old edges (y the value): (Pold(x), ΔP(y)) for *x = y
    for (u32 j = g.v_ptr[y], end = g.v_ptr[y + 1]; j < end; j += 32) {
        u32 po = j + lane < end ? Pold[g.v_ptr_of[j + lane]] : 0;
        emit_pair(po != 0, (u64)po << 32 | d, G, cap_g, &ctl[CTL_G_FILL], ctl);
    }
    PROF_MAX(ctl, PF_MAX_STORES, clock64() - t_stores);
    return true;
}

// One load pointer y: Ldelta(Pold(y)) to its load successors. False when it gave up.
__device__ bool emit_one_load(Pool& p, SetStore& s, Memo& img_memo, ElemMemo& em, const Graph& g, u32 y,
                              const u32* __restrict__ D, const u32* __restrict__ Pold,
                              const u32* __restrict__ ch, const u32* __restrict__ cb, u64* C, u64 cap_c,
                              u32* hd) {
    const u32 lane = lane_id();
    u64* ctl = p.ctl;
    const u32 so = Pold[y];
    if (so == 0) return true;
    PROF_T0(t_ldelta);
    u32 r = memoized(img_memo, IMG_DELTA << 32 | so, ctl, [&] {
        PROF_T0(t0);
        u32 out = image(p, s, em, so, D, g.rep, ch, cb, (u32)g.i2p, hd);
        PROF_ADD(ctl, PF_IMG_DELTA, t0);
        PROF_CNT(ctl, PF_N_DELTA, 1);
        return out;
    });
    if (r == NIL) return false;
    if (r != 0)
        for (u32 j = g.l_ptr[y], end = g.l_ptr[y + 1]; j < end; j += 32)
            emit_pair(j + lane < end, (u64)(j + lane < end ? g.l_dst[j + lane] : 0) << 32 | r,
                      C, cap_c, &ctl[CTL_C_FILL], ctl);
    PROF_MAX(ctl, PF_MAX_LDELTA, clock64() - t_ldelta);
    return true;
}

// image_chunks: every image emit will compute this round of a set of at least `min_elems`
// elements (Lfull(ΔP(y)) for a changed y with a load successor, Ldelta(Pold(y)) for a load pointer
// y), once per (set, kind): `table` (mask + 1 keys sid << 1 | delta, ~0 free) keeps the sets
// listed, and a set that finds no slot in MEMO_PROBES is not. Its chunks of `ce` elements (1 to 32),
// sid << 32 | c << 1 | delta for c < ceil(n / ce), are appended to `chunks` (count ctl[CTL_CHUNKS]). Those past `cap`
// are counted but not written, and emit skips them: the imaging warp computes those parts itself.
// One thread per candidate, grid-stride.
extern "C" __global__ void image_chunks(const u32* __restrict__ chg, u64 nchg, const u32* __restrict__ lptrs,
                                        u64 nlptrs, const u32* __restrict__ l_ptr, const u32* __restrict__ D,
                                        const u32* __restrict__ Pold, const SetStore* __restrict__ sd, u64* table,
                                        u64 mask, u32 min_elems, u32 ce, u64* chunks, u64 cap, u64* ctl) {
    if (ovf_raised(ctl)) return;
    const u32* __restrict__ nelem = sd->nelem;
    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < nchg + nlptrs; t += (u64)gridDim.x * blockDim.x) {
        u32 sid = 0;
        u64 delta = 0;
        if (t < nchg) {
            const u32 y = chg[t];
            if (l_ptr[y + 1] > l_ptr[y]) sid = D[y];
        } else {
            sid = Pold[lptrs[t - nchg]];
            delta = 1;
        }
        if (sid == 0 || nelem[sid] < min_elems) continue;
        const u64 key = (u64)sid << 1 | delta;
        bool fresh = false;
        u64 sl = mix64(key) & mask;
        for (u32 probe = 0; probe < MEMO_PROBES; ++probe, sl = (sl + 1) & mask) {
            const u64 k = atomicCAS(&table[sl], MEMO_EMPTY, key);
            fresh = k == MEMO_EMPTY;
            if (fresh || k == key) break;
        }
        if (!fresh) continue;
        const u32 nc = (nelem[sid] + ce - 1) / ce;
        const u64 at = atomicAdd(&ctl[CTL_CHUNKS], (u64)nc);
        for (u32 c = 0; c < nc && at + c < cap; ++c) chunks[at + c] = (u64)sid << 32 | (u64)c << 1 | delta;
    }
}

// emit: items [0, nchunks) are the image chunks of image_chunks (nchunks read from ctl), then
// nheavy heavy gep chunks, heavy[i] = y << 32 | j (the gep edges [j, j + GEP_CHUNK) of node y,
// pushed when y changed: D[y] ≠ 0), then the changed nodes chg[i], then the load pointers; one
// warp per item, handed out by an atomic counter (the image chunks and heavy chunks first: the
// others wait for the one and the other are the longest).
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
emit(const u64* __restrict__ chunks, u64 cap_chunks, u32 chunk_elems,
     const u64* __restrict__ heavy, u64 nheavy, const u32* __restrict__ chg, u64 nchg,
     const u32* __restrict__ lptrs, u64 nlptrs,
     const Graph* __restrict__ gd, const u32* __restrict__ P, const u32* __restrict__ D,
     const u32* __restrict__ Pold, const u32* __restrict__ ch, const u32* __restrict__ cb,
     const SetStore* __restrict__ sd, const Memo* __restrict__ shift_d, const Memo* __restrict__ img_d,
     const ElemMemo* __restrict__ elem_d, u64* C, u64 cap_c, u64* G, u64 cap_g, u32* pool_w, u64* ctl,
     u32 cap) {
    __shared__ u32 buf[WARPS_PER_BLOCK][64];
    __shared__ u32 heads[WARPS_PER_BLOCK][2];
    Pool p{pool_w, ctl, cap};
    const Graph g = *gd;
    SetStore s = *sd;
    Memo shift_memo = *shift_d, img_memo = *img_d;
    ElemMemo em = *elem_d;
    u32* sh = buf[threadIdx.x / 32];
    u32* hd = heads[threadIdx.x / 32];
    const u64 nchunks = min(*(volatile const u64*)&ctl[CTL_CHUNKS], cap_chunks);
    const u64 items = nchunks + nheavy + nchg + nlptrs;
    for (;;) {
        const u64 i = next_work(&ctl[CTL_WORK]);
        if (i >= items || ovf_raised(ctl)) return;
        PROF_T0(t0);
        bool ok = true;
        // the item's kind (3 image chunk, 0 heavy gep chunk, 1 changed node, 2 load pointer), j its index there
        u64 j = i;
        u32 kind = 3;
        if (j >= nchunks) j -= nchunks, kind = 0;
        if (kind == 0 && j >= nheavy) j -= nheavy, kind = 1;
        if (kind == 1 && j >= nchg) j -= nchg, kind = 2;
        if (kind == 3) {
            const u64 ck = chunks[j];   // sid << 32 | c << 1 | (1: Ldelta)
            const bool delta = ck & 1ull;
            ok = image_chunk(p, s, em, (u32)(ck >> 32), (u32)ck >> 1, chunk_elems, delta ? IMG_DELTA : IMG_FULL,
                             delta ? D : P, g.rep, ch, cb, (u32)g.i2p, hd);
        } else if (kind == 0) {
            const u32 y = (u32)(heavy[j] >> 32), jg = (u32)heavy[j], d = D[y];
            if (d != 0)
                ok = emit_geps(p, s, shift_memo, g, d, jg, min(g.g_ptr[y + 1], jg + GEP_CHUNK), C, cap_c, sh, hd);
        } else if (kind == 1) {
            ok = emit_one_changed(p, s, shift_memo, img_memo, em, g, chg[j], P, D, Pold, C, cap_c, G, cap_g, sh,
                                  hd);
        } else {
            ok = emit_one_load(p, s, img_memo, em, g, lptrs[j], D, Pold, ch, cb, C, cap_c, hd);
        }
        PROF_ADD(ctl, kind == 0 || kind == 1 ? PF_EMIT_CHANGED : PF_EMIT_LOADS, t0);
#ifdef ANDERSEN_PROFILE
        const u64 dt = clock64() - t0;
        PROF_MAX(ctl, PF_EMIT_ITEM_MAX, dt);
        PROF_MAX(ctl, PF_ITEM_MAX_KIND, dt << 2 | kind);
#endif
        if (!ok) return;
    }
}
