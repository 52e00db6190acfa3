"""``Solution``: construction, queries, comparison, diff report, export, save/load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from andersen_gpu.solution import Solution, dedupe_sets
from constraints.errors import InputError

SETS = [[3], [4, 3], [], [3], [], [1, 1]]


def _sol(**kw) -> Solution:
    return Solution.from_sets(SETS, **kw)


def test_from_sets_sorts_dedupes_and_shares_sets() -> None:
    sol = _sol()
    assert sol.n_nodes == 6 and sol.n_edges == 5
    assert sol.n_sets == 4  # {3}, {3,4}, {}, {1}
    assert sol.points_to(1).tolist() == [3, 4] and sol.points_to(5).tolist() == [1]
    assert sol.node_set[0] == sol.node_set[3] and sol.node_set[2] == sol.node_set[4]
    assert sol.indptr.tolist() == [0, 1, 3, 3, 4, 4, 5]
    assert sol.indices.tolist() == [3, 3, 4, 3, 1]


def test_may_alias() -> None:
    sol = _sol()
    assert sol.may_alias(0, 1) and sol.may_alias(0, 3)
    assert not sol.may_alias(0, 5) and not sol.may_alias(2, 4)  # empty sets alias nothing, not even each other


def test_names() -> None:
    sol = _sol(names=["a", "b", "c", "d", "e", "f"])
    assert sol.points_to("b").tolist() == [3, 4] and sol.points_to("#5").tolist() == [1]
    assert sol.points_to_names("b") == ["d", "e"]
    with pytest.raises(KeyError):
        sol.points_to("zz")
    with pytest.raises(KeyError):
        sol.points_to(6)


def test_from_groups_and_rep_sets() -> None:
    sol = Solution.from_groups(6, [(np.array([0, 3]), np.array([3])), (np.array([1]), np.array([4, 3])),
                                   (np.array([5]), np.array([1]))])
    assert sol == _sol()
    with pytest.raises(InputError, match="node 0 listed twice"):
        Solution.from_groups(3, [(np.array([0]), np.array([1])), (np.array([0]), np.array([2]))])
    rep = np.array([0, 0, 2])
    by_rep = Solution.from_rep_sets(rep, np.array([0, 1, 1, 1]), np.array([2], np.int32))
    assert [by_rep.points_to(v).tolist() for v in range(3)] == [[2], [2], []]


def test_equality_and_diff_report() -> None:
    a = _sol(names=["a", "b", "c", "d", "e", "f"])
    b = Solution.from_sets([[3], [4], [], [3], [2], [1, 1]])
    assert a == _sol() and a != b
    assert a.differing_nodes(b).tolist() == [1, 4]
    report = a.diff_report(b, limit=1, labels=("mine", "theirs"))
    assert report.splitlines()[0] == "2 of 6 nodes differ; first 1:"
    assert "node 1 (b): mine has 2, theirs has 1; only in mine: {3}; only in theirs: {}" in report
    assert a.diff_report(_sol()) == ""
    assert "node counts differ" in a.diff_report(Solution.from_sets([[1]]))


def test_to_pandas() -> None:
    df = _sol().to_pandas()
    assert list(df.columns) == ["node", "pointee"]
    assert list(zip(df.node, df.pointee)) == [(0, 3), (1, 3), (1, 4), (3, 3), (5, 1)]


@pytest.mark.parametrize("name", ["s.npz", "s.txt", "s.txt.gz"])
def test_save_and_load(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name.endswith(".npz"):
        _sol().save(path)
    else:
        _sol().write_paper(path)
    assert Solution.load(path) == _sol()
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_load_rejects_foreign_npz(tmp_path: Path) -> None:
    np.savez(tmp_path / "x.npz", a=np.arange(3))
    with pytest.raises(InputError, match="not an andersen-gpu solution"):
        Solution.load(tmp_path / "x.npz")


def test_load_rejects_bad_paper_solution(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("3\n[0] => [1]\n[1] => [7]\n")
    with pytest.raises(InputError) as info:
        Solution.load(path)
    assert str(info.value).startswith(f"{path}:3: ")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), max_size=5), min_size=1, max_size=10))
def test_dedupe_keeps_every_row(rows: list[list[int]]) -> None:
    sets = [sorted(set(r)) for r in rows]
    sol = Solution.from_sets(sets)
    assert [sol.points_to(v).tolist() for v in range(len(sets))] == sets
    assert sol.n_sets == len({tuple(s) for s in sets})
    row_to_set, indptr, indices = dedupe_sets(sol.indptr, sol.indices)
    assert len(indptr) - 1 == sol.n_sets
