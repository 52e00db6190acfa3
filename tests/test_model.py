"""``ConstraintSet``: construction, validation errors naming the entry, equality, summary."""

from __future__ import annotations

import numpy as np
import pytest

from constraints.errors import InputError
from constraints.model import EDGE_KINDS, ConstraintSet, NodeKind


def _small(**extra) -> ConstraintSet:
    return ConstraintSet.from_lists(6, obj_size={3: 2, 5: 1}, addr=[(0, 3), (1, 5)], copy=[(2, 0)],
                                    load=[(2, 1)], store=[(0, 1)], gep=[(4, 0, 1)], **extra)


def test_from_lists_builds_int32_columns() -> None:
    cs = _small()
    assert cs.n_nodes == 6 and cs.n_constraints == 6
    for kind_name in EDGE_KINDS:
        for col in cs.columns(kind_name):
            assert col.dtype == np.int32 and not col.flags.writeable
    assert cs.gep_offset.tolist() == [1]
    assert cs.kind.tolist() == [0, 0, 0, NodeKind.OBJECT, 0, NodeKind.OBJECT]
    assert cs.object_ids.tolist() == [3, 5]
    assert cs.rep.tolist() == list(range(6))


@pytest.mark.parametrize("build, message", [
    (lambda: ConstraintSet.from_lists(3, addr=[(0, 3)]), "addr constraint 0: node id 3 (addr_src) outside [0, 3)"),
    (lambda: ConstraintSet.from_lists(3, copy=[(0, 1), (-1, 0)]), "copy constraint 1: node id -1 (copy_dst)"),
    (lambda: ConstraintSet.from_lists(3, gep=[(0, 1, -1)]), "gep constraint 0: offset -1 outside [0, 3)"),
    (lambda: ConstraintSet.from_lists(3, gep=[(0, 1, 3)]), "gep constraint 0: offset 3 outside [0, 3)"),
    (lambda: ConstraintSet.from_lists(3, obj_size=[0, -1, 0]), "node 1: negative object size -1"),
    (lambda: ConstraintSet.from_lists(3, obj_size={1: 3}), "node 1: object size 3 runs past the last node 2"),
    (lambda: ConstraintSet.from_lists(3, kind=[0, 9, 0]), "node 1: unknown node kind 9"),
    (lambda: ConstraintSet.from_lists(3, int_to_pointer=3), "int_to_pointer node 3 outside [-1, 3)"),
    (lambda: ConstraintSet.from_lists(3, offline_rep=[1, 2, 2]), "node 0: offline representative 1 is itself merged"),
    (lambda: ConstraintSet.from_lists(3, offline_rep=[0, 1]), "offline_rep has 2 entries, expected 3"),
    (lambda: ConstraintSet.from_lists(3, hcd_ptr=[0], hcd_target=[]), "hcd_ptr and hcd_target differ"),
    (lambda: ConstraintSet.from_lists(3, hcd_ptr=[5], hcd_target=[0]), "HCD entry 0: node id 5"),
    (lambda: ConstraintSet.from_lists(3, names=["a", "b"]), "names has 2 entries, expected 3"),
    (lambda: ConstraintSet.from_lists(3, walk_dst=[0], walk_src=[1], walk_offset=[0]),
     "walk constraint 0: offset 0 outside [1, 3)"),
    (lambda: ConstraintSet.from_lists(3, walk_dst=[0], walk_src=[3], walk_offset=[1]),
     "walk constraint 0: node id 3 (walk_src) outside [0, 3)"),
    (lambda: ConstraintSet.from_lists(3, walk_dst=[0], walk_src=[], walk_offset=[1]), "differ in length"),
    (lambda: ConstraintSet.from_lists(3, obj_size={7: 1}), "obj_size names node 7"),
    (lambda: _small().replace(copy_dst=np.array([0.5])), "copy_dst must hold integers"),
])
def test_validation_names_the_entry(build, message: str) -> None:
    with pytest.raises(InputError) as info:
        build()
    assert message in str(info.value)


def test_equality_covers_every_field() -> None:
    cs = _small(names=["p", "q", "r", "o", "o.f", "t"])
    assert cs == _small(names=["p", "q", "r", "o", "o.f", "t"])
    assert cs != _small()
    assert cs != cs.replace(addr_dst=[0, 2])
    assert cs != cs.replace(gep_offset=[0])
    assert cs != cs.replace(int_to_pointer=5)
    assert cs != cs.replace(hcd_ptr=[0], hcd_target=[1])
    assert cs != cs.replace(walk_dst=[0], walk_src=[0], walk_offset=[1])
    assert cs != cs.replace(locations=[""] * 6)
    # no merges and identity merges are the same set
    assert cs == cs.replace(offline_rep=np.arange(6))
    assert cs != cs.replace(offline_rep=[0, 0, 2, 3, 4, 5])


def test_walk_size_counts_plus_one_steps() -> None:
    # o at 0: sizes 6, 1, 3, 2, 1, 1 (slot 2 starts a nested struct of three); p at 6 of sizes 4, 3, 2, 1;
    # a value (size 0) has bound 0. reach: 0 -> 1 stops (size 1): 1; 2 -> 3 -> 4: 2; 6 -> 7 -> 8 -> 9: 3
    sizes = [6, 1, 3, 2, 1, 1, 4, 3, 2, 1, 0]
    cs = ConstraintSet.from_lists(11, obj_size=sizes)
    assert cs.walk_size().tolist() == [2, 1, 3, 2, 1, 1, 4, 3, 2, 1, 0]
    assert ConstraintSet.from_lists(0).walk_size().tolist() == []


def test_replace_validates_again() -> None:
    with pytest.raises(InputError, match="outside"):
        _small().replace(copy_dst=[6])


def test_summary_counts() -> None:
    cs = _small(int_to_pointer=5, offline_rep=[0, 0, 2, 3, 4, 5], names=["p", "q", "r", "o", "o.f", "t"])
    text = cs.summary()
    assert "nodes: 6 (value 4, object 2, field 0, function 0)" in text
    assert "objects: 2 (largest: 2 fields)" in text
    assert "constraints: addr 2, copy 1, load 1, store 1, gep 1 (total 6)" in text
    assert "offline merges: 1; HCD table entries: 0" in text
    assert "int-to-pointer object: t" in text


def test_node_lookup_by_name_and_id() -> None:
    cs = _small(names=["p", "q", "r", "o", "o.f", "t"])
    assert cs.node_id("o.f") == 4 and cs.node_id("#2") == 2 and cs.node_id(5) == 5
    assert cs.node_label(3) == "o" and _small().node_label(3) == "#3"
    with pytest.raises(KeyError):
        cs.node_id("nope")
    with pytest.raises(KeyError):
        cs.node_id(6)


def test_empty_set_is_valid() -> None:
    cs = ConstraintSet.from_lists(0)
    assert cs.n_nodes == 0 and cs.n_constraints == 0 and "nodes: 0" in cs.summary()


def test_pickles_of_an_older_version_load() -> None:
    # cached extractions (tests/test_llvm_aliases.py --write-extracts) made before the walk columns
    # existed: unpickled, the set has the defaults and solves like the original
    import pickle

    cs = _small()
    assert pickle.loads(pickle.dumps(cs)) == cs
    state = {k: v for k, v in pickle.loads(pickle.dumps(cs)).__dict__.items() if not k.startswith("walk_")}
    old = object.__new__(ConstraintSet)
    old.__setstate__(state)
    assert old == cs and old.walk_dst.size == 0


def test_call_geps_are_validated_and_close_functions_to_geps():
    kind = [0, 3, 2, 2, 1, 2]   # f = 1 (slots 2, 3), o = 4 (slot 5)
    ok = ConstraintSet.from_lists(6, obj_size=[0, 3, 1, 1, 2, 1], kind=kind, call_dst=[0], call_src=[0],
                                  call_offset=[2], call_geps=True)
    assert ok.gep_bound().tolist() == [0, 1, 1, 1, 2, 1] and ok.call_bound().tolist() == [0, 3, 0, 0, 0, 0]
    assert ok.walk_size().tolist()[1] == 1 and ok.n_constraints == 1
    assert ok.replace(call_geps=False).gep_bound().tolist() == [0, 3, 1, 1, 2, 1]
    for bad, message in ((dict(call_dst=[6]), "call gep 0: node id 6"), (dict(call_offset=[6]), "offset 6"),
                         (dict(call_src=[0, 1]), "differ in length")):
        with pytest.raises(InputError, match=message):
            ok.replace(**bad)
