"""``andersen-gpu query`` (issue 21, item 6): answers by name from an input or a solution file,
with the answers of examples/linked_list.acs written out."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from andersen_gpu import Solution
from andersen_gpu.cli import ExitCode, main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "linked_list.acs"
EXAMPLE_SOLUTION = ROOT / "examples" / "linked_list.solution.txt"   # the paper's format: ids only

# (arguments, the lines query prints) on examples/linked_list.acs
ANSWERS = [
    (["--points-to", "main:%r", "@head"], ["main:%r points to 2: a, b", "@head points to 1: head"]),
    (["--points-to", "main:%z"], ["main:%z points to 1: int2ptr"]),
    (["--points-to", "main:%past"], ["main:%past points to nothing"]),
    (["--alias", "main:%r", "main:%s"], ["main:%r and main:%s may alias: both point to 2: a, b"]),
    (["--alias", "main:%r", "main:%fp"], ["main:%r and main:%fp do not alias"]),
    (["--pointed-by", "a"], ["a is pointed to by 6: n1.val, get.ret, get:%val, @a, main:%r, main:%s"]),
    (["--points-to", "#31", "--alias", "main:%h", "main:%next", "--pointed-by", "get"],
     ["#31 points to 2: a, b",
      "main:%h and main:%next may alias: both point to 2: n1, n2",
      "get is pointed to by 3: getter, @get, main:%fp"]),
]


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict[str, Path]:
    """The example's solution as a .npz with names, and as one without (written before names)."""
    d = tmp_path_factory.mktemp("query")
    with_names = d / "with_names.npz"
    assert main(["solve", str(EXAMPLE), "--backend", "reference", "-o", str(with_names)]) == ExitCode.OK
    sol = Solution.load(with_names)
    old = d / "old.npz"
    np.savez_compressed(old, format=np.array("andersen-gpu-solution-1"), node_set=sol.node_set,
                        set_indptr=sol.set_indptr, set_indices=sol.set_indices)
    return {"with_names": with_names, "old": old}


@pytest.mark.parametrize("source", ["input", "solution"])
@pytest.mark.parametrize("args,lines", ANSWERS, ids=[" ".join(a) for a, _ in ANSWERS])
def test_answers(source: str, args: list[str], lines: list[str], saved, capsys: pytest.CaptureFixture) -> None:
    given = EXAMPLE if source == "input" else saved["with_names"]
    assert main(["query", str(given), "--backend", "reference", *args]) == ExitCode.OK
    assert capsys.readouterr().out.splitlines() == lines


def test_json(saved, capsys: pytest.CaptureFixture) -> None:
    assert main(["query", str(saved["with_names"]), "--json", "--points-to", "main:%r", "--alias", "main:%r",
                 "main:%fp", "--pointed-by", "b"]) == ExitCode.OK
    got = json.loads(capsys.readouterr().out)
    assert got == {"input": str(saved["with_names"]), "nodes": 37, "backend": None,
                   "points_to": [{"node": "main:%r", "id": 31, "pointees": ["a", "b"]}],
                   "alias": [{"a": "main:%r", "b": "main:%fp", "may_alias": False, "common": []}],
                   "pointed_by": [{"object": "b", "id": 2,
                                   "pointers": ["n2.val", "get.ret", "get:%val", "@b", "main:%r", "main:%s"]}]}


@pytest.mark.parametrize("source", ["old", "paper"])
def test_solutions_without_names_answer_by_id(source: str, saved, capsys: pytest.CaptureFixture) -> None:
    given = saved["old"] if source == "old" else EXAMPLE_SOLUTION
    assert main(["query", str(given), "--points-to", "31", "--alias", "#31", "#30"]) == ExitCode.OK
    assert capsys.readouterr().out.splitlines() == ["31 points to 2: #1, #2", "#31 and #30 do not alias"]
    assert main(["query", str(given), "--points-to", "main:%r"]) == ExitCode.BAD_INPUT
    assert "this solution has no names: give ids (#12)" in capsys.readouterr().err


@pytest.mark.parametrize("args,problem", [
    (["--points-to", "main:%rr"], "no node 'main:%rr' (37 nodes; closest: main:%r"),
    (["--pointed-by", "#99"], "no node '#99' (37 nodes"),
    ([], "nothing to ask"),
])
def test_bad_questions_exit_2_with_one_line(args, problem: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["query", str(EXAMPLE), "--backend", "reference", *args]) == ExitCode.BAD_INPUT
    err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(err) == 1 and problem in err[0], err


def test_a_saved_solution_keeps_its_names(saved) -> None:
    sol = Solution.load(saved["with_names"])
    assert sol.names[31] == "main:%r" and sol.points_to_names("main:%r") == ["a", "b"]
    assert Solution.load(saved["old"]).names is None
    assert Solution.load(saved["old"]) == sol


def test_the_readme_example(capsys: pytest.CaptureFixture) -> None:
    text = (ROOT / "README.md").read_text()
    block = text[text.index("$ andersen-gpu query "):].split("```")[0].strip().splitlines()
    argv = block[0].split()[2:]
    argv[1] = str(ROOT / argv[1])
    assert main(argv + ["--backend", "reference"]) == ExitCode.OK
    assert capsys.readouterr().out.splitlines() == block[1:]
