"""Output files (issue 21, items 2 and 5): refused before any work when they would destroy an
input or cannot be written; written with the umask's mode or the replaced file's; through a
symlink to its target; in groups, all or none."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import andersen_gpu.commands.solve as solve_command
from andersen_gpu.cli import ExitCode, main
from constraints import io, paper_format
from constraints.model import ConstraintSet

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "linked_list.acs"


def _set() -> ConstraintSet:
    return ConstraintSet.from_lists(4, obj_size={2: 1, 3: 1}, addr=[(0, 2), (1, 3)], copy=[(1, 0)],
                                    int_to_pointer=-1, names=["p", "q", "o", "t"])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """in.acs, in.npz and a paper dump p_* (nodes, both constraint files, hcd, a solution)."""
    cs = _set()
    io.save(cs, tmp_path / "in.acs")
    io.save(cs, tmp_path / "in.npz")
    paper = cs.replace(names=None, int_to_pointer=1)
    paper_format.write_paper(paper, tmp_path / "p_nodes.txt.gz")
    paper_format.write_paper(paper, tmp_path / "p_nodes.txt.gz", use_hcd=False)
    (tmp_path / "p_correct_soln_001.txt.gz").write_bytes(b"")
    return tmp_path


def _no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any solve or load fail the test: a refused output must be refused before them."""
    def forbidden(*args, **kwargs):
        raise AssertionError("work started before the output was checked")

    monkeypatch.setattr(solve_command, "solve", forbidden)
    monkeypatch.setattr(solve_command, "load_input", forbidden)
    monkeypatch.setattr(io, "load", forbidden)


def _hard_link(d: Path) -> str:
    os.link(d / "in.npz", d / "hard.npz")
    return "hard.npz"


def _symlink(d: Path) -> str:
    os.symlink(d / "in.npz", d / "soft.npz")
    return "soft.npz"


def _folder(d: Path) -> str:
    (d / "dir.npz").mkdir()
    return "dir.npz"


# (id, command line with {d} for the folder, what to do first (returns nothing or a name), problem)
REFUSED = [
    ("solve-onto-its-input", ["solve", "{d}/in.npz", "-o", "{d}/in.npz"], None, "output is the input"),
    ("solve-onto-a-hard-link-of-its-input", ["solve", "{d}/in.npz", "-o", "{d}/hard.npz"], _hard_link,
     "output is the input"),
    ("solve-onto-a-symlink-to-its-input", ["solve", "{d}/in.npz", "-o", "{d}/soft.npz"], _symlink,
     "output is the input"),
    ("solve-onto-the-paper-nodes-file", ["solve", "{d}/p_nodes.txt.gz", "-o", "{d}/p_nodes.txt.gz"], None,
     "output is the input"),
    ("solve-onto-an-unused-paper-sibling", ["solve", "{d}/p_nodes.txt.gz", "-o", "{d}/p_constraints.txt.gz"],
     None, "output is the input"),
    ("solve-onto-the-paper-solution", ["solve", "{d}/p_nodes.txt.gz", "-o", "{d}/p_correct_soln_001.txt.gz"],
     None, "output is the input"),
    ("solve-onto-the-solution-it-checks", ["solve", "{d}/in.npz", "-o", "{d}/s.txt", "--verify-against",
                                           "{d}/s.txt"], lambda d: (d / "s.txt").write_text("4\n"),
     "output is the input"),
    ("solve-into-a-missing-folder", ["solve", "{d}/in.npz", "-o", "{d}/no/such/s.npz"], None,
     "folder {d}/no/such does not exist"),
    ("solve-onto-a-folder", ["solve", "{d}/in.npz", "-o", "{d}/dir.npz"], _folder, "output is a folder"),
    ("solve-into-a-file-as-folder", ["solve", "{d}/in.npz", "-o", "{d}/in.acs/s.npz"], None,
     "folder {d}/in.acs is not a folder"),
    ("convert-onto-its-input", ["convert", "{d}/in.acs", "-o", "{d}/in.acs"], None, "output is the input"),
    ("convert-paper-onto-itself", ["convert", "{d}/p_nodes.txt.gz", "--no-hcd", "-o", "{d}/p_nodes.txt.gz"],
     None, "output is the input"),
    ("convert-onto-a-sibling-it-writes", ["convert", "{d}/in.npz", "-o", "{d}/in_nodes.txt"],
     lambda d: os.symlink(d / "in.npz", d / "in_hcd.txt"), "output is the input"),
    ("convert-into-a-missing-folder", ["convert", "{d}/in.acs", "-o", "{d}/nope/x.npz"], None,
     "does not exist"),
    ("extract-onto-its-input", ["extract", "{d}/prog.c", "-o", "{d}/prog.c.acs"],
     lambda d: os.symlink(d / "prog.c", d / "prog.c.acs") or (d / "prog.c").write_text("int main(){}\n"),
     "output is the input"),
    ("annotate-onto-its-input", ["annotate", "{d}/prog.ll", "-o", "{d}/prog.ll"],
     lambda d: (d / "prog.ll").write_text("; empty\n"), "output is the input"),
    ("annotate-json-onto-the-output", ["annotate", "{d}/prog.ll", "-o", "{d}/a.ll", "--json", "{d}/a.ll"],
     lambda d: (d / "prog.ll").write_text("; empty\n"), "output is also the output"),
    ("alias-table-onto-its-input", ["alias", "{d}/prog.c", "-o", "{d}/prog.jsonl"],
     lambda d: os.symlink(d / "prog.c", d / "prog.sets.jsonl") or (d / "prog.c").write_text("int main(){}\n"),
     "output is the input"),
]


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
def test_bad_output_is_refused_before_any_work(case, folder: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture) -> None:
    _, argv, prepare, problem = case
    if prepare is not None:
        prepare(folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    _no_work(monkeypatch)
    argv = [a.format(d=folder) for a in argv]
    assert main(argv) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("andersen-gpu: error: "), err
    assert problem.format(d=folder) in err[0]
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before  # nothing touched


def test_new_files_take_the_umask_and_replaced_files_keep_their_mode(folder: Path) -> None:
    old = os.umask(0o027)
    try:
        out = folder / "s.npz"
        assert main(["solve", str(folder / "in.npz"), "--backend", "reference", "-o", str(out)]) == ExitCode.OK
        assert stat.S_IMODE(out.stat().st_mode) == 0o640
        out.chmod(0o604)
        assert main(["solve", str(folder / "in.npz"), "--backend", "reference", "-o", str(out)]) == ExitCode.OK
        assert stat.S_IMODE(out.stat().st_mode) == 0o604
        paper = folder / "q_nodes.txt"
        assert main(["convert", str(folder / "p_nodes.txt.gz"), "-o", str(paper)]) == ExitCode.OK
        assert {stat.S_IMODE(p.stat().st_mode) for p in folder.glob("q_*")} == {0o640}
    finally:
        os.umask(old)


def test_a_symlinked_output_is_written_through(folder: Path) -> None:
    (folder / "real").mkdir()
    target = folder / "real" / "s.txt"
    target.write_text("old\n")
    link = folder / "s.txt"
    link.symlink_to(target)
    assert main(["solve", str(folder / "in.npz"), "--backend", "reference", "-o", str(link)]) == ExitCode.OK
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith("4\n")
    assert sorted(p.name for p in (folder / "real").iterdir()) == ["s.txt"]  # no temp file left beside it


def test_a_group_of_outputs_appears_whole_or_not_at_all(tmp_path: Path) -> None:
    from constraints.atomic import atomic_outputs

    names = [tmp_path / n for n in ("a.txt", "b.txt.gz", "c.txt")]
    names[0].write_text("stale a\n")
    with pytest.raises(RuntimeError):
        with atomic_outputs(names) as (a, b, c):
            a.write("new a\n")
            b.write("new b\n")
            raise RuntimeError("the third table failed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    assert names[0].read_text() == "stale a\n"
    with atomic_outputs(names) as (a, b, c):
        for fh, text in zip((a, b, c), ("A", "B", "C")):
            fh.write(text)
    import gzip
    assert [names[0].read_text(), gzip.open(names[1], "rt").read(), names[2].read_text()] == ["A", "B", "C"]


def test_alias_writes_its_three_tables_as_a_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("pandas")
    from andersen_gpu.aliasfacts import tables

    src = ROOT / "tests" / "llvm" / "alloca_basic.c"
    if not src.is_file():
        pytest.skip("tests/llvm/alloca_basic.c missing")
    import shutil
    if shutil.which("clang-19") is None:
        pytest.skip("clang-19 not installed")
    out = tmp_path / "facts.jsonl"
    stale = {n: f"stale {n}\n" for n in ("facts.jsonl", "facts.sets.jsonl", "facts.pairs.jsonl")}
    for n, text in stale.items():
        (tmp_path / n).write_text(text)
    real = tables.tables

    def unwritable(facts):
        frames = real(facts)

        class Boom:
            columns = ["x"]

            def __getitem__(self, key):
                raise RuntimeError("cannot serialise the pairs table")
        frames["pairs"] = Boom()
        return frames

    monkeypatch.setattr(tables, "tables", unwritable)
    with pytest.raises(RuntimeError, match="pairs table"):
        main(["alias", str(src), "-o", str(out), "--backend", "reference"])
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == stale  # no new table beside stale ones
    monkeypatch.setattr(tables, "tables", real)
    assert main(["alias", str(src), "-o", str(out), "--backend", "reference"]) == ExitCode.OK
    assert all((tmp_path / n).read_text() != text for n, text in stale.items())
