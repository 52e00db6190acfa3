"""The cpu backend gives exactly the reference solution."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from andersen_gpu.backends import cpu, reference
from andersen_gpu.solution import Solution
from constraints.model import ConstraintSet

from strategies import constraint_sets


def _assert_same(cs: ConstraintSet, **options) -> Solution:
    want = reference.solve(cs)
    got = cpu.solve(cs, **options)
    assert want == got, want.diff_report(got, labels=("reference", "cpu"))
    if options.get("threads", 1) == 1:
        # every set still in the table is some representative's final set: nothing leaked
        notes = got.stats.notes
        assert notes["set table live sets"] == notes["distinct sets"]
    return got


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets())
def test_matches_reference(cs):
    _assert_same(cs)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=120, max_constraints=160, with_walks=True))
def test_pointee_order_keeps_the_solution(cs):
    # renumbered (spans moved whole, walks and field-insensitive objects mapped) and mapped back:
    # serial and multi-core, whatever the density rule would pick
    _assert_same(cs, order=True)
    _assert_same(cs, order=False)
    _assert_same(cs, order=True, threads=2)


def test_order_by_default_where_pointees_are_sparse():
    from andersen_gpu.backends.cpu import _sparse_pointees

    far = ConstraintSet.from_lists(640, obj_size={64 * k: 1 for k in range(10)},
                                   addr=[(639, 64 * k) for k in range(10)])       # one per word
    near = ConstraintSet.from_lists(640, obj_size={k: 1 for k in range(10)}, addr=[(639, k) for k in range(10)])
    assert _sparse_pointees(far) and not _sparse_pointees(near)
    assert "pointee order ms" in cpu.solve(far).stats.notes
    assert "pointee order ms" not in cpu.solve(near).stats.notes


def test_long_walks_cross_the_mask_words():
    # walks of 64 and more take the cpu core's element-by-element path; a +1 cycle over 101 slots
    from strategies import long_walk_set

    cs, expected = long_walk_set()
    for options in ({}, {"preprocess": False}, {"threads": 2}):
        sol = _assert_same(cs, **options)
        assert {v: sol.points_to(v).tolist() for v in expected} == expected


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=120, max_constraints=120, with_walks=True, long_runs=True))
def test_walk_geps_match_reference(cs):
    # walk geps of any pointer and offset (not implied) over long chains of slots: ids and walks
    # past 64 cross the words of the walk masks; serial and multi-core, with and without the collapse
    _assert_same(cs)
    _assert_same(cs, preprocess=False)
    _assert_same(cs, threads=2)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets())
def test_matches_reference_thorough(cs):
    _assert_same(cs)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=80, max_constraints=160))
def test_matches_reference_larger_without_preprocessing(cs):
    # wider ids cross 64-bit word boundaries of the bit-sets
    _assert_same(cs, preprocess=False)


def _valid_hcd_pairs(cs: ConstraintSet, sol: Solution) -> list[tuple[int, int]]:
    """(p, t) such that every object z in pts(p), z != i2p, has pts(rep z) == pts(t)."""
    rep = cs.rep
    pairs = []
    for p in range(cs.n_nodes):
        pts_p = sol.points_to(p)
        if pts_p.size == 0:
            continue
        for t in range(cs.n_nodes):
            if all(np.array_equal(sol.points_to(int(rep[z])), sol.points_to(t))
                   for z in pts_p if z != cs.int_to_pointer):
                pairs.append((p, t))
    return pairs


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=16), st.data())
def test_online_hcd_merges_keep_the_solution(cs, data):
    _assert_same_with_drawn_hcd(cs, data)


def _assert_same_with_drawn_hcd(cs, data, **options):
    """Draw 1-6 sound HCD pairs for ``cs`` and compare with the reference, with and without preprocessing."""
    pairs = _valid_hcd_pairs(cs, reference.solve(cs))
    if not pairs:
        return
    chosen = data.draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=6))
    with_hcd = cs.replace(hcd_ptr=[p for p, _ in chosen], hcd_target=[t for _, t in chosen])
    for pre in (True, False):
        _assert_same(with_hcd, preprocess=pre, **options)


def test_word_boundaries_and_offsets():
    # object 62 of size 4 spans ids 62..65 (two 64-bit words); offsets at and past the size.
    n = 200
    cs = ConstraintSet.from_lists(n, obj_size={62: 4, 127: 2, 190: 1},
                                  addr=[(0, 62), (0, 127), (1, 190)],
                                  gep=[(2, 0, 1), (3, 0, 3), (4, 0, 4), (5, 3, 0)],
                                  store=[(2, 1)], load=[(6, 2)], copy=[(7, 6), (6, 7)])
    sol = _assert_same(cs)
    assert sol.points_to(2).tolist() == [63, 128]
    assert sol.points_to(3).tolist() == [65]
    assert sol.points_to(4).tolist() == []
    assert sol.points_to(7).tolist() == [190]


def _word_boundary_set() -> ConstraintSet:
    """Geps at offsets 63/64/65 (around a 64-bit word), the last field (99) of object 10
    and one past it (100), the int-to-pointer object (1) among the pointees, a copy cycle."""
    return ConstraintSet.from_lists(
        300, obj_size={10: 100, 120: 66, 250: 3},
        addr=[(0, 10), (0, 120), (0, 250), (0, 1), (8, 250), (9, 10)],
        gep=[(2, 0, 63), (3, 0, 64), (4, 0, 65), (5, 0, 99), (6, 0, 100), (7, 0, 2)],
        store=[(0, 8), (7, 9)], load=[(13, 0), (14, 7)], copy=[(11, 13), (13, 11)])


def test_gep_offsets_around_64_and_int_to_pointer():
    # offsets 63/64/65 straddle the word-at-a-time gep path and the per-id one;
    # 99 is the last field of object 10, 100 is past it
    cs = _word_boundary_set()
    sol = _assert_same(cs)
    assert sol.points_to(2).tolist() == [73, 183]
    assert sol.points_to(3).tolist() == [74, 184]
    assert sol.points_to(4).tolist() == [75, 185]
    assert sol.points_to(5).tolist() == [109]
    assert sol.points_to(6).tolist() == []
    assert sol.points_to(7).tolist() == [12, 122, 252]
    for pre in (True, False):
        _assert_same(cs, preprocess=pre)


def test_load_edges_beyond_the_pending_capacity():
    # p points to 30 objects and 10 values load through it: 300 load-made edges in one visit,
    # more than the pending list holds (n + 16), so it is merged mid-rule; each object points
    # somewhere of its own, and a store and a copy cycle among the loaded values follow
    k, m = 30, 10
    n = 1 + k + k + m
    objs = list(range(1, 1 + k))
    targets = list(range(1 + k, 1 + 2 * k))
    vals = list(range(1 + 2 * k, n))
    cs = ConstraintSet.from_lists(n, obj_size={o: 1 for o in objs + targets},
                                  addr=[(0, o) for o in objs] + [(o, tg) for o, tg in zip(objs, targets)],
                                  load=[(x, 0) for x in vals], store=[(0, vals[0])],
                                  copy=[(vals[1], vals[2]), (vals[2], vals[1])])
    sol = _assert_same(cs, preprocess=False)
    assert sol.stats.notes["core pending edges merged when full"] > 0
    assert set(sol.points_to(vals[3]).tolist()) == set(targets)


def test_stats_and_bad_thread_counts():
    cs = ConstraintSet.from_lists(3, obj_size={2: 1}, addr=[(0, 2)], copy=[(1, 0)])
    sol = cpu.solve(cs)
    assert sol.stats.backend == "cpu" and sol.stats.peak_host_bytes > 0
    assert "preprocess nodes" in sol.stats.notes and "threads" not in sol.stats.notes
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="positive integer"):
            cpu.solve(cs, threads=bad)


# The multi-core mode (threads > 1, _cpu_wave) must give the same sets as the
# serial solver and the reference one. Its first use compiles for about a minute,
# so all of its tests are slow ones.

@pytest.mark.slow
def test_threads_stats():
    cs = ConstraintSet.from_lists(3, obj_size={2: 1}, addr=[(0, 2)], copy=[(1, 0)])
    sol = cpu.solve(cs)
    par = cpu.solve(cs, threads=2)
    assert par == sol and par.stats.notes["threads"] == 2 and "step ms" in par.stats.notes


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets())
def test_parallel_matches_reference(cs):
    _assert_same(cs, threads=2)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=80, max_constraints=160))
def test_parallel_matches_reference_larger_without_preprocessing(cs):
    _assert_same(cs, preprocess=False, threads=2)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(max_nodes=16), st.data())
def test_parallel_online_hcd_merges_keep_the_solution(cs, data):
    _assert_same_with_drawn_hcd(cs, data, threads=2)


@pytest.mark.slow
def test_parallel_wide_levels():
    # 300 independent chains a_i -> b_i -> c_i, loads/stores/geps on each: levels wider than
    # _cpu_wave.SERIAL_BELOW, so the prange paths run (not only the serial small-level path)
    from andersen_gpu.backends import _cpu_wave

    k = 300
    assert k > _cpu_wave.SERIAL_BELOW
    n = 8 * k
    obj = {7 * k + i: 1 for i in range(k)}          # objects at the top, each with one field
    addr, copy, load, store, gep = [], [], [], [], []
    for i in range(k):
        a, b, c, d, e, f = i, k + i, 2 * k + i, 3 * k + i, 4 * k + i, 5 * k + i
        o = 7 * k + i
        addr += [(a, o), (d, (o + 1) if i + 1 < k else o)]
        copy += [(b, a), (c, b)]
        store += [(c, d)]            # *c = d: o gets d's object
        load += [(e, c)]             # e = *c
        gep += [(f, c, 1)]           # f = c + 1 (past o's size of 1? size 1 -> offset 1 is out)
    cs = ConstraintSet.from_lists(n, obj_size=obj, addr=addr, copy=copy, load=load, store=store, gep=gep)
    sol = _assert_same(cs, threads=2, preprocess=False)
    assert sol.stats.notes["core parallel levels"] > 0
    assert sol == cpu.solve(cs)


@pytest.mark.slow
def test_parallel_word_boundaries_and_offsets():
    cs = _word_boundary_set()
    for pre in (True, False):
        _assert_same(cs, preprocess=pre, threads=2)


@pytest.mark.slow
@pytest.mark.parametrize("program", ["ex", "gcc", "perl", "vim"])
def test_paper_reference_solutions(paper_inputs, program):
    from constraints.paper_format import read_paper
    cs = read_paper(paper_inputs / f"{program}_nodes.txt.gz")
    want = Solution.load(paper_inputs / f"{program}_correct_soln_001.txt.gz")
    got = cpu.solve(cs)
    assert want == got, want.diff_report(got, labels=("reference file", "cpu"))


@pytest.mark.slow
@pytest.mark.parametrize("program", ["ex", "gcc"])
def test_parallel_paper_reference_solutions(paper_inputs, program):
    from constraints.paper_format import read_paper
    cs = read_paper(paper_inputs / f"{program}_nodes.txt.gz")
    want = Solution.load(paper_inputs / f"{program}_correct_soln_001.txt.gz")
    got = cpu.solve(cs, threads=2)
    assert got.stats.notes["threads"] == 2
    assert want == got, want.diff_report(got, labels=("reference file", "cpu, 2 threads"))
