"""Objects reached by positive-weight cycles, collapsed before solving (andersen_gpu.preprocess.objects).

The rule's hand cases with their sets written out are in tests/test_rules.py (every backend); here:
the cycle finder and the collapse on small sets, formats that keep the flag, and on random sets that
the collapsed solution covers the field-sensitive one and that the backends agree.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import andersen_gpu
from andersen_gpu.preprocess import collapse
from andersen_gpu.preprocess.objects import collapse_objects, collapse_reached, cycle_nodes, object_level
from constraints import io
from constraints.errors import InputError
from constraints.model import ConstraintSet

from strategies import constraint_sets


def test_cycle_nodes_need_a_positive_gep_on_the_cycle():
    # 0 -> 1 -> 2 -> 0 with a +1 gep (2 = 1 + 1): a positive-weight cycle; 3 <-> 4 copies only;
    # 5 = 5 + 0 is no cycle of weight; 6 = 6 + 2 is one
    cs = ConstraintSet.from_lists(8, copy=[(1, 0), (0, 2), (4, 3), (3, 4)], gep=[(2, 1, 1), (5, 5, 0), (6, 6, 2),
                                                                               (7, 6, 1)])
    assert cycle_nodes(cs).tolist() == [0, 1, 2, 6]


def test_cycle_nodes_read_through_merges():
    # 1 is merged into 0, so 0 = 1 + 1 is 0 = 0 + 1: both are on the cycle
    cs = ConstraintSet.from_lists(3, gep=[(0, 1, 1)], offline_rep=[0, 0, 2])
    assert cycle_nodes(cs).tolist() == [0, 1]


def test_cycle_nodes_of_a_long_chain_closed_by_one_gep():
    # 0 -> 1 -> ... -> 199999 by copies, then 0 = 199999 + 1: one component of 200,000 nodes (the
    # search keeps its own stack, so a chain this long does not overflow anything); 200000 hangs off it
    n = 200_001
    cs = ConstraintSet.from_lists(n, copy=[(v + 1, v) for v in range(n - 2)] + [(n - 1, n - 2)],
                                  gep=[(0, n - 2, 1)])
    assert cycle_nodes(cs).tolist() == list(range(n - 1))


def _reach(n, edges):
    """bool[n, n]: v reaches w by one edge or more (Floyd-Warshall on a small graph)."""
    r = np.zeros((n, n), bool)
    for s, d in edges:
        r[s, d] = True
    for k in range(n):
        r |= r[:, [k]] & r[[k], :]
    return r


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(gep_cycles=True, with_i2p=False))
def test_cycle_nodes_are_the_nodes_on_a_cycle_with_a_positive_edge(cs):
    """Against the definition, by reachability: v is listed when its representative r and the two
    ends of some positive gep or walk s -> d lie on one cycle (d reaches s, s reaches r, r reaches s)."""
    rep = cs.rep
    edges = [(rep[s], rep[d]) for s, d in zip(np.concatenate((cs.copy_src, cs.gep_src, cs.walk_src)).tolist(),
                                               np.concatenate((cs.copy_dst, cs.gep_dst, cs.walk_dst)).tolist())]
    r = _reach(cs.n_nodes, edges)
    positive = [(rep[s], rep[d]) for s, d, o in zip(cs.gep_src.tolist(), cs.gep_dst.tolist(), cs.gep_offset.tolist())
                if o > 0] + [(rep[s], rep[d]) for s, d in zip(cs.walk_src.tolist(), cs.walk_dst.tolist())]
    on = {v for v in range(cs.n_nodes)
          if any((s == d or r[d, s]) and (rep[v] == s or (r[s, rep[v]] and r[rep[v], s])) for s, d in positive)}
    assert cycle_nodes(cs).tolist() == sorted(on)


def test_collapse_objects_merges_slots_and_points_into_the_object():
    # o = 2 (slots 3, 4), q = 5 (slot 6); x = &o.1, y = &q.1
    cs = ConstraintSet.from_lists(7, obj_size={2: 3, 3: 2, 4: 1, 5: 2, 6: 1}, addr=[(0, 3), (1, 6)])
    out = collapse_objects(cs, [2, 3])                # 3 lies inside 2: the outermost is collapsed
    assert out.field_insensitive.tolist() == [2]
    assert out.obj_size.tolist()[2] == 1
    assert out.rep.tolist() == [0, 1, 2, 2, 2, 5, 6]
    assert out.addr_src.tolist() == [2, 6]
    assert collapse_objects(cs, [5, 6]).field_insensitive.tolist() == [5]
    assert collapse_objects(cs, []) is cs
    # any order, repeats, and ids that are no object of more than one slot (0, 4, 6)
    assert collapse_objects(cs, [6, 3, 5, 0, 3, 2, 4, 5]).field_insensitive.tolist() == [2, 5]
    assert collapse_objects(cs, [4, 0, 6]) is cs


def test_collapse_objects_joins_existing_merges():
    # 1 was merged into slot 3 of o (2-4): collapsing o puts 1 and 3 with o
    cs = ConstraintSet.from_lists(5, obj_size={2: 3, 3: 2, 4: 1}, offline_rep=[0, 3, 2, 3, 4])
    assert collapse_objects(cs, [2]).rep.tolist() == [0, 1, 1, 1, 1]


def test_object_level_skips_functions_and_numbers_pointees_first():
    # 0: a value, o = 1 (slot 2), 3: a value, f = 4 (f#ret 5, f#arg0 6), 7: x = &o.1, x = f + 1
    kind = [0, 1, 2, 0, 3, 2, 2, 0]
    cs = ConstraintSet.from_lists(8, obj_size=[0, 2, 1, 0, 3, 1, 1, 0], kind=kind, addr=[(7, 2), (7, 4)],
                                  gep=[(0, 7, 1)])
    coarse, new = object_level(cs)
    assert new.tolist() == [4, 0, 0, 5, 1, 2, 3, 6]   # o, f, f#ret, f#arg0 first; slot 2 is o
    assert coarse.field_insensitive.tolist() == [0]
    assert coarse.obj_size.tolist() == [1, 3, 1, 1, 0, 0, 0, 0]   # and one padding value
    assert coarse.addr_src.tolist() == [0, 1] and coarse.gep_dst.tolist() == [4]
    sol = andersen_gpu.solve(coarse, backend="reference")
    assert sol.points_to(4).tolist() == [0, 2]        # 0 = x + 1: o (field-insensitive) and f#ret


def test_object_level_offsets_fit_the_smaller_set():
    # o = 0 (slots 1, 2) is merged: 3 nodes are left, and offsets of 3 are clamped to the largest span
    cs = ConstraintSet.from_lists(4, obj_size={0: 3, 1: 2, 2: 1}, addr=[(3, 0)], gep=[(3, 3, 3)],
                                  call_dst=[3], call_src=[3], call_offset=[3])
    coarse, new = object_level(cs)
    assert coarse.n_nodes == 3 and coarse.gep_offset.tolist() == [1] and coarse.call_offset.tolist() == [1]
    sol = andersen_gpu.solve(coarse, backend="reference")
    assert sol.points_to(int(new[3])).tolist() == [0]   # 3 = &o; o + 3 keeps o (field-insensitive)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(gep_cycles=True, with_i2p=True))
def test_object_level_set_is_valid(cs):
    """object_level builds its set without validating it (its columns are mapped through the node
    table): validated here, it passes, and the validating constructor gives an equal set."""
    coarse, new = object_level(cs.replace(offline_rep=None))
    coarse.validate()
    assert coarse.replace() == coarse
    assert coarse.obj_size.dtype == np.int32 and coarse.kind.dtype == np.int8
    assert coarse.obj_size[-1] == 0 and coarse.names is None and not coarse.collapse_cycles
    for name in ("addr_dst", "addr_src", "copy_dst", "copy_src", "load_dst", "load_src", "store_dst",
                 "store_src", "gep_dst", "gep_src", "gep_offset", "walk_offset", "call_offset",
                 "field_insensitive", "hcd_ptr"):
        assert getattr(coarse, name).dtype == np.int32, name


def test_object_level_refuses_an_object_merged_out_of_a_function():
    # f = 0 (6 slots) holds an object o = 1 (slots 2 to 4): o is collapsed at object level, f keeps
    # its 6 slots, which no longer fit in the 5 nodes left: refused, as the validating constructor
    # always did (where the span still fits, the set is what that constructor gives)
    cs = ConstraintSet.from_lists(7, obj_size=[6, 4, 1, 1, 1, 1, 0], kind=[3, 1, 2, 2, 2, 2, 0],
                                  addr=[(6, 0), (6, 1)])
    with pytest.raises(InputError, match="object size"):
        object_level(cs)


def test_object_level_keeps_ids_under_merges():
    cs = ConstraintSet.from_lists(4, obj_size={1: 2, 2: 1}, offline_rep=[0, 1, 2, 0])
    coarse, new = object_level(cs)
    assert new.tolist() == [0, 1, 2, 3] and coarse.rep.tolist() == [0, 1, 1, 0]


def test_collapse_reached_clears_the_flag_and_counts():
    cs = ConstraintSet.from_lists(5, obj_size={2: 3, 3: 2, 4: 1}, addr=[(0, 2)], copy=[(1, 0)],
                                  gep=[(1, 1, 1)], collapse_cycles=True)
    out, stats = collapse_reached(cs, lambda c: andersen_gpu.solve(c, backend="reference"))
    assert not out.collapse_cycles
    assert (stats.cycle_nodes, stats.objects, stats.slots) == (1, 1, 3)
    assert out.field_insensitive.tolist() == [2]
    assert stats.presolve_ms > 0 and stats.host_ms > 0 and stats.presolve_iterations >= 1


def test_collapse_reached_times_the_solve_apart_from_the_host_work():
    # the solve passed in sleeps 50 ms and reports 7 rounds and 3 ms of preprocessing (the gpu
    # backend's note name), so its time is the presolve's and none of it the host's
    import time

    cs = ConstraintSet.from_lists(5, obj_size={2: 3, 3: 2, 4: 1}, addr=[(0, 2)], copy=[(1, 0)],
                                  gep=[(1, 1, 1)], collapse_cycles=True)

    def slow(c):
        time.sleep(0.05)
        sol = andersen_gpu.solve(c, backend="cpu")
        sol.stats.iterations = 7
        sol.stats.notes = {"preprocess_ms": 3.0}
        return sol

    _, stats = collapse_reached(cs, slow)
    assert stats.presolve_ms >= 50 and stats.host_ms < 50
    assert (stats.presolve_iterations, stats.presolve_preprocess_ms) == (7, 3.0)
    assert "object-level solve" in stats.note() and "7 rounds" in stats.note()


def test_coarse_solver_gives_the_backends_object_level_options_under_the_callers(monkeypatch):
    # the GPU solves the object-level set with HVN's first step only (object_level_options); a
    # caller's own option wins; the cpu backend has no such options
    import sys

    entry = sys.modules["andersen_gpu.solve"]     # the module (the package's `solve` is the function)
    seen = []
    monkeypatch.setattr(entry, "solve", lambda cs, backend, **kw: seen.append((backend, kw)))
    coarse = ConstraintSet.from_lists(3, obj_size={2: 1}, addr=[(0, 2)], copy=[(1, 0)])
    entry.coarse_solver("gpu")(coarse)
    entry.coarse_solver("gpu", hvn_passes=2, timing=True)(coarse)
    entry.coarse_solver("cpu", threads=3)(coarse)
    assert seen[0] == ("gpu", dict(announce=seen[0][1]["announce"], threads=1, hvn_passes=0))
    assert seen[1][1]["hvn_passes"] == 2 and seen[1][1]["timing"] is True
    assert seen[2][0] == "cpu" and "hvn_passes" not in seen[2][1] and seen[2][1]["threads"] == 3


def test_gpu_option_hvn_passes_is_checked():
    from andersen_gpu.backends.gpu import GpuOptions
    assert GpuOptions().with_overrides(hvn_passes=0).hvn_passes == 0
    with pytest.raises(ValueError, match="hvn_passes"):
        GpuOptions().with_overrides(hvn_passes=-1)


def test_offline_preprocessing_refuses_a_set_to_collapse_first():
    cs = ConstraintSet.from_lists(2, obj_size={1: 1}, addr=[(0, 1)], collapse_cycles=True)
    with pytest.raises(ValueError, match="collapse_reached"):
        collapse(cs)


@pytest.mark.parametrize("suffix", [".npz", ".acs", ".acs.gz"])
def test_formats_keep_the_flag(tmp_path, suffix):
    cs = ConstraintSet.from_lists(3, obj_size={2: 1}, addr=[(0, 2)], gep=[(1, 1, 1)], collapse_cycles=True)
    path = tmp_path / f"set{suffix}"
    io.save(cs, path)
    back = io.load(path)
    assert back.collapse_cycles and back == cs
    io.save(cs.replace(collapse_cycles=False), path)
    assert not io.load(path).collapse_cycles


def test_older_npz_tag_with_the_flag_is_refused(tmp_path):
    cs = ConstraintSet.from_lists(2, obj_size={1: 1}, addr=[(0, 1)], collapse_cycles=True)
    path = tmp_path / "set.npz"
    io.save(cs, path)
    members = dict(np.load(path))
    members["format"] = np.array("andersen-gpu-constraints-1")
    np.savez_compressed(path, **members)
    with pytest.raises(InputError, match="version-3 member"):
        io.load(path)


def test_paper_format_refuses_the_flag(tmp_path):
    cs = ConstraintSet.from_lists(3, obj_size={1: 1, 2: 1}, addr=[(0, 2)], int_to_pointer=1, collapse_cycles=True)
    with pytest.raises(InputError, match="positive-weight cycles"):
        io.save(cs, tmp_path / "x_nodes.txt")


def _objects_of(sol, v, into):
    return {int(into[z]) for z in sol.points_to(v).tolist()}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(constraint_sets(gep_cycles=True, with_i2p=False))
def test_collapsed_solution_covers_the_field_sensitive_one(cs):
    """Soundness: every slot a node holds without the collapse is held as its object with it (or
    as itself, where its object was not collapsed), and the reference and cpu backends agree."""
    flagged = cs.replace(collapse_cycles=True)
    if cs.offline_rep is not None:   # the flag is for sets as a front end writes them
        flagged = flagged.replace(offline_rep=None)
        cs = cs.replace(offline_rep=None)
    plain = andersen_gpu.solve(cs, backend="reference")
    got = andersen_gpu.solve(flagged, backend="reference")
    collapsed, _ = collapse_reached(flagged, lambda c: andersen_gpu.solve(c, backend="reference"))
    into = np.arange(cs.n_nodes)
    for o in collapsed.field_insensitive.tolist():
        if o not in cs.field_insensitive:
            into[o:o + cs.obj_size[o]] = o
    for v in range(cs.n_nodes):
        assert _objects_of(plain, v, into) <= set(got.points_to(v).tolist())
    assert andersen_gpu.solve(flagged, backend="cpu") == got
