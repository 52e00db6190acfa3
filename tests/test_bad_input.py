"""Every bad-input case of issue 2 through the CLI.

Each must exit 2 with exactly one stderr line ``andersen-gpu: error:
FILE[:LINE]: PROBLEM``, no traceback, and no output file left behind. The
inputs are small synthetic dumps written with our own writers, then broken.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Callable

import pytest

from andersen_gpu.cli import ExitCode, main
from constraints import io
from constraints.model import ConstraintSet

N = 8


def _good_set() -> ConstraintSet:
    """Eight nodes, objects 0-3 (3 has two fields), every constraint kind once or twice."""
    return ConstraintSet.from_lists(N, obj_size={0: 1, 1: 1, 2: 1, 3: 2}, kind=[1, 1, 1, 1, 2, 0, 0, 0],
                                    addr=[(5, 3), (6, 2)], copy=[(7, 5)], load=[(6, 7)], store=[(5, 6)],
                                    gep=[(7, 5, 1)], int_to_pointer=1, offline_rep=[0, 1, 2, 3, 4, 5, 6, 6],
                                    hcd_ptr=[5], hcd_target=[6])


def _edit_gz(path: Path, match: Callable[[str], bool], new: str | None) -> int:
    """Replace (or with None, delete) the first line for which ``match`` holds; return its number."""
    lines = gzip.open(path, "rt").read().split("\n")
    k = next(i for i, line in enumerate(lines) if match(line))
    if new is None:
        del lines[k]
    else:
        lines[k] = new
    with gzip.open(path, "wt") as fh:
        fh.write("\n".join(lines))
    return k + 1


def _gep_line(line: str) -> bool:
    return line.count(",") == 4 and line.split(",")[3] == "4"


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


# Each breaker gets the folder holding p_nodes.txt.gz (+ siblings) and p.acs.gz, p.npz;
# it returns (input to give the CLI, the file the error must name, its line or None, problem text).
def _paper_truncated(d: Path):
    _truncate(d / "p_constraints_after_hcd.txt.gz")
    return d / "p_nodes.txt.gz", d / "p_constraints_after_hcd.txt.gz", None, "truncated or corrupt gzip"


def _paper_counts(d: Path):
    f = d / "p_constraints_after_hcd.txt.gz"
    line = _edit_gz(f, lambda s: s == "2,1,1,1,1", "2,1,1,1,2")
    return d / "p_nodes.txt.gz", f, line, "counts line says 7 constraints"


def _paper_node_count(d: Path):
    f = d / "p_nodes.txt.gz"
    line = _edit_gz(f, lambda s: s == str(N), str(N + 1))
    return f, f, line, f"header says {N + 1} nodes but {N} node lines follow"


def _paper_gep_line(label: str, new: str, problem: str):
    """A breaker that replaces the gep line of the paper constraints file with ``new``."""
    def breaker(d: Path):
        f = d / "p_constraints_after_hcd.txt.gz"
        return d / "p_nodes.txt.gz", f, _edit_gz(f, _gep_line, new), problem
    breaker.__name__ = f"_paper_{label}"
    return breaker


def _paper_hcd_id_too_large(d: Path):
    f = d / "p_hcd.txt.gz"
    line = _edit_gz(f, lambda s: s == "7,6", f"7,{N + 5}")
    return d / "p_nodes.txt.gz", f, line, f"node id {N + 5} outside [0, {N})"


def _paper_missing_constraints(d: Path):
    (d / "p_constraints_after_hcd.txt.gz").unlink()
    return d / "p_nodes.txt.gz", d / "p_nodes.txt.gz", None, "missing sibling file p_constraints_after_hcd"


def _paper_missing_hcd(d: Path):
    (d / "p_hcd.txt.gz").unlink()
    return d / "p_nodes.txt.gz", d / "p_nodes.txt.gz", None, "missing sibling file p_hcd"


def _paper_missing_nodes(d: Path):
    return d / "q_nodes.txt.gz", d / "q_nodes.txt.gz", None, "no such file"


def _acs_counts(d: Path):
    f = d / "p.acs.gz"
    line = _edit_gz(f, lambda s: s.startswith("andersen-constraints"),
                    gzip.open(f, "rt").readline().rstrip("\n").replace("copy=1", "copy=3"))
    return f, f, line, "header says copy=3 but the file has copy=1"


def _acs_gep_line(label: str, new: str, problem: str):
    """A breaker that replaces the gep line of the text dump with ``new``."""
    def breaker(d: Path):
        f = d / "p.acs.gz"
        return f, f, _edit_gz(f, lambda s: s.startswith("7 = 5 + 1"), new), problem
    breaker.__name__ = f"_acs_{label}"
    return breaker


def _acs_truncated(d: Path):
    _truncate(d / "p.acs.gz")
    return d / "p.acs.gz", d / "p.acs.gz", None, "truncated or corrupt gzip"


def _acs_bad_kind(d: Path):
    f = d / "p.acs.gz"
    line = _edit_gz(f, lambda s: s.startswith("node 4 "), "node 4 struct 0")
    return f, f, line, "unknown node kind 'struct'"


def _acs_huge_node_count(d: Path):
    # a header that claims 2^31 nodes in a file of a few hundred bytes: refused before allocating
    f = d / "p.acs.gz"
    line = _edit_gz(f, lambda s: s.startswith("andersen-constraints"),
                    gzip.open(f, "rt").readline().rstrip("\n").replace(f"nodes={N}", "nodes=2147483648"))
    return f, f, line, "header claims 2,147,483,"


def _npz_member_claims_more(d: Path):
    # an array header that claims 2^31 - 1 elements of a member that holds eight
    import zipfile

    f = d / "p.npz"
    members = {}
    with zipfile.ZipFile(f) as z:
        for name in z.namelist():
            members[name] = z.read(name)
    data = members["obj_size.npy"]
    hlen = int.from_bytes(data[8:10], "little")
    header = data[10:10 + hlen].decode("latin1")
    claimed = header.replace(f"({N},)", "(2147483647,)")
    claimed = claimed.rstrip("\n").rstrip(" ")
    claimed = claimed + " " * (hlen - 1 - len(claimed)) + "\n"
    members["obj_size.npy"] = data[:10] + claimed.encode("latin1") + data[10 + hlen:]
    with zipfile.ZipFile(f, "w") as z:
        for name, blob in members.items():
            z.writestr(name, blob)
    return f, f, None, "member 'obj_size' claims shape (2147483647,)"


def _npz_truncated(d: Path):
    _truncate(d / "p.npz")
    return d / "p.npz", d / "p.npz", None, "unreadable .npz"


def _unknown_format(d: Path):
    f = d / "p.xyz"
    f.write_text("1,2,3\n")
    return f, f, None, "unknown input format"


BREAKERS = [
    _paper_truncated, _paper_counts, _paper_node_count,
    _paper_gep_line("non_integer", "6,5,seven,4,1", "expected an integer, got 'seven'"),
    _paper_gep_line("id_too_large", f"6,5,{N},4,1", f"dst node id {N} outside [0, {N})"),
    _paper_gep_line("negative_offset", "6,5,7,4,-1", "offset -1 outside"),
    _paper_gep_line("oversize_offset", "6,5,7,4,2000", "offset 2000 outside"),
    _paper_hcd_id_too_large, _paper_missing_constraints, _paper_missing_hcd, _paper_missing_nodes,
    _acs_counts,
    _acs_gep_line("non_integer", "7 = 5 + one", "offset: expected an integer, got 'one'"),
    _acs_gep_line("id_too_large", f"7 = {N + 1} + 1", f"node id {N + 1} outside [0, {N})"),
    _acs_gep_line("negative_offset", "7 = 5 + -2", "gep offset -2 outside"),
    _acs_gep_line("oversize_offset", f"7 = 5 + {N}", f"gep offset {N} outside [0, {N})"),
    _acs_truncated, _acs_bad_kind, _acs_huge_node_count, _npz_truncated, _npz_member_claims_more,
    _unknown_format,
]


@pytest.fixture
def dumps(tmp_path: Path) -> Path:
    d = tmp_path / "in"
    d.mkdir()
    cs = _good_set()
    for name in ("p_nodes.txt.gz", "p.acs.gz", "p.npz"):
        io.save(cs, d / name)
    return d


def test_the_good_dumps_solve(dumps: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    for name in ("p_nodes.txt.gz", "p.acs.gz", "p.npz"):
        assert main(["solve", str(dumps / name), "--backend", "reference", "-o", str(tmp_path / "s.npz")]) == 0


@pytest.mark.parametrize("command", ["solve", "convert", "info"])
@pytest.mark.parametrize("breaker", BREAKERS, ids=[b.__name__.lstrip("_") for b in BREAKERS])
def test_bad_input(breaker, command: str, dumps: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    given, culprit, line, problem = breaker(dumps)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / ("solution.npz" if command == "solve" else "converted.acs")
    argv = [command, str(given)] + ([] if command == "info" else ["-o", str(out)])
    if command == "solve":
        argv += ["--backend", "reference"]
    assert main(argv) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    err_lines = captured.err.splitlines()
    assert len(err_lines) == 1, captured.err
    where = f"{culprit}:{line}: " if line is not None else f"{culprit}: "
    assert err_lines[0].startswith(f"andersen-gpu: error: {where}"), err_lines[0]
    assert problem in err_lines[0]
    assert "Traceback" not in captured.err + captured.out
    assert list(out_dir.iterdir()) == []


def test_bad_output_name_is_refused_before_reading(dumps: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "solution.json"
    assert main(["solve", str(dumps / "p.npz"), "--backend", "reference", "-o", str(out)]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err.splitlines()
    assert err == [f"andersen-gpu: error: {out}: cannot tell the solution format from the name "
                   "(expected .npz, .txt or .txt.gz)"]
    assert not out.exists()


def test_reference_solution_claiming_more_nodes_than_memory(dumps: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture) -> None:
    soln = tmp_path / "p_correct_soln_001.txt"
    soln.write_text("2147483647999\n[0, 1] => [2]\n")
    assert main(["solve", str(dumps / "p.npz"), "--backend", "reference",
                 "--verify-against", str(soln)]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"andersen-gpu: error: {soln}:1: the variable count "), err
    assert "more than the" in err[0] and "available" in err[0]


def test_bad_reference_solution(dumps: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    soln = tmp_path / "p_correct_soln_001.txt"
    soln.write_text(f"{N}\n[0, 1] => [2]\n[3] => [oops]\n")
    assert main(["solve", str(dumps / "p.npz"), "--backend", "reference",
                 "--verify-against", str(soln)]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"andersen-gpu: error: {soln}:3: ")
