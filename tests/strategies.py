"""Hypothesis strategies for random constraint sets.

Shared by every test that checks backends against each other or formats for
round trips. The sets deliberately include cycles, self-loops, offsets at and
past object sizes, empty sets, the int-to-pointer object and offline merges.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from constraints.model import ConstraintSet, NodeKind


def long_walk_set() -> tuple[ConstraintSet, dict[int, list[int]]]:
    """A hand-made set of long walks, with its expected sets: an object at 0 whose 101 slots are a
    chain of size-2 slots (reach(0) = 100), p = &0 (node 101), walks of 64, 65, 100 and 101 from p
    into 102-105, and q = &0 (106) with q = q + 1, which the collapse gives walks of 1 to 64."""
    n = 107
    sizes = np.zeros(n, np.int64)
    sizes[:100] = 2
    sizes[100] = 1
    kind = np.full(n, NodeKind.VALUE, np.int8)
    kind[0] = NodeKind.OBJECT
    kind[1:101] = NodeKind.FIELD
    cs = ConstraintSet.from_lists(n, obj_size=sizes, kind=kind, addr=[(101, 0), (106, 0)], gep=[(106, 106, 1)],
                                  walk_dst=[102, 103, 104, 105], walk_src=[101] * 4, walk_offset=[64, 65, 100, 101])
    expected = {101: [0], 102: [64], 103: [65], 104: [100], 105: [], 106: list(range(101))}
    return cs, expected


@st.composite
def constraint_sets(draw, max_nodes: int = 24, max_constraints: int = 40,
                    with_i2p: bool | None = None, with_merges: bool | None = None,
                    with_names: bool = False, gep_cycles: bool | None = None,
                    with_walks: bool = False, long_runs: bool = False,
                    with_fi: bool | None = None, with_calls: bool | None = None) -> ConstraintSet:
    """A valid random :class:`ConstraintSet`.

    Objects are laid out first with random sizes (fields follow their object),
    the rest are values. Gep offsets range up to one past the largest object,
    so some apply and some do not. ``gep_cycles`` (None: drawn) adds ``+1``
    gep cycles, ``p = p + 1`` or ``x = p + 1; p = x``, which preprocessing
    gives walk geps; ``with_walks`` adds walk geps of its own (any pointer,
    any offset: not implied, so a backend must apply the rule itself; no file
    format but npz holds them). ``long_runs`` lays out one more object after the
    others as a run of slots of size 2 (each slot starts a two-slot object over
    the next), so that +1 chains and walks go as far as the node count allows
    (walks of 64 or more cross the words of the cpu backend's masks).
    ``with_fi`` (None: drawn) marks some objects of one slot field-insensitive
    (every gep and walk from them yields them; see :mod:`constraints.model`).
    ``with_calls`` (None: drawn) makes some objects functions and adds call geps, with
    ``call_geps`` (functions closed to plain geps) drawn.
    """
    n = draw(st.integers(1, max_nodes))
    sizes = np.zeros(n, np.int64)
    kind = np.full(n, NodeKind.VALUE, np.int8)
    n_obj_region = draw(st.integers(0, n // 4 if long_runs else n))   # long_runs: room for the run
    i = 0
    while i < n_obj_region:
        size = draw(st.integers(1, max(1, min(4, n - i))))
        sizes[i] = size
        kind[i] = NodeKind.OBJECT
        kind[i + 1:i + size] = NodeKind.FIELD
        # a field may start a nested object of its own
        for f in range(i + 1, i + size):
            if draw(st.booleans()) and draw(st.booleans()):
                sizes[f] = draw(st.integers(1, i + size - f))
        i += size
    if long_runs and n - i >= 3:
        k = draw(st.integers(2, n - i - 1))        # slots i .. i+k-1 of size 2, then one of size 1
        sizes[i:i + k] = 2
        sizes[i + k] = 1
        kind[i] = NodeKind.OBJECT
        kind[i + 1:i + k + 1] = NodeKind.FIELD
        n_obj_region = i + k + 1
    max_off = int(sizes.max()) + 1 if n else 1
    node = st.integers(0, n - 1)
    m = draw(st.integers(0, max_constraints))
    kinds = draw(st.lists(st.sampled_from(["addr", "copy", "load", "store", "gep"]), min_size=m, max_size=m))
    cols: dict[str, list] = {k: [] for k in ["addr", "copy", "load", "store", "gep"]}
    for k in kinds:
        if k == "addr":
            # point mostly at objects so that loads/stores/geps have work to do
            target = draw(st.integers(0, max(0, n_obj_region - 1))) if n_obj_region and draw(st.booleans()) else draw(node)
            cols[k].append((draw(node), target))
        elif k == "gep":
            cols[k].append((draw(node), draw(node), draw(st.integers(0, min(max_off, n - 1)))))
        else:
            cols[k].append((draw(node), draw(node)))
    if (draw(st.booleans()) if gep_cycles is None else gep_cycles) and n > 1:
        for _ in range(draw(st.integers(1, 3))):
            p = draw(node)
            if draw(st.booleans()):
                cols["gep"].append((p, p, 1))
            else:
                x = draw(node)
                cols["gep"].append((x, p, 1))
                cols["copy"].append((p, x))
    extra = {}
    if draw(st.booleans()) if with_fi is None else with_fi:
        ones = [z for z in range(n_obj_region) if sizes[z] == 1 and kind[z] == NodeKind.OBJECT]
        if ones:
            extra["field_insensitive"] = sorted(draw(st.sets(st.sampled_from(ones), min_size=1)))
    if with_walks and n > 1:
        # offsets mostly short, some up to the node count (past every chain: they add nothing)
        offset = st.one_of(st.integers(1, min(4, n - 1)), st.integers(1, n - 1))
        walks = draw(st.lists(st.tuples(node, node, offset), min_size=1, max_size=6))
        extra["walk_dst"], extra["walk_src"], extra["walk_offset"] = (np.array(c, np.int64) for c in zip(*walks))
    if (draw(st.booleans()) if with_calls is None else with_calls) and n > 1:
        starts = [z for z in range(n_obj_region) if kind[z] == NodeKind.OBJECT]
        if starts:
            for z in draw(st.sets(st.sampled_from(starts), min_size=1)):
                kind[z] = NodeKind.FUNCTION
            calls = draw(st.lists(st.tuples(node, node, st.integers(0, min(max_off, n - 1))), min_size=1, max_size=5))
            extra["call_dst"], extra["call_src"], extra["call_offset"] = (np.array(c, np.int64) for c in zip(*calls))
            extra["call_geps"] = draw(st.booleans())
    use_i2p = draw(st.booleans()) if with_i2p is None else with_i2p
    if use_i2p:
        extra["int_to_pointer"] = draw(node)
    use_merges = draw(st.booleans()) if with_merges is None else with_merges
    if use_merges and n > 1:
        rep = np.arange(n)
        for _ in range(draw(st.integers(1, max(1, n // 4)))):
            y, x = draw(node), draw(node)
            if rep[x] == x and y != x and rep[y] == y and not np.any((rep == y) & (np.arange(n) != y)):
                rep[y] = x
        extra["offline_rep"] = rep
    if with_names:
        extra["names"] = [f"v{i}" for i in range(n)]
    return ConstraintSet.from_lists(n, obj_size=sizes, kind=kind, addr=cols["addr"], copy=cols["copy"],
                                    load=cols["load"], store=cols["store"], gep=cols["gep"], **extra)
