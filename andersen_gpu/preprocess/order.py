"""``pointee_order``: a renumbering of the nodes under which the large points-to sets are dense.

A points-to set on the GPU is a list of 960-bit elements, and every rule walks whole
elements, so what a set costs is its number of elements, not of bits. In the paper inputs
the pointees (the address-taken objects) are scattered over the id range among nodes that
are never pointed to, and most pointers end up pointing into one large group of objects
(the "blob" of a C program: what flows through generic pointers and memory): at round 50
of 88, linux's heaviest set holds 14,724 pointees and 13,531 representatives share it, and
its final sets carry 72 bits per element on average. Numbering the members of that set first and
together would leave linux 0.28 of its set elements (counted against the final solution);
the order below, computed before solving, leaves 0.37 (gdb 0.41, gimp 0.46, pine 0.55,
vim 0.67; each against numbering the address-taken objects first; counted on the
development machine, 2026-11-30).

The order, computed in compiled passes over the int32 columns:

1. **Spans.** An object and its fields are consecutive ids (``z .. z + obj_size[z] - 1``),
   and the gep rule adds offsets to ids, so objects move as whole spans: the maximal unions
   of overlapping ``[z, z + max(obj_size[z], 1))`` intervals.
2. **Unification** (Steensgaard, POPL 1996), span-level and field-insensitive, in one pass:
   every pointer gets one class of address-taken spans it may point to, and copies, geps,
   loads and stores unify classes instead of including them; the nodes of a span (its
   contents) share one class too. The *hub* is the class holding the most address-taken
   spans.
3. **Directed flow to the hub.** A graph over the nodes and one content node per class:
   ``y -> x`` for ``x = y`` and ``x = y + o`` (a gep, walk or call gep); ``content(pts(y)) -> x`` for ``x = *y``;
   ``y -> content(pts(x))`` for ``*x = y``; every node of an address-taken span to and
   from its class's content. Unification only merges what inclusion would keep apart, so
   these edges over-approximate where a pointee can flow; a span whose address is taken
   at a node that reaches the hub's content (breadth-first, backwards from it) is
   predicted to be in the large sets.
4. **Order.** Those spans first, nearest to the hub first (the fewest edges from a taker
   to the hub's content: gimp 0.64 -> 0.46 of the elements against one group), then the
   other address-taken spans (and the int-to-pointer object), then every other span;
   ties in the original order.

Only the numbering changes: the solution of the renumbered set, mapped back, is the
solution of ``cs`` (any permutation that keeps every span consecutive and in order inside
is exact; the heuristic decides only its speed).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from constraints.model import ConstraintSet

from .hvn import _find   # union-find root, path halving

# Pending content joins one unification may hold (deeper ones are dropped: see _join).
STACK_PAIRS = 4096


@dataclass
class PointeeOrder:
    """A renumbering of the nodes of a constraint set.

    Attributes
    ----------
    perm : int32[n_nodes]     new id of every node (a permutation; spans stay consecutive)
    hub_spans : int           address-taken spans predicted to flow into the hub (numbered first)
    addr_spans : int          address-taken spans (with the int-to-pointer object's)
    ms : float                time to compute it (host, milliseconds)
    """

    perm: np.ndarray
    hub_spans: int
    addr_spans: int
    ms: float


@njit(cache=True, nogil=True)
def _spans(obj_size):
    """(sid int32[n], starts int32[n_spans + 1]): the span of every id (maximal unions of
    object intervals) and where each span starts (``starts[-1] == n``)."""
    n = obj_size.size
    sid = np.empty(n, np.int32)
    reach = 0
    s = -1
    for i in range(n):
        if i >= reach:
            s += 1
        sid[i] = s
        end = i + max(obj_size[i], 1)
        if end > reach:
            reach = end
    starts = np.empty(s + 2, np.int32)
    starts[s + 1] = n
    for i in range(n - 1, -1, -1):
        starts[sid[i]] = i
    return sid, starts


@njit(cache=True, nogil=True, inline='always')
def _join(parent, rank, loc_pt, a, b, stack):
    """Union the classes of elements a and b, then (by an explicit stack) the classes their
    contents point to. A content join that would overflow ``stack`` is dropped: the classes
    only steer the order, so a coarser or finer partition changes its speed, never the
    solution."""
    stack[0] = a
    stack[1] = b
    top = 1
    while top > 0:
        top -= 1
        ra = _find(parent, stack[2 * top])
        rb = _find(parent, stack[2 * top + 1])
        if ra == rb:
            continue
        if rank[ra] < rank[rb]:
            ra, rb = rb, ra
        elif rank[ra] == rank[rb]:
            rank[ra] += 1
        parent[rb] = ra         # union by rank: without it, copy chains built deep trees
        pa, pb = loc_pt[ra], loc_pt[rb]
        if pa < 0:
            loc_pt[ra] = pb
        elif pb >= 0 and 2 * top + 2 <= stack.size:
            stack[2 * top] = pa
            stack[2 * top + 1] = pb
            top += 1


@njit(cache=True, nogil=True, inline='always')
def _fresh(parent, rank, loc_pt, count):
    """A new class element (no span): its index."""
    e = count[0]
    count[0] += 1
    parent[e] = e
    rank[e] = 0
    loc_pt[e] = -1
    return e


@njit(cache=True, nogil=True, inline='always')
def _pt_of_var(parent, rank, loc_pt, var_pt, v, count):
    """The root of the class node v points to (a fresh one if it points nowhere yet)."""
    if var_pt[v] < 0:
        var_pt[v] = _fresh(parent, rank, loc_pt, count)
    return _find(parent, var_pt[v])


@njit(cache=True, nogil=True, inline='always')
def _pt_of_class(parent, rank, loc_pt, r, count):
    """The root of the class the contents of root r point to (fresh if none yet)."""
    if loc_pt[r] < 0:
        loc_pt[r] = _fresh(parent, rank, loc_pt, count)
    return _find(parent, loc_pt[r])


@njit(cache=True, nogil=True)
def _unify(sid, starts, span_el, n_addr, used, addr_dst, addr_src, copy_dst, copy_src, gep_dst,
           gep_src, load_dst, load_src, store_dst, store_src):
    """Span-level Steensgaard classes in one pass (fresh elements for classes not named yet).

    Elements ``0..n_addr-1`` are the address-taken spans (``span_el[s]``, -1 for the other
    spans: nothing points to them), the rest fresh classes. Returns (parent int32[n_el],
    var_pt int32[n]): ``var_pt[v]`` is an element of the class node v points to (-1: none)."""
    n = sid.size
    # every step makes at most this many fresh elements: a span's contents one, a copy or
    # gep one, a load or store two
    cap = 2 * n_addr + copy_dst.size + gep_dst.size + 2 * (load_dst.size + store_dst.size) + 1
    parent = np.empty(cap, np.int32)
    rank = np.zeros(cap, np.int8)
    loc_pt = np.empty(cap, np.int32)
    for e in range(n_addr):
        parent[e] = e
        loc_pt[e] = -1
    count = np.full(1, n_addr, np.int64)
    var_pt = np.full(n, -1, np.int32)
    stack = np.empty(2 * STACK_PAIRS, np.int32)
    # the fast paths (a slot still empty) are spelled out: a call per member node cost
    # 36 ns in reference counts of its array arguments (vim: 6 of 8 ms)
    for s in range(starts.size - 1):
        # the nodes of an address-taken span hold its contents: one class for all of them
        e = span_el[s]
        if e >= 0:
            c = _pt_of_class(parent, rank, loc_pt, _find(parent, e), count)
            for v in range(starts[s], starts[s + 1]):
                if not used[v]:
                    continue        # in no constraint: its class steers nothing
                if var_pt[v] < 0:
                    var_pt[v] = c
                else:
                    _join(parent, rank, loc_pt, var_pt[v], c, stack)
    for i in range(addr_dst.size):
        x, e = addr_dst[i], span_el[sid[addr_src[i]]]
        if var_pt[x] < 0:
            var_pt[x] = e
        else:
            _join(parent, rank, loc_pt, var_pt[x], e, stack)
    for k in range(2):
        dst = copy_dst if k == 0 else gep_dst
        src = copy_src if k == 0 else gep_src
        for i in range(dst.size):
            x, y = dst[i], src[i]
            if var_pt[y] < 0 and var_pt[x] < 0:
                var_pt[y] = var_pt[x] = _fresh(parent, rank, loc_pt, count)
            elif var_pt[y] < 0:
                var_pt[y] = var_pt[x]
            elif var_pt[x] < 0:
                var_pt[x] = var_pt[y]
            else:
                _join(parent, rank, loc_pt, var_pt[x], var_pt[y], stack)
    for k in range(2):
        # x = *y: pts(x) = contents(pts(y)); *y = x (a store, dst y): the same classes
        ptr_col = load_src if k == 0 else store_dst
        val_col = load_dst if k == 0 else store_src
        for i in range(ptr_col.size):
            a = _pt_of_var(parent, rank, loc_pt, var_pt, ptr_col[i], count)
            c = _pt_of_class(parent, rank, loc_pt, a, count)
            x = val_col[i]
            if var_pt[x] < 0:
                var_pt[x] = c
            else:
                _join(parent, rank, loc_pt, var_pt[x], c, stack)
    return parent[:count[0]], var_pt


@njit(cache=True, nogil=True)
def _hub_spans(sid, starts, span_el, used, parent, var_pt, addr_dst, addr_src, copy_dst,
               copy_src, gep_dst, gep_src, load_dst, load_src, store_dst, store_src):
    """int32[n_spans]: for the address-taken spans whose address is taken at a node that
    reaches the content node of the hub class, the fewest edges from such a node to it
    (a breadth-first search backwards from the content node); -1 for the other spans."""
    n = sid.size
    n_spans = starts.size - 1
    n_el = parent.size
    root = np.empty(n_el, np.int32)      # the class root of every element
    for e in range(n_el):
        root[e] = _find(parent, e)
    size = np.zeros(n_el, np.int32)
    hub = -1
    for s in range(n_spans):
        if span_el[s] >= 0:
            r = root[span_el[s]]
            size[r] += 1
            if hub < 0 or size[r] > size[hub]:
                hub = r
    out = np.full(n_spans, -1, np.int32)
    if hub < 0:
        return out
    # reversed edges (dst -> src) over the n nodes and a content node n + r per class root r
    m = n + n_el
    ptr = np.zeros(m + 1, np.int32)
    for k in range(2):
        dst = copy_dst if k == 0 else gep_dst
        for i in range(dst.size):
            ptr[dst[i]] += 1
    for i in range(load_dst.size):
        if var_pt[load_src[i]] >= 0:
            ptr[load_dst[i]] += 1
    for i in range(store_dst.size):
        if var_pt[store_dst[i]] >= 0:
            ptr[n + root[var_pt[store_dst[i]]]] += 1
    for s in range(n_spans):
        if span_el[s] >= 0:
            c = n + root[span_el[s]]
            for v in range(starts[s], starts[s + 1]):
                if used[v]:
                    ptr[v] += 1
                    ptr[c] += 1
    total = 0
    for u in range(m + 1):
        total += ptr[u]
        ptr[u] = total          # the end of u's run; filling decrements it to the start
    src = np.empty(total, np.int32)
    for k in range(2):
        dst = copy_dst if k == 0 else gep_dst
        col = copy_src if k == 0 else gep_src
        for i in range(dst.size):
            ptr[dst[i]] -= 1
            src[ptr[dst[i]]] = col[i]
    for i in range(load_dst.size):
        if var_pt[load_src[i]] >= 0:
            ptr[load_dst[i]] -= 1
            src[ptr[load_dst[i]]] = n + root[var_pt[load_src[i]]]
    for i in range(store_dst.size):
        if var_pt[store_dst[i]] >= 0:
            d = n + root[var_pt[store_dst[i]]]
            ptr[d] -= 1
            src[ptr[d]] = store_src[i]
    for s in range(n_spans):
        if span_el[s] >= 0:
            c = n + root[span_el[s]]
            for v in range(starts[s], starts[s + 1]):
                if used[v]:
                    ptr[v] -= 1
                    src[ptr[v]] = c
                    ptr[c] -= 1
                    src[ptr[c]] = v
    level = np.full(m, -1, np.int32)
    queue = np.empty(m, np.int32)
    queue[0] = n + hub
    level[n + hub] = 0
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(ptr[u], ptr[u + 1]):
            w = src[k]
            if level[w] < 0:
                level[w] = level[u] + 1
                queue[tail] = w
                tail += 1
    for i in range(addr_dst.size):
        d = level[addr_dst[i]]
        s = sid[addr_src[i]]
        if d > 0 and (out[s] < 0 or d < out[s]):
            out[s] = d
    return out


@njit(cache=True, nogil=True)
def _used(n, addr_dst, copy_dst, copy_src, gep_dst, gep_src, load_dst, load_src, store_dst,
          store_src):
    """bool[n]: the nodes some constraint names as a pointer or a value (not as a pointee)."""
    used = np.zeros(n, np.bool_)
    for col in (addr_dst, copy_dst, copy_src, gep_dst, gep_src, load_dst, load_src, store_dst,
                store_src):
        for i in range(col.size):
            used[col[i]] = True
    return used


@njit(cache=True, nogil=True)
def _perm(starts, group, n_groups):
    """int32[n]: new id of every node when spans are ordered by ``group`` (0..n_groups-1),
    stably."""
    n_spans = starts.size - 1
    offset = np.zeros(n_groups + 1, np.int64)
    for s in range(n_spans):
        offset[group[s] + 1] += starts[s + 1] - starts[s]
    for g in range(n_groups):
        offset[g + 1] += offset[g]
    perm = np.empty(starts[n_spans], np.int32)
    for s in range(n_spans):
        g = group[s]
        for v in range(starts[s], starts[s + 1]):
            perm[v] = offset[g] + (v - starts[s])
        offset[g] += starts[s + 1] - starts[s]
    return perm


@njit(cache=True, nogil=True)
def _order(obj_size, i2p, addr_dst, addr_src, copy_dst, copy_src, gep_dst, gep_src, load_dst,
           load_src, store_dst, store_src):
    """(perm, hub spans, address-taken spans): the whole order in one compiled call, so that
    a thread computing it holds the GIL only to enter and leave."""
    n = obj_size.size
    sid, starts = _spans(obj_size)
    n_spans = starts.size - 1
    span_el = np.full(n_spans, -1, np.int32)
    for i in range(addr_src.size):
        span_el[sid[addr_src[i]]] = 0
    if i2p >= 0:
        span_el[sid[i2p]] = 0
    n_addr = 0
    for s in range(n_spans):
        if span_el[s] == 0:
            span_el[s] = n_addr
            n_addr += 1
    used = _used(n, addr_dst, copy_dst, copy_src, gep_dst, gep_src, load_dst, load_src,
                 store_dst, store_src)
    parent, var_pt = _unify(sid, starts, span_el, n_addr, used, addr_dst, addr_src, copy_dst,
                            copy_src, gep_dst, gep_src, load_dst, load_src, store_dst, store_src)
    hub = _hub_spans(sid, starts, span_el, used, parent, var_pt, addr_dst, addr_src, copy_dst,
                     copy_src, gep_dst, gep_src, load_dst, load_src, store_dst, store_src)
    # groups: hub spans by distance (1 .. far), then the other address-taken spans, the rest
    far = max(1, hub.max())
    group = np.empty(n_spans, np.int32)
    n_hub = 0
    for s in range(n_spans):
        if hub[s] > 0:
            group[s] = hub[s] - 1
            n_hub += 1
        else:
            group[s] = far if span_el[s] >= 0 else far + 1
    return _perm(starts, group, far + 2), n_hub, n_addr


def pointee_order(cs: ConstraintSet) -> PointeeOrder:
    """The renumbering of ``cs`` described in the module docstring (hub spans first)."""
    t0 = time.perf_counter()
    if cs.n_nodes == 0:
        return PointeeOrder(np.zeros(0, np.int32), 0, 0, 0.0)
    # walks and call geps are geps to the order (x = y + o, offsets ignored): without the call
    # geps, what flows through the functions' cells (parameters, returns) would reach no class
    gep_dst = np.concatenate([cs.gep_dst, cs.walk_dst, cs.call_dst]).astype(np.int32, copy=False)
    gep_src = np.concatenate([cs.gep_src, cs.walk_src, cs.call_src]).astype(np.int32, copy=False)
    for col in (gep_dst, gep_src):
        col.setflags(write=False)   # as the set's own columns: one compiled signature
    perm, n_hub, n_addr = _order(np.ascontiguousarray(cs.obj_size, np.int32), cs.int_to_pointer,
                                 cs.addr_dst, cs.addr_src, cs.copy_dst, cs.copy_src, gep_dst,
                                 gep_src, cs.load_dst, cs.load_src, cs.store_dst, cs.store_src)
    return PointeeOrder(perm, int(n_hub), int(n_addr), (time.perf_counter() - t0) * 1e3)


#: The constraint columns that hold node ids (offsets and sizes stay as they are).
_ID_COLUMNS = ("addr_dst", "addr_src", "copy_dst", "copy_src", "load_dst", "load_src", "store_dst",
               "store_src", "gep_dst", "gep_src", "hcd_ptr", "hcd_target", "walk_dst", "walk_src",
               "call_dst", "call_src")


def renumber(cs: ConstraintSet, perm: np.ndarray) -> ConstraintSet:
    """``cs`` with node ``v`` renamed ``perm[v]`` (a permutation that keeps every span consecutive and
    in order, as :func:`pointee_order`'s does): its least solution, read through :func:`original_ids`,
    is that of ``cs``. Names and locations are not carried (the solvers do not read them)."""
    n = cs.n_nodes
    per_node = {}
    for name in ("obj_size", "kind"):
        col = getattr(cs, name)
        out = np.empty_like(col)
        out[perm] = col
        per_node[name] = out
    rep = np.empty(n, np.int32)
    rep[perm] = perm[cs.rep]
    return ConstraintSet(n, gep_offset=cs.gep_offset, walk_offset=cs.walk_offset, call_offset=cs.call_offset,
                         call_geps=cs.call_geps, offline_rep=rep,
                         int_to_pointer=int(perm[cs.int_to_pointer]) if cs.int_to_pointer >= 0 else -1,
                         field_insensitive=np.sort(perm[cs.field_insensitive]), collapse_cycles=cs.collapse_cycles,
                         **per_node, **{c: perm[getattr(cs, c)] for c in _ID_COLUMNS})


def original_ids(node_set: np.ndarray, indptr: np.ndarray, indices: np.ndarray,
                 perm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A solution of ``renumber(cs, perm)`` in the ids of ``cs``: ``(node_set, indices)`` with node
    ``v``'s set that of ``perm[v]`` and every member mapped back, each set sorted again (the
    renumbering moves whole spans, so a set's order changes); ``indptr`` is unchanged."""
    inverse = np.empty_like(perm)
    inverse[perm] = np.arange(perm.size, dtype=perm.dtype)
    rows = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
    keys = (rows << 32) | inverse[indices].astype(np.int64)
    keys.sort()
    return node_set[perm], (keys & 0xFFFFFFFF).astype(np.int32)
