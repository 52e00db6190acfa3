"""Offline preprocessing keeps the least solution exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from andersen_gpu.backends import reference
from andersen_gpu.preprocess import collapse, hvn
from andersen_gpu.preprocess.hvn import hvn_labels, pointee_capable
from andersen_gpu.preprocess.rewrite import apply_rep
from constraints.model import ConstraintSet

from strategies import constraint_sets


def _check_same_solution(cs: ConstraintSet, **flags) -> ConstraintSet:
    out, stats = collapse(cs, **flags)
    assert out.n_nodes == cs.n_nodes
    out.validate()              # built without validation: every invariant must hold anyway
    assert not out.copy_dst.flags.writeable and not out.rep.flags.writeable
    rep = out.rep
    assert np.array_equal(rep[rep], rep)
    # the new table refines the old one
    old = cs.rep
    assert np.array_equal(rep[old], rep)
    want, got = reference.solve(cs), reference.solve(out)
    assert want == got, want.diff_report(got, labels=("original", "collapsed"))
    assert stats.nodes_after <= stats.nodes_before
    assert stats.constraints_after["total"] <= stats.constraints_before["total"]
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets())
def test_collapse_keeps_least_solution(cs):
    _check_same_solution(cs)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets())
def test_collapse_keeps_least_solution_thorough(cs):
    _check_same_solution(cs)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80))
def test_scc_only_keeps_least_solution(cs):
    _check_same_solution(cs, hvn=False)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80))
def test_one_hvn_pass_keeps_least_solution(cs):
    _check_same_solution(cs, hvn_passes=1)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets())
def test_single_copy_merges_alone_keep_least_solution(cs):
    # hvn_passes=0 (the GPU's object-level presolve): SCC collapse, then only HVN's first step
    _check_same_solution(cs, hvn_passes=0)


def test_zero_hvn_passes_keep_only_the_single_copy_merges():
    # 1 = 0 and 2 = 1: single copy inputs, merged into 0. 3 = &x and 4 = &x: equal sets HVN merges
    # (one label, A(x)), the contraction does not (4 has no copy input). 5 = 6, 6 = 5: a copy cycle
    # (SCC collapse runs first, no ordering); with no input, HVN proves it empty, the contraction
    # keeps the class and its copy
    x = 7
    cs = ConstraintSet.from_lists(8, obj_size={x: 1}, addr=[(0, x), (3, x), (4, x)],
                                  copy=[(1, 0), (2, 1), (5, 6), (6, 5)])
    out, stats = collapse(cs, hvn_passes=0)
    assert stats.hvn_passes == 0
    rep = out.rep
    assert rep[0] == rep[1] == rep[2] and rep[5] == rep[6]
    assert rep[3] != rep[4] and rep[3] != rep[0]
    assert reference.solve(out) == reference.solve(cs)
    full = collapse(cs)[0].rep
    assert full[3] == full[4] == full[0]


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80))
def test_hvn_to_fixpoint_keeps_least_solution(cs):
    _check_same_solution(cs, max_passes=8, hvn_passes=8, min_gain=0.0)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80))
def test_hu_keeps_least_solution(cs):
    _check_same_solution(cs, hu=True)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80))
def test_hu_with_capped_unions_keeps_least_solution(cs):
    # unions of more than two members stay HVN sets of labels (mixed sets in one table)
    before = hvn.HU_MAX_EXPANSION
    hvn.HU_MAX_EXPANSION = 2
    try:
        _check_same_solution(cs, hu=True, hvn_passes=4)
    finally:
        hvn.HU_MAX_EXPANSION = before


def test_hu_merges_equal_unions_that_hvn_keeps_apart():
    # a = &x; b = &y; c = a; c = b; d = a; d = c: pts(c) == pts(d) == {x, y}. HVN labels c by
    # {A(x), A(y)} and d by {A(x), label(c)}; HU flattens both to {A(x), A(y)}.
    a, b, c, d, x, y = range(6)
    cs = ConstraintSet.from_lists(6, obj_size={x: 1, y: 1}, addr=[(a, x), (b, y)],
                                  copy=[(c, a), (c, b), (d, a), (d, c)])
    assert _check_same_solution(cs).rep[d] != _check_same_solution(cs).rep[c]
    out = _check_same_solution(cs, hu=True)
    assert out.rep[c] == out.rep[d]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(gep_cycles=True))
def test_walk_geps_keep_least_solution(cs):
    # every set has +1 gep cycles: the walks collapse adds must be implied (the reference
    # solves the collapsed set with its own walk rule)
    _check_same_solution(cs)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(with_walks=True))
def test_collapse_of_a_set_with_walks_keeps_least_solution(cs):
    # walks already there: HVN keys them apart from geps and loads, apply_rep maps them
    _check_same_solution(cs)


def test_walk_geps_on_plus_one_cycles_only():
    # o at 6: slots 6-9 of sizes 4, 3, 2, 1 (longest walk 3: walks of 1 and 2).
    # 0 = 0 + 1 (self); 2 = 1 + 1, 1 = 2 (back-copy); 4 = 3 + 1, 5 = 4 (the copy goes elsewhere);
    # 5 = 5 + 2 (offset 2: not a walk of +1 steps)
    cs = ConstraintSet.from_lists(10, obj_size={6: 4, 7: 3, 8: 2, 9: 1},
                                  addr=[(0, 6), (1, 6), (3, 6), (5, 6)],
                                  gep=[(0, 0, 1), (2, 1, 1), (4, 3, 1), (5, 5, 2)], copy=[(1, 2), (5, 4)])
    out, stats = collapse(cs, hvn=False)
    got = sorted(zip(out.walk_dst.tolist(), out.walk_src.tolist(), out.walk_offset.tolist()))
    assert got == [(0, 0, 1), (0, 0, 2), (1, 1, 1), (1, 1, 2)]
    assert (stats.walk_cycles, stats.walks) == (2, 4)
    assert reference.solve(out) == reference.solve(cs)
    assert collapse(cs, hvn=False, walks=False)[0].walk_dst.size == 0
    # collapsed again: the walks are there once
    again = collapse(out, hvn=False)[0]
    assert sorted(zip(again.walk_dst.tolist(), again.walk_src.tolist(), again.walk_offset.tolist())) == got
    # no object with a walk of two steps: nothing to gain, nothing added
    flat = ConstraintSet.from_lists(4, obj_size={2: 2}, addr=[(0, 2)], gep=[(0, 0, 1)])
    assert collapse(flat)[0].walk_dst.size == 0


def test_hvn_keys_walks_apart_from_geps():
    # o at 3: slots of sizes 4, 1, 2, 1. x = p + 2 is {5}; y = p +w 2 is empty (slot 4 ends the walk):
    # keyed alike (the same pointer label and number), they would share a label and a set
    cs = ConstraintSet.from_lists(8, obj_size={3: 4, 4: 1, 5: 2, 6: 1}, addr=[(0, 3)], gep=[(1, 0, 2)],
                                  walk_dst=[7], walk_src=[0], walk_offset=[2])
    labels = hvn_labels(cs)
    assert labels[1] != labels[7]
    out = _check_same_solution(cs)
    sol = reference.solve(out)
    assert sol.points_to(1).tolist() == [5] and sol.points_to(7).size == 0


def test_apply_rep_refuses_a_table_that_is_not_a_fixpoint():
    cs = ConstraintSet.from_lists(3, obj_size={2: 1}, addr=[(0, 2)], copy=[(1, 0)])
    with pytest.raises(ValueError, match="fixpoint"):
        apply_rep(cs, np.array([1, 2, 2], np.int32))
    with pytest.raises(ValueError, match="fixpoint"):
        apply_rep(cs, np.array([0, 3, 2], np.int32))
    out = apply_rep(cs, np.array([0, 0, 2], np.int32))
    out.validate()
    assert out.copy_dst.size == 0 and out.rep.tolist() == [0, 0, 2]
    assert apply_rep(cs, np.arange(3)).offline_rep is None


def test_load_gep_cycles_keyed_by_label():
    # p1 = &o (o size 2); q1 = p1; a = *q1 and b = *p1 read equal sets because q1 and p1 share a label
    # (the original HVN keyed loads by pointer id and needed a second round for this);
    # c = *c + 1 style cycle: x = y + 1, y = *x stays exact.
    cs = ConstraintSet.from_lists(9, obj_size={0: 2}, addr=[(2, 0)], copy=[(3, 2)],
                                  load=[(4, 3), (5, 2), (7, 6)], gep=[(6, 7, 1)], store=[(2, 8)])
    out = _check_same_solution(cs, max_passes=1, hvn_passes=1)
    assert out.rep[4] == out.rep[5]


def test_copy_cycle_is_merged():
    cs = ConstraintSet.from_lists(5, obj_size={4: 1}, addr=[(0, 4)], copy=[(1, 0), (2, 1), (0, 2)])
    out = _check_same_solution(cs, hvn=False)
    assert out.rep[0] == out.rep[1] == out.rep[2]
    assert out.count("copy") == 0


def test_hvn_merges_equal_loads_and_geps_but_not_store_targets():
    # 0 -> obj 5 (size 2); x1 = *0, x2 = *0 (1, 2); g1 = 0+1, g2 = 0+1 (3, 4);
    # *0 = 7 writes obj 5, so 5 must keep its own label even though nothing copies into it.
    cs = ConstraintSet.from_lists(9, obj_size={5: 2, 8: 1}, addr=[(0, 5), (7, 8)],
                                  load=[(1, 0), (2, 0)], gep=[(3, 0, 1), (4, 0, 1)], store=[(0, 7)])
    out = _check_same_solution(cs)
    rep = out.rep
    assert rep[1] == rep[2] and rep[3] == rep[4]
    assert rep[5] == 5 and rep[6] == 6 and rep[1] != rep[3]


def test_pointee_capable_follows_nested_fields():
    # object 0 of size 3 whose field 1 starts an object of size 2: 0,1,2 reachable; 3 is not.
    cs = ConstraintSet.from_lists(5, obj_size=[3, 2, 0, 1, 0], addr=[(4, 0)])
    assert pointee_capable(cs).tolist() == [True, True, True, False, False]


def test_hvn_refuses_cycles():
    # each node of the cycle has a second input, so the single-copy contraction leaves the cycle
    cs = ConstraintSet.from_lists(4, obj_size={2: 1, 3: 1}, addr=[(0, 2), (1, 3)], copy=[(0, 1), (1, 0)])
    with pytest.raises(ValueError, match="acyclic"):
        hvn_labels(cs)


def test_single_copy_input_is_contracted_unless_a_store_may_write_it():
    # 1 = 0 and 2 = 1 are single-copy inputs: merged with 0; 4 = 0 too, but 4 is address-taken
    # (a store through 3 may write it), so it keeps its own set; 5 = 6, 6 = 5 has no input: empty
    cs = ConstraintSet.from_lists(8, obj_size={4: 1, 7: 1}, addr=[(0, 7), (3, 4)],
                                  copy=[(1, 0), (2, 1), (4, 0), (5, 6), (6, 5)], store=[(3, 0)])
    out = _check_same_solution(cs)
    rep = out.rep
    assert rep[0] == rep[1] == rep[2]
    assert rep[4] == 4
    assert rep[5] == rep[6]
    labels = hvn_labels(cs)
    assert labels[5] == labels[6] == 0 and labels[0] > 0


def test_passes_after_the_first_stay_exact_on_load_gep_cycles():
    # 4 = *3 and 3 = 4 + 1 close a cycle: the read through 3 is keyed by 3's id in pass 1 and by its
    # label in later passes, which revisit only the dirty nodes
    cs = ConstraintSet.from_lists(9, obj_size={0: 2, 8: 1}, addr=[(2, 0), (1, 8)],
                                  copy=[(3, 2), (3, 1)], load=[(4, 3), (6, 5)], gep=[(3, 4, 1)],
                                  store=[(2, 1)])
    for passes in (1, 2, 4):
        _check_same_solution(cs, hvn_passes=passes)


def test_paper_input_collapse_keeps_reference_solution(paper_inputs):
    from andersen_gpu.solution import Solution
    from constraints.paper_format import read_paper
    cs = read_paper(paper_inputs / "ex_nodes.txt.gz")
    out, stats = collapse(cs)
    assert stats.nodes_after < stats.nodes_before
    assert Solution.load(paper_inputs / "ex_correct_soln_001.txt.gz") == reference.solve(out)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))))
def test_scc_rep_is_the_least_id_of_each_component(graph):
    """scc_rep against the definition: v and w share a component when each reaches the other (or
    v is w); each node gets the least id of its component."""
    from andersen_gpu.preprocess.scc import scc_rep
    n, edges = graph
    r = np.eye(n, dtype=bool)
    for s, d in edges:
        r[s, d] = True
    for k in range(n):
        r |= r[:, [k]] & r[[k], :]
    want = [min(w for w in range(n) if r[v, w] and r[w, v]) for v in range(n)]
    src = np.array([s for s, _ in edges], np.int64)
    dst = np.array([d for _, d in edges], np.int64)
    assert scc_rep(n, src, dst).tolist() == want


def test_collapse_with_or_without_an_hcd_table_merges_alike():
    """The first round's order (SCC before HVN for a set without an HCD table, HVN first with one)
    changes the time, not the merges: a copy cycle 1 <-> 2 fed by one copy from 0 = &3 ends as one
    class either way (HVN first: its single-copy contraction merges the cycle; SCC first: the SCC
    collapse does, so the counts split differently)."""
    base = dict(obj_size={3: 1}, addr=[(0, 3)], copy=[(1, 0), (2, 1), (1, 2)])
    plain, ps = collapse(ConstraintSet.from_lists(4, **base))
    hcd, hs = collapse(ConstraintSet.from_lists(4, hcd_ptr=[0], hcd_target=[0], **base))
    assert plain.rep.tolist() == hcd.rep.tolist()
    assert plain.rep.tolist() == [0, 0, 0, 3]
    assert (ps.scc_merged, ps.hvn_merged, hs.scc_merged, hs.hvn_merged) == (1, 1, 0, 2)
