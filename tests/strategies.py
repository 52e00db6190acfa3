"""Hypothesis strategies for random constraint sets.

Shared by every test that checks backends against each other or formats for
round trips. The sets deliberately include cycles, self-loops, offsets at and
past object sizes, empty sets, the int-to-pointer object and offline merges.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from constraints.model import ConstraintSet, NodeKind


@st.composite
def constraint_sets(draw, max_nodes: int = 24, max_constraints: int = 40,
                    with_i2p: bool | None = None, with_merges: bool | None = None,
                    with_names: bool = False, gep_cycles: bool | None = None,
                    with_walks: bool = False) -> ConstraintSet:
    """A valid random :class:`ConstraintSet`.

    Objects are laid out first with random sizes (fields follow their object),
    the rest are values. Gep offsets range up to one past the largest object,
    so some apply and some do not. ``gep_cycles`` (None: drawn) adds ``+1``
    gep cycles, ``p = p + 1`` or ``x = p + 1; p = x``, which preprocessing
    gives walk geps; ``with_walks`` adds walk geps of its own (any pointer,
    any offset: not implied, so a backend must apply the rule itself; no file
    format but npz holds them).
    """
    n = draw(st.integers(1, max_nodes))
    sizes = np.zeros(n, np.int64)
    kind = np.full(n, NodeKind.VALUE, np.int8)
    n_obj_region = draw(st.integers(0, n))
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
    if with_walks and n > 1:
        walks = draw(st.lists(st.tuples(node, node, st.integers(1, n - 1)), min_size=1, max_size=6))
        extra["walk_dst"], extra["walk_src"], extra["walk_offset"] = (np.array(c, np.int64) for c in zip(*walks))
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
