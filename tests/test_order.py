"""The pointee order: a permutation that keeps objects whole, hub spans first, same solution."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from andersen_gpu.backends import reference
from andersen_gpu.preprocess import collapse
from andersen_gpu.preprocess.order import original_ids, pointee_order, renumber
from andersen_gpu.solution import Solution
from constraints.model import ConstraintSet

from strategies import constraint_sets

def in_original_ids(sol: Solution, perm: np.ndarray) -> Solution:
    """The solution of ``renumber(cs, perm)`` in the ids of ``cs``."""
    node_set, indices = original_ids(sol.node_set, sol.set_indptr, sol.set_indices, perm)
    return Solution(node_set, sol.set_indptr, indices)


def _spans(sizes: np.ndarray) -> list[tuple[int, int]]:
    out, reach = [], 0
    for i, s in enumerate(sizes):
        if i >= reach:
            out.append([i, i + 1])
        reach = max(reach, i + max(int(s), 1))
        out[-1][1] = reach
    return [tuple(s) for s in out]


def check_order(cs: ConstraintSet) -> np.ndarray:
    order = pointee_order(cs)
    perm = order.perm
    n = cs.n_nodes
    assert perm.dtype == np.int32 and perm.shape == (n,)
    assert np.array_equal(np.sort(perm), np.arange(n))
    addr_taken = set(cs.addr_src.tolist()) | ({cs.int_to_pointer} if cs.int_to_pointer >= 0 else set())
    groups = []
    for a, b in _spans(cs.obj_size):
        # an object and its fields stay consecutive and in order
        assert np.array_equal(perm[a:b], perm[a] + np.arange(b - a))
        groups.append((perm[a], any(v in addr_taken for v in range(a, b))))
    # the address-taken spans (hub spans among them) come before every other span
    groups.sort()
    flags = [taken for _, taken in groups]
    assert flags == sorted(flags, reverse=True)
    assert order.hub_spans <= order.addr_spans == sum(flags)
    return perm


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80))
def test_order_is_a_span_preserving_permutation_with_the_same_solution(cs):
    _check_renumbered(cs)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80))
def test_order_is_a_span_preserving_permutation_with_the_same_solution_thorough(cs):
    _check_renumbered(cs)


def _check_renumbered(cs):
    perm = check_order(cs)
    want = reference.solve(cs)
    got = in_original_ids(reference.solve(renumber(cs, perm)), perm)
    assert got == want, got.diff_report(want, labels=("renumbered", "original"))


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80, with_merges=True))
def test_order_of_a_collapsed_set(cs):
    # the GPU backend orders the collapsed set (merged nodes, deduplicated constraints)
    out, _ = collapse(cs)
    perm = check_order(out)
    assert in_original_ids(reference.solve(renumber(out, perm)), perm) == reference.solve(cs)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=40, max_constraints=80, with_calls=True, with_walks=True))
def test_walks_and_call_geps_order_as_geps(cs):
    # the order reads x = y + o whatever the rule (offsets apart): a set whose walks and call geps
    # are written as plain geps has the same order (a call gep's result, a pointer to a function's
    # parameter or return cell, carries what flows through that cell)
    as_geps = dataclasses.replace(
        cs, gep_dst=np.concatenate([cs.gep_dst, cs.walk_dst, cs.call_dst]),
        gep_src=np.concatenate([cs.gep_src, cs.walk_src, cs.call_src]),
        gep_offset=np.concatenate([cs.gep_offset, cs.walk_offset, cs.call_offset]),
        walk_dst=[], walk_src=[], walk_offset=[], call_dst=[], call_src=[], call_offset=[], call_geps=False)
    assert np.array_equal(pointee_order(cs).perm, pointee_order(as_geps).perm)


def test_hub_spans_come_first():
    # objects C=0, D=1, A=2, B=3..4 (two fields); values 5..
    # p5=&A, p6=&B, p7=&C, p8=&D; g=p5; g=p6; g=p7; *g=p5; *g=p6
    # unification: pts(g) = {A, B, C} (the hub, three spans), pts(p8) = {D}. A and B are
    # stored into the hub's objects (their takers p5, p6 reach its contents); C only
    # pointed to. Order: A, B, then the other address-taken spans C, D, then the values.
    cs = ConstraintSet.from_lists(
        10, obj_size={0: 1, 1: 1, 2: 1, 3: 2},
        addr=[(5, 2), (6, 3), (7, 0), (8, 1)], copy=[(9, 5), (9, 6), (9, 7)],
        store=[(9, 5), (9, 6)])
    order = pointee_order(cs)
    assert order.perm.tolist() == [3, 4, 0, 1, 2, 5, 6, 7, 8, 9]
    assert (order.hub_spans, order.addr_spans) == (2, 4)


def test_no_objects_and_empty_sets():
    assert pointee_order(ConstraintSet.from_lists(0)).perm.size == 0
    cs = ConstraintSet.from_lists(4, copy=[(0, 1), (1, 2)], load=[(3, 0)])
    assert pointee_order(cs).perm.tolist() == [0, 1, 2, 3]
    # the int-to-pointer object counts as address-taken
    cs = ConstraintSet.from_lists(4, obj_size={3: 1}, int_to_pointer=3, copy=[(0, 1)])
    order = pointee_order(cs)
    assert order.perm.tolist() == [1, 2, 3, 0] and order.addr_spans == 1
