"""Every inference rule on hand-made sets, with the expected points-to sets written out.

One table (:data:`CASES`), checked against every backend of
``andersen_gpu.BACKENDS``; a backend whose module does not exist yet, or that
cannot run here, is skipped.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field

import pytest

import andersen_gpu
from constraints.model import ConstraintSet


@dataclass(frozen=True)
class Case:
    """A constraint set and its least solution.

    ``expected`` lists every node with a non-empty set; all other nodes must
    have the empty set.
    """

    id: str
    n: int
    expected: dict[int, set[int]]
    sizes: dict[int, int] = field(default_factory=dict)
    addr: tuple = ()
    copy: tuple = ()
    load: tuple = ()
    store: tuple = ()
    gep: tuple = ()
    extra: dict = field(default_factory=dict)

    def constraint_set(self) -> ConstraintSet:
        return ConstraintSet.from_lists(self.n, obj_size=self.sizes, addr=self.addr, copy=self.copy,
                                        load=self.load, store=self.store, gep=self.gep, **self.extra)


# Notation in the comments: p = &o (addr), q = p (copy), x = *p (load),
# *p = q (store), q = p + k (gep).
CASES = [
    Case("empty-set-no-constraints", 3, {}, sizes={2: 1}),
    Case("addr", 3, {0: {2}}, sizes={2: 1}, addr=[(0, 2)]),
    Case("addr-two-targets", 4, {0: {2, 3}}, sizes={2: 1, 3: 1}, addr=[(0, 2), (0, 3)]),
    Case("copy-chain", 4, {0: {3}, 1: {3}, 2: {3}}, sizes={3: 1},
         addr=[(0, 3)], copy=[(1, 0), (2, 1)]),
    Case("copy-does-not-flow-backwards", 4, {0: {3}, 1: {2, 3}}, sizes={2: 1, 3: 1},
         addr=[(0, 3), (1, 2)], copy=[(1, 0)]),
    # 0 -> 1 -> 2 -> 0 with different addresses entering at two points
    Case("copy-cycle", 5, {0: {3, 4}, 1: {3, 4}, 2: {3, 4}}, sizes={3: 1, 4: 1},
         addr=[(0, 3), (1, 4)], copy=[(1, 0), (2, 1), (0, 2)]),
    Case("copy-self-loop", 3, {0: {2}}, sizes={2: 1}, addr=[(0, 2)], copy=[(0, 0)]),
    # p = &o; o = &t (o holds &t); x = *p
    Case("load", 4, {0: {2}, 2: {3}, 1: {3}}, sizes={2: 1, 3: 1}, addr=[(0, 2), (2, 3)], load=[(1, 0)]),
    Case("load-through-empty-pointer", 3, {}, sizes={2: 1}, load=[(1, 0)]),
    # p = &o; q = &t; *p = q
    Case("store", 4, {0: {2}, 1: {3}, 2: {3}}, sizes={2: 1, 3: 1}, addr=[(0, 2), (1, 3)], store=[(0, 1)]),
    Case("store-through-empty-pointer", 4, {1: {3}}, sizes={2: 1, 3: 1}, addr=[(1, 3)], store=[(0, 1)]),
    # p = &o; r = p; *p = q; x = *r  (store and load through aliases meet in o)
    Case("store-then-load-via-alias", 6, {0: {2}, 1: {5}, 2: {5}, 3: {2}, 4: {5}}, sizes={2: 1, 5: 1},
         addr=[(0, 2), (1, 5)], copy=[(3, 0)], store=[(0, 1)], load=[(4, 3)]),
    # p = &o; *p = p; x = *p: o points to itself
    Case("store-self-loop", 3, {0: {2}, 1: {2}, 2: {2}}, sizes={2: 1},
         addr=[(0, 2)], store=[(0, 0)], load=[(1, 0)]),
    # o has 3 fields (ids 2, 3, 4): q = p + 2 reaches the last field
    Case("gep-in-range", 5, {0: {2}, 1: {4}}, sizes={2: 3}, addr=[(0, 2)], gep=[(1, 0, 2)]),
    Case("gep-offset-zero", 4, {0: {2}, 1: {2}}, sizes={2: 2}, addr=[(0, 2)], gep=[(1, 0, 0)]),
    Case("gep-at-size", 4, {0: {2}}, sizes={2: 2}, addr=[(0, 2)], gep=[(1, 0, 2)]),
    Case("gep-past-size", 5, {0: {2}}, sizes={2: 2}, addr=[(0, 2)], gep=[(1, 0, 3)]),
    Case("gep-on-non-object", 3, {0: {2}}, addr=[(0, 2)], gep=[(1, 0, 0)]),
    # p -> {o1 (size 1), o2 (size 3)}; q = p + 1 -> only o2's field 1
    Case("gep-mixed-sizes", 6, {0: {2, 3}, 1: {4}}, sizes={2: 1, 3: 3}, addr=[(0, 2), (0, 3)],
         gep=[(1, 0, 1)]),
    # struct s {f0, f1} at 2: p = &s; q = p + 1; *q = r (r = &t); x = *p; y = *q
    Case("gep-field-sensitive-store-load", 8, {0: {2}, 1: {3}, 4: {5}, 3: {5}, 7: {5}},
         sizes={2: 2, 5: 1}, addr=[(0, 2), (4, 5)], gep=[(1, 0, 1)], store=[(1, 4)],
         load=[(6, 0), (7, 1)]),
    # a gep result copied on and dereferenced in a cycle
    Case("gep-into-copy-cycle", 6, {0: {2}, 1: {3}, 5: {3}}, sizes={2: 2},
         addr=[(0, 2)], gep=[(1, 0, 1)], copy=[(5, 1), (1, 5)]),
    # int-to-pointer object 2: x = *p and *p = q through it do nothing
    Case("int-to-pointer-load", 4, {0: {2}, 2: {3}}, sizes={2: 1, 3: 1}, addr=[(0, 2), (2, 3)],
         load=[(1, 0)], extra={"int_to_pointer": 2}),
    Case("int-to-pointer-store", 4, {0: {2}, 1: {3}}, sizes={2: 1, 3: 1}, addr=[(0, 2), (1, 3)],
         store=[(0, 1)], extra={"int_to_pointer": 2}),
    Case("int-to-pointer-copied-and-gep", 4, {0: {2}, 1: {2}, 3: {2}}, sizes={2: 1},
         addr=[(0, 2)], copy=[(1, 0)], gep=[(3, 0, 0)], extra={"int_to_pointer": 2}),
    # only the int-to-pointer target is skipped: p -> {i2p, o}; *p = q reaches o alone
    Case("int-to-pointer-mixed-store", 5, {0: {2, 3}, 1: {4}, 3: {4}}, sizes={2: 1, 3: 1, 4: 1},
         addr=[(0, 2), (0, 3), (1, 4)], store=[(0, 1)], extra={"int_to_pointer": 2}),
    # node 1 merged into 0 offline: constraints on 1 act on 0; 1 reads 0's set
    Case("offline-merge-pointer", 4, {0: {3}, 1: {3}, 2: {3}}, sizes={3: 1},
         addr=[(1, 3)], copy=[(2, 1)], extra={"offline_rep": [0, 0, 2, 3]}),
    # object 3 merged into object 2: p = &3 keeps pointee id 3, *p = q fills 2's (shared) set
    Case("offline-merge-pointee", 5, {0: {3}, 1: {4}, 2: {4}, 3: {4}}, sizes={2: 1, 3: 1, 4: 1},
         addr=[(0, 3), (1, 4)], store=[(0, 1)], extra={"offline_rep": [0, 1, 2, 2, 4]}),
    # p = &o; *p = x; x = *p (o and x in one copy cycle via memory); HCD says so
    Case("hcd-table-hint", 4, {0: {2}, 1: {3}, 2: {3}}, sizes={2: 1, 3: 1},
         addr=[(0, 2), (1, 3)], store=[(0, 1)], load=[(1, 0)],
         extra={"hcd_ptr": [0], "hcd_target": [1]}),
    # walk geps (x = p +w d: d steps of +1, each from a slot of two or more): o at 2 has slots 2-5,
    # slot 3 of size 1 ends every walk from 2 after one step, although 2 + 2 (= 4) is a field of o
    Case("walk-stops-at-a-one-slot-field", 6, {0: {2}, 1: {3}}, sizes={2: 4, 3: 1, 4: 2, 5: 1},
         addr=[(0, 2)], extra={"walk_dst": [1, 1], "walk_src": [0, 0], "walk_offset": [1, 2]}),
    # slots of sizes 4, 3, 2, 1: walks of 2 and 3 from 2 reach 4 and 5; a walk from a field (3) too
    Case("walk-through-nested-slots", 7, {0: {2, 3}, 1: {4, 5}, 6: {5}}, sizes={2: 4, 3: 3, 4: 2, 5: 1},
         addr=[(0, 2), (0, 3)], extra={"walk_dst": [1, 1, 6], "walk_src": [0, 0, 0], "walk_offset": [2, 3, 3]}),
    # p = &a; p = &b; q = p + 1; p = q (the loop of `for (; *p; p++)`, which preprocessing gives
    # walks): a (2-3) has two slots, b (4-7) four nested ones; p gets every slot a +1 chain reaches
    Case("gep-cycle-through-a-copy", 8, {0: {2, 3, 4, 5, 6, 7}, 1: {3, 5, 6, 7}},
         sizes={2: 2, 3: 1, 4: 4, 5: 3, 6: 2, 7: 1}, addr=[(0, 2), (0, 4)], gep=[(1, 0, 1)], copy=[(0, 1)]),
    # p = p + 1 on b (4-7) whose slot 5 has size 1: the chain stops there, slots 6 and 7 stay out
    Case("gep-self-cycle-stops-at-a-one-slot-field", 8, {0: {4, 5}, 1: {6}},
         sizes={4: 4, 5: 1, 6: 2, 7: 1}, addr=[(0, 4)], gep=[(0, 0, 1), (1, 0, 2)]),
    # field-insensitive h (2): p = &h; p = &a (a: 3-4); q = p + 1 gets h and a's field 4; r = p + 3
    # gets h alone (past a); *q = &t writes h and a's field 4, and x = *p reads it back through h
    Case("field-insensitive-gep-keeps-the-object", 9,
         {0: {2, 3}, 1: {2, 4}, 5: {2}, 2: {6}, 4: {6}, 7: {6}, 8: {6}},
         sizes={2: 1, 3: 2, 4: 1, 6: 1}, addr=[(0, 2), (0, 3), (8, 6)], gep=[(1, 0, 1), (5, 0, 3)],
         store=[(1, 8)], load=[(7, 0)], extra={"field_insensitive": [2]}),
    # p = &h, p = &a (a: 2-5 a chain of +1 slots), h (6) field-insensitive: q = p +w 2 gets a + 2
    # and h; p = p + 1 (a gep cycle: preprocessing gives walks) gets every slot of a and h
    Case("field-insensitive-walks-and-gep-cycles", 8, {0: {2, 6}, 1: {4, 6}, 7: {2, 3, 4, 5, 6}},
         sizes={2: 4, 3: 3, 4: 2, 5: 1, 6: 1}, addr=[(0, 2), (0, 6), (7, 2), (7, 6)], gep=[(7, 7, 1)],
         extra={"walk_dst": [1], "walk_src": [0], "walk_offset": [2], "field_insensitive": [6]}),
    # collapse_cycles: t = p; t = t + 1 (a positive-weight cycle) reaches o (2-4), which becomes one
    # field-insensitive node: t holds o alone, *t = r writes o, and o's slots 3, 4 share its set
    Case("collapse-cycles-reached-object", 8, {0: {2}, 1: {2}, 2: {6}, 3: {6}, 4: {6}, 7: {6}},
         sizes={2: 3, 3: 2, 4: 1, 5: 2, 6: 1}, addr=[(0, 2), (7, 6)], copy=[(1, 0)], gep=[(1, 1, 1)],
         store=[(1, 7)], extra={"collapse_cycles": True}),
    # collapse_cycles with a cycle that reaches no object: o (2-4) keeps its slots
    Case("collapse-cycles-unreached-object-keeps-fields", 7, {0: {2}, 1: {3}, 6: {4}},
         sizes={2: 3, 3: 2, 4: 1}, addr=[(0, 2), (6, 4)], gep=[(1, 0, 1), (5, 5, 1)],
         extra={"collapse_cycles": True}),
    # a pointer to slot 3 of o on the cycle: o is collapsed, so &slot is &o and o + 2 is o
    Case("collapse-cycles-slot-address-is-the-object", 7, {0: {2}, 1: {2}, 5: {2}, 6: {2}},
         sizes={2: 3, 3: 2, 4: 1}, addr=[(0, 3), (5, 2)], copy=[(1, 0)], gep=[(1, 1, 1), (6, 5, 2)],
         extra={"collapse_cycles": True}),
    # a function (2: f, 3: f#ret, 4: f#arg0) on the cycle keeps its slots (they are call cells)
    Case("collapse-cycles-keeps-function-slots", 5, {0: {2}, 1: {2, 3}},
         sizes={2: 3, 3: 1, 4: 1}, addr=[(0, 2)], copy=[(1, 0)], gep=[(1, 1, 1)],
         extra={"collapse_cycles": True, "kind": [0, 0, 3, 2, 2]}),
    # call geps (f: 2, f#ret 3, f#arg0 4; o: 5, 6): x = p +c 1 reaches f#ret only (o is no function),
    # y = p + 1 reaches o's slot only (call_geps closes f to plain geps), z = p +c 2 reaches f#arg0
    Case("call-geps-enter-functions-only", 10, {0: {2, 5}, 7: {3}, 8: {6}, 9: {4}},
         sizes={2: 3, 3: 1, 4: 1, 5: 2, 6: 1}, addr=[(0, 2), (0, 5)], gep=[(8, 0, 1)],
         extra={"kind": [0, 0, 3, 2, 2, 1, 2, 0, 0, 0], "call_dst": [7, 9], "call_src": [0, 0],
                "call_offset": [1, 2], "call_geps": True}),
    # without call_geps a plain gep enters a function too (the paper's encoding of calls) and keeps a
    # field-insensitive object (6), which a call gep does not
    Case("call-geps-open-functions", 8, {0: {2, 6}, 1: {3, 6}, 7: {3}},
         sizes={2: 3, 3: 1, 4: 1, 6: 1}, addr=[(0, 2), (0, 6)], gep=[(1, 0, 1)],
         extra={"kind": [0, 0, 3, 2, 2, 0, 1, 0], "call_dst": [7], "call_src": [0], "call_offset": [1],
                "field_insensitive": [6]}),
    # a copy cycle, a gep on a field of size 0 (nothing), a store/load through a
    # field, and a load through {o, int-to-pointer} that only reads o
    Case("ten-node-mix", 10, {0: {4, 9}, 1: {4, 9}, 2: {5}, 3: {9}, 5: {9}, 6: {9}, 9: {4}},
         sizes={4: 2, 9: 1},
         addr=[(0, 4), (1, 9), (3, 9), (9, 4)], copy=[(1, 0), (0, 1), (8, 8)], gep=[(2, 1, 1), (7, 2, 0)],
         store=[(2, 3)], load=[(6, 2), (8, 1)], extra={"int_to_pointer": 9}),
]


def _backend_or_skip(name: str):
    if importlib.util.find_spec(f"andersen_gpu.backends.{name}") is None:
        pytest.skip(f"backend {name} not written yet")


BACKENDS = [pytest.param(b, marks=pytest.mark.gpu) if b == "gpu" else b for b in andersen_gpu.BACKENDS]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule(case: Case, backend: str) -> None:
    _backend_or_skip(backend)
    cs = case.constraint_set()
    try:
        sol = andersen_gpu.solve(cs, backend=backend)
    except andersen_gpu.BackendUnavailable as exc:
        pytest.skip(str(exc))
    got = {v: set(sol.points_to(v).tolist()) for v in range(cs.n_nodes) if sol.points_to(v).size}
    assert got == case.expected


def test_case_ids_are_unique() -> None:
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_sizes_are_small(case: Case) -> None:
    """The table is of hand-checkable sets: 3 to 10 nodes."""
    assert 3 <= case.n <= 10
