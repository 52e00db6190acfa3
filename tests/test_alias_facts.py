"""Alias facts: location sets per instruction, unknown pointers, calls, scope plans, side files.

Programs are small IR modules written inline (``.ll`` inputs, read by the LLVM
front end's helper), so these tests need no clang.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from andersen_gpu.aliasfacts import analyze, may_alias_values, with_unknown_externals
from andersen_gpu.aliasfacts.scopes import _by_class, _by_set, plan_scopes, scoped_noalias
from andersen_gpu.aliasfacts.tables import side_paths, tables, write
from andersen_gpu.cli import main
from andersen_gpu.solve import solve
from constraints.errors import InputError
from constraints.llvm.access_sites import function_bodies, walk_function

PROGRAM = """\
%struct.pair = type { ptr, ptr }

@x = global i32 0
@y = global i32 0
@pp = global %struct.pair zeroinitializer

declare ptr @mystery()
declare ptr @malloc(i64)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @set_x(i32 %v) {
entry:
  store i32 %v, ptr @x
  ret void
}

define void @calls_set_x() {
entry:
  call void @set_x(i32 1)
  ret void
}

define i32 @main(i1 %c, i64 %bits) {
entry:
  store i32 1, ptr @x
  store i32 2, ptr @y
  %lx = load i32, ptr @x
  %f1 = getelementptr inbounds %struct.pair, ptr @pp, i32 0, i32 1
  store ptr @y, ptr %f1
  store ptr @x, ptr @pp
  %whole = load %struct.pair, ptr @pp
  %m = call ptr @mystery()
  store i32 3, ptr %m
  %h = call ptr @malloc(i64 16)
  br i1 %c, label %then, label %join

then:
  br label %join

join:
  %either = phi ptr [ %m, %entry ], [ @y, %then ]
  store i32 4, ptr %either
  %i2p = inttoptr i64 %bits to ptr
  store i32 5, ptr %i2p
  call void @llvm.memcpy.p0.p0.i64(ptr %h, ptr @y, i64 4, i1 false)
  call void @calls_set_x()
  %fp = select i1 %c, ptr @set_x, ptr @calls_set_x
  call void %fp(i32 7)
  ret i32 %lx
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    path = tmp_path_factory.mktemp("facts") / "prog.ll"
    path.write_text(PROGRAM)
    facts, cs, sol, _ = analyze([path], backend="reference")
    return facts, cs, sol


def names_of(facts, cs, key):
    s = facts.site_set[facts.site(key)]
    return None if s < 0 else sorted(cs.names[z] for z in facts.location_set(s))


# ------------------------------------------------------------- location sets
def test_stable_ids_and_kinds(program):
    facts, _, _ = program
    s = facts.sites
    keys = {s.key(i): s.kind[i] for i in range(len(s))}
    assert keys[("main", "entry", 0)] == "store"
    assert keys[("main", "entry", 2)] == "load"
    assert keys[("main", "join", 3)] == "store"          # after phi, store, inttoptr
    assert keys[("main", "join", 4)] == "memcpy"
    assert keys[("set_x", "entry", 0)] == "store"
    assert s.call_class[facts.site(("main", "entry", 7))] == "unmodelled"
    assert s.call_class[facts.site(("main", "join", 5))] == "defined"
    assert s.call_class[facts.site(("main", "join", 7))] == "indirect"


def test_globals_and_fields(program):
    facts, cs, _ = program
    assert names_of(facts, cs, ("main", "entry", 0)) == ["*@x"]
    assert names_of(facts, cs, ("main", "entry", 4)) == ["*@pp#1"]
    assert not facts.may_alias(("main", "entry", 0), ("main", "entry", 1))   # @x vs @y
    assert facts.may_alias(("main", "entry", 0), ("main", "entry", 2))       # @x vs @x
    assert not facts.may_alias(("main", "entry", 4), ("main", "entry", 5))   # pp.b vs pp.a
    # an aggregate load covers every slot it reads: it aliases both field stores
    assert names_of(facts, cs, ("main", "entry", 6)) == ["*@pp", "*@pp#1"]
    assert facts.may_alias(("main", "entry", 6), ("main", "entry", 4))


def test_unknown_pointers_alias_everything(program):
    facts, _, _ = program
    through_unmodelled = ("main", "entry", 8)
    mixed_phi = ("main", "join", 1)      # %m or @y: must not be {@y}
    from_integer = ("main", "join", 3)
    for key in (through_unmodelled, mixed_phi, from_integer):
        assert facts.site_set[facts.site(key)] == -1, key
        assert facts.may_alias(key, ("main", "entry", 0))
    assert facts.site_set[facts.site(("main", "entry", 7))] == -1   # the unmodelled call itself


def test_memcpy_and_calls(program):
    facts, cs, _ = program
    got = names_of(facts, cs, ("main", "join", 4))
    assert "*@y" in got and any(n.startswith("*main:%h") for n in got)
    assert names_of(facts, cs, ("main", "join", 5)) == ["*@x"]          # transitively, through set_x
    assert names_of(facts, cs, ("main", "join", 7)) == ["*@x"]          # indirect, both targets
    assert not facts.may_alias(("main", "join", 5), ("main", "entry", 1))
    assert facts.may_alias(("main", "join", 5), ("main", "entry", 0))


def test_function_classes(program):
    facts, _, _ = program
    classes, site_classes = facts.function_classes("main")
    covered = np.sort(np.concatenate(classes))
    assert np.array_equal(covered, np.unique(covered))                  # a partition
    known = list(site_classes)
    for a in known:
        for b in known:
            share = bool(set(site_classes[a]) & set(site_classes[b]))
            assert share == facts.may_alias(a, b)


def test_may_alias_values(program):
    facts, cs, sol = program
    u = cs.int_to_pointer
    assert not may_alias_values(sol, "@x", "@y", u)
    assert may_alias_values(sol, "@x", "@x", u)
    assert may_alias_values(sol, "main:%m", "@x", u)          # unknown
    assert may_alias_values(sol, "main:%either", "@x", u)     # may hold an unknown pointer


def test_unknown_externals_only_add_the_unknown_object(tmp_path):
    from constraints.llvm import extract_with_stats

    path = tmp_path / "p.ll"
    path.write_text(PROGRAM)
    cs, stats = extract_with_stats([path], record_sites=True)
    full = with_unknown_externals(cs, stats.access_sites)
    assert full.n_nodes > cs.n_nodes and full.names[:cs.n_nodes] == cs.names
    a, b = solve(cs, backend="reference"), solve(full, backend="reference")
    u = full.int_to_pointer
    grew = 0
    for v in range(cs.n_nodes):
        before, after = set(a.points_to(v).tolist()), set(b.points_to(v).tolist())
        assert before <= after and after - before <= {u}, cs.names[v]
        grew += bool(after - before)
    assert grew >= 3   # %m, %either, the slots of @mystery


def test_site_lookup_errors(program):
    facts, _, _ = program
    with pytest.raises(KeyError):
        facts.site(("main", "entry", 99))
    with pytest.raises(KeyError):
        facts.site(10 ** 6)


# ------------------------------------------------------------------ numbering
def test_numbering_ignores_debug_intrinsics_and_names_unlabelled_entry():
    old = ["define void @f(ptr %0, i32 %n) {",
           "  call void @llvm.dbg.value(metadata ptr %0, metadata !1, metadata !DIExpression())",
           "  store i32 %n, ptr %0",
           "  br label %3", "", "3:", "  ret void", "}"]
    new = ["define void @f(ptr %0, i32 %n) {",
           "    #dbg_value(ptr %0, !1, !DIExpression(), !2)",
           "  store i32 %n, ptr %0",
           "  br label %3", "", "3:", "  ret void", "}"]
    walks = []
    for lines in (old, new):
        (name, start, end, entry), = function_bodies(lines)
        walks.append([(b, k, lines[li].strip()) for b, k, li in walk_function(lines, start, end, entry)])
    assert walks[0] == walks[1]
    assert walks[0][0][:2] == ("1", 0) and walks[0][2][:2] == ("3", 0)


# ----------------------------------------------------------------- scope plans
families = st.lists(st.frozensets(st.integers(0, 9), min_size=1, max_size=5), min_size=1, max_size=9,
                    unique=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(families)
def test_scope_plans_are_exact(sets):
    members = [np.asarray(sorted(s)) for s in sets]
    inter = np.array([[bool(a & b) for b in sets] for a in sets])
    for plan in (_by_set(inter), _by_class(inter, members), plan_scopes(inter, members)):
        for i, a in enumerate(sets):
            for j, b in enumerate(sets):
                said = scoped_noalias(plan.scopes[i], plan.noalias[i], plan.scopes[j], plan.noalias[j])
                assert said == (not (a & b)), (plan.encoding, sets, i, j)


def test_plan_picks_the_smaller_encoding():
    # ten pairwise disjoint singletons plus one set covering them all: by class is no
    # larger, and a lone set with no disjoint partner gets no scopes at all
    sets = [{k} for k in range(10)]
    inter = np.array([[bool(a & b) for b in sets] for a in sets])
    plan = plan_scopes(inter, [np.asarray(sorted(s)) for s in sets])
    assert plan.operands == min(_by_set(inter).operands,
                                _by_class(inter, [np.asarray(sorted(s)) for s in sets]).operands)
    lone = plan_scopes(np.ones((1, 1), bool), [np.asarray([0])])
    assert lone.n_scopes == 0 and lone.scopes == [()]


# ----------------------------------------------------------------- side files
def test_tables_describe_the_relation(program):
    facts, _, _ = program
    t = tables(facts)
    sites, sets, pairs = t["sites"], t["sets"], t["pairs"]
    assert list(sites.columns) == ["site", "function", "block", "index", "location", "kind", "pointer",
                                   "call_class", "set", "n_locations"]
    assert len(sites) == len(facts.sites)
    per_set = sets.groupby("set").size().reindex(range(facts.n_sets), fill_value=0).to_numpy()
    assert (per_set == np.diff(facts.set_indptr)).all()   # an empty set (malloc's call) has no rows
    listed = {(r.function, r.set_a, r.set_b) for r in pairs.itertuples()}
    for fname in facts.functions():
        idx = facts.function_sites(fname)
        for a in idx:
            for b in idx:
                sa, sb = int(facts.site_set[a]), int(facts.site_set[b])
                if sa < 0 or sb < 0 or sa == sb:
                    continue
                assert ((fname, min(sa, sb), max(sa, sb)) in listed) == facts.may_alias(int(a), int(b))


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl"])
def test_write_round_trips(program, tmp_path, suffix):
    import pandas as pd

    facts, _, _ = program
    paths = write(facts, tmp_path / f"facts{suffix}")
    assert [p.name for p in paths.values()] == [f"facts{suffix}", f"facts.sets{suffix}", f"facts.pairs{suffix}"]
    expect = tables(facts)
    for key, p in paths.items():
        if suffix == ".parquet":
            got = pd.read_parquet(p)
        else:
            got = pd.DataFrame([json.loads(x) for x in p.read_text().splitlines()], columns=expect[key].columns)
        assert len(got) == len(expect[key])
        assert got["function" if key != "sets" else "name"].astype(str).tolist() == \
            expect[key]["function" if key != "sets" else "name"].astype(str).tolist()


def test_parquet_without_pyarrow_is_one_clear_error(program, tmp_path, monkeypatch):
    import sys

    facts, _, _ = program
    monkeypatch.setitem(sys.modules, "pyarrow", None)   # as on a machine without the parquet extra
    with pytest.raises(InputError, match="needs pyarrow"):
        write(facts, tmp_path / "facts.parquet")
    assert list(tmp_path.iterdir()) == []


def test_side_paths_reject_other_suffixes():
    with pytest.raises(InputError):
        side_paths("facts.csv")


def test_alias_command(tmp_path, capsys):
    src = tmp_path / "p.ll"
    src.write_text(PROGRAM)
    assert main(["alias", str(src), "-o", str(tmp_path / "f.jsonl"), "--backend", "reference"]) == 0
    assert "distinct location sets" in capsys.readouterr().out
    rows = [json.loads(x) for x in (tmp_path / "f.jsonl").read_text().splitlines()]
    assert any(r["kind"] == "memcpy" and r["set"] >= 0 for r in rows)
    assert main(["alias", str(src), "-o", str(tmp_path / "f.csv")]) == 2


def test_wide_access_to_a_literal_struct_covers_its_fields(tmp_path):
    # no named struct tells the extractor that 8 bytes can span two slots; the
    # alloca's own literal type must
    path = tmp_path / "lit.ll"
    path.write_text("define i64 @f() {\nentry:\n  %s = alloca { i32, i32 }, align 8\n"
                    "  %f1 = getelementptr inbounds { i32, i32 }, ptr %s, i32 0, i32 1\n"
                    "  store i32 1, ptr %f1\n  %w = load i64, ptr %s\n  ret i64 %w\n}\n")
    facts, cs, _, _ = analyze([path], backend="reference")
    assert names_of(facts, cs, ("f", "entry", 3)) == ["*f:%s", "*f:%s#1"]
    assert facts.may_alias(("f", "entry", 2), ("f", "entry", 3))


@pytest.mark.skipif(shutil.which("clang++-19") is None and shutil.which("clang-19") is None,
                    reason="clang-19 not installed")
def test_virtual_calls_resolve_to_the_vtable_slots_functions():
    """A virtual call loads its target from a vtable slot whose set also holds the
    typeinfo objects: the call's summary is that of the virtual functions in the set
    (Base::get and Derived::get read nothing; the destructors' calls free memory),
    not unknown."""
    from pathlib import Path

    src = Path(__file__).resolve().parent / "llvm" / "cpp_virtual_call.cc"
    facts, cs, sol, _ = analyze([src], backend="reference", clang_flags=["-I", str(src.parent)])
    s = facts.sites
    virtual = [i for i in range(len(s)) if s.function[i] == "main" and s.call_class[i] == "indirect"]
    assert len(virtual) == 2  # b->get() and delete b
    for i in virtual:
        fp = s.fp[i]
        targets = {cs.names[z] for z in sol.points_to(fp)}
        assert {"*@_ZTI4Base", "@_ZN4Base3getEv", "@_ZN7Derived3getEv", "@_ZN4BaseD0Ev"} <= targets
        assert facts.site_set[i] >= 0, (s.key(i), targets)
