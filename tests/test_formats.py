"""Round trips of every constraint-set format, format detection, and the paper writers."""

from __future__ import annotations

import gzip
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from constraints import io, npz_format, paper_format, text_format
from constraints.errors import InputError
from constraints.model import ConstraintSet, NodeKind
from strategies import constraint_sets

OUR_SUFFIXES = ("x.acs", "x.acs.gz", "x.npz")
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def labelled_sets(draw) -> ConstraintSet:
    """Random sets, sometimes with free-text names and locations (quotes, '#', unicode, newlines)."""
    cs = draw(constraint_sets(with_names=draw(st.booleans())))
    text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
    changes = {}
    if draw(st.booleans()):
        changes["names"] = draw(st.lists(text, min_size=cs.n_nodes, max_size=cs.n_nodes))
    if draw(st.booleans()):
        changes["locations"] = draw(st.lists(text, min_size=cs.n_nodes, max_size=cs.n_nodes))
    if draw(st.booleans()) and cs.n_nodes:
        k = draw(st.integers(0, 3))
        node = st.integers(0, cs.n_nodes - 1)
        changes["hcd_ptr"] = draw(st.lists(node, min_size=k, max_size=k))
        changes["hcd_target"] = draw(st.lists(node, min_size=k, max_size=k))
    return cs.replace(**changes) if changes else cs


def _assert_identical(a: ConstraintSet, b: ConstraintSet) -> None:
    """Equal, and equal in the details ``==`` glosses over (None versus identity merges)."""
    assert a == b
    assert (a.offline_rep is None) == (b.offline_rep is None)
    assert a.names == b.names and a.locations == b.locations


@FAST
@given(cs=labelled_sets())
@pytest.mark.parametrize("name", OUR_SUFFIXES)
def test_our_formats_round_trip(name: str, cs: ConstraintSet) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / name
        assert io.save(cs, path) == [path]
        _assert_identical(io.load(path), cs)
        assert [p.name for p in Path(d).iterdir()] == [name]  # no temp files left


def _paper_projection(cs: ConstraintSet) -> ConstraintSet:
    """What the paper format can hold: i2p at node 1, object/function kinds only, no names, no
    field-insensitive objects, no call geps."""
    n = cs.n_nodes
    i2p = 1 if n > 1 else -1
    in_object = np.flatnonzero((cs.kind == NodeKind.OBJECT) | (cs.kind == NodeKind.FIELD))
    last_obj = int(in_object[-1]) if in_object.size else -1
    kind = np.where(np.arange(n) <= last_obj, NodeKind.OBJECT, NodeKind.VALUE).astype(np.int8)
    kind[cs.kind == NodeKind.FUNCTION] = NodeKind.FUNCTION
    none = np.zeros(0, np.int32)
    return cs.replace(int_to_pointer=i2p, kind=kind, names=None, locations=None, field_insensitive=none,
                      call_dst=none, call_src=none, call_offset=none, call_geps=False)


@FAST
@given(cs=labelled_sets(), gz=st.booleans())
def test_paper_format_round_trip(cs: ConstraintSet, gz: bool) -> None:
    cs = _paper_projection(cs)
    with tempfile.TemporaryDirectory() as d:
        nodes = Path(d) / ("p_nodes.txt.gz" if gz else "p_nodes.txt")
        written = io.save(cs, nodes)
        assert sorted(p.name for p in written) == sorted(p.name for p in Path(d).iterdir())
        assert io.load(nodes) == cs


def test_walk_geps_only_in_npz(tmp_path: Path) -> None:
    # a preprocessed set's walk geps: npz keeps them, the text and paper formats refuse the set
    # (they have no line for them) rather than write a set with a different solution
    cs = ConstraintSet.from_lists(4, obj_size={1: 1, 2: 2}, addr=[(0, 2)], int_to_pointer=1,
                                  walk_dst=[3], walk_src=[0], walk_offset=[1])
    io.save(cs, tmp_path / "w.npz")
    assert io.load(tmp_path / "w.npz") == cs
    for name in ("w.acs", "B_nodes.txt"):
        with pytest.raises(InputError, match="walk geps"):
            io.save(cs, tmp_path / name)
        assert not (tmp_path / name).exists()
    # a set without walks writes no walk members (older readers and dumps agree)
    plain = cs.replace(walk_dst=[], walk_src=[], walk_offset=[])
    npz_format.write_npz(plain, tmp_path / "p.npz")
    assert not any(k.startswith("walk") for k in np.load(tmp_path / "p.npz").files)


def test_paper_writer_without_hcd_file(tmp_path: Path) -> None:
    cs = ConstraintSet.from_lists(4, obj_size={2: 2}, addr=[(0, 2)], gep=[(3, 0, 1)], int_to_pointer=1)
    written = paper_format.write_paper(cs, tmp_path / "q_nodes.txt", use_hcd=False)
    assert sorted(p.name for p in written) == ["q_constraints.txt", "q_nodes.txt"]
    assert paper_format.read_paper(tmp_path / "q_nodes.txt", use_hcd=False) == _paper_projection(cs)


@pytest.mark.parametrize("change, problem", [
    ({"int_to_pointer": 2}, "int-to-pointer"),
    ({"offline_rep": [0, 0, 2, 3]}, "offline merges"),
])
def test_paper_writer_refuses_what_it_cannot_hold(tmp_path: Path, change: dict, problem: str) -> None:
    cs = ConstraintSet.from_lists(4, obj_size={2: 2}, addr=[(0, 2)], int_to_pointer=1).replace(**change)
    with pytest.raises(InputError, match=problem):
        paper_format.write_paper(cs, tmp_path / "r_nodes.txt", use_hcd="offline_rep" not in change)
    assert list(tmp_path.iterdir()) == []


def test_paper_writer_refuses_large_offsets(tmp_path: Path) -> None:
    n = 1100
    cs = ConstraintSet.from_lists(n, obj_size={2: 1050}, addr=[(0, 2)], gep=[(1, 0, 1030)], int_to_pointer=1)
    with pytest.raises(InputError, match="offset 1030"):
        io.save(cs, tmp_path / "big_nodes.txt")
    assert list(tmp_path.iterdir()) == []


def test_real_paper_dump_survives_every_format(paper_inputs: Path, tmp_path: Path) -> None:
    cs = io.load(paper_inputs / "ex_nodes.txt.gz")
    assert cs.n_nodes == 11078 and cs.n_constraints == 8681
    for name in ("ex.acs.gz", "ex.npz", "ex_nodes.txt.gz"):
        io.save(cs, tmp_path / name)
        assert io.load(tmp_path / name) == cs, name


# ----------------------------------------------------------- the text format
def test_text_format_accepts_free_layout(tmp_path: Path) -> None:
    path = tmp_path / "free.acs"
    path.write_text(
        "# a comment before the header\n"
        "andersen-constraints 1 nodes=4 addr=1 copy=1 load=1 store=1 gep=1 hcd=1 names=1  # trailing\n"
        "node 0 object 2 name=\"s # not a comment\"\n"
        "node 1 field 0\n"
        "node 2 value 0 name=\"p\"   # comment\n"
        "node 3 value 0\n"
        "\n"
        "*2=3\n"
        "3 = *2\n"
        "2 = &0  # p = &s\n"
        "hcd 2 3\n"
        "  3 =   2 +1\n"
        "3 = 2\n")
    cs = io.load(path)
    expected = ConstraintSet.from_lists(4, obj_size={0: 2}, kind=[1, 2, 0, 0], addr=[(2, 0)], copy=[(3, 2)],
                                        load=[(3, 2)], store=[(2, 3)], gep=[(3, 2, 1)],
                                        hcd_ptr=[2], hcd_target=[3], names=["s # not a comment", "", "p", ""])
    _assert_identical(cs, expected)


def test_text_writer_comments_constraints_with_names(tmp_path: Path) -> None:
    cs = ConstraintSet.from_lists(3, obj_size={0: 1}, addr=[(1, 0)], gep=[(2, 1, 0)], names=["o", "p", "q"])
    text_format.write_text(cs, tmp_path / "c.acs")
    lines = (tmp_path / "c.acs").read_text().splitlines()
    assert lines[0] == ("andersen-constraints 1 nodes=3 addr=1 copy=0 load=0 store=0 gep=1 hcd=0 "
                        "int_to_pointer=-1 names=1")
    assert any(line.startswith("1 = &0") and line.endswith("# p = &o") for line in lines)
    assert any(line.startswith("2 = 1 + 0") and line.endswith("# q = p + 0") for line in lines)


def test_shipped_example_is_our_text_format() -> None:
    example = Path(__file__).resolve().parent.parent / "examples" / "linked_list.acs"
    cs = io.load(example)
    assert cs.names is not None and cs.node_id("main:%r") == 31
    assert 20 <= cs.n_nodes <= 40


# --------------------------------------------------------------- detection
@pytest.mark.parametrize("name, fmt", [
    ("a.acs", "acs"), ("a.acs.gz", "acs"), ("a.npz", "npz"), ("gcc_nodes.txt.gz", "paper"),
    ("gcc_nodes.txt", "paper"), ("prog.bc", "llvm"), ("prog.ll", "llvm"), ("prog.c", "llvm"),
    ("prog.cc", "llvm"), ("prog.cpp", "llvm"),
])
def test_detect_format_by_name(name: str, fmt: str) -> None:
    assert io.detect_format(name) == fmt


def test_detect_format_sniffs_our_files_under_other_names(tmp_path: Path) -> None:
    cs = ConstraintSet.from_lists(3, obj_size={2: 1}, addr=[(0, 2)])
    text_format.write_text(cs, tmp_path / "t.acs.gz")
    npz_format.write_npz(cs, tmp_path / "n.npz")
    (tmp_path / "t.acs.gz").rename(tmp_path / "t.dump")
    (tmp_path / "n.npz").rename(tmp_path / "n.bin")
    assert io.detect_format(tmp_path / "t.dump") == "acs"
    assert io.detect_format(tmp_path / "n.bin") == "npz"
    assert io.load(tmp_path / "t.dump") == cs and io.load(tmp_path / "n.bin") == cs


def test_unknown_format_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mystery.xyz"
    path.write_text("hello\n")
    with pytest.raises(InputError) as info:
        io.load(path)
    assert info.value.source == str(path) and "unknown input format" in info.value.problem


def test_unknown_output_format(tmp_path: Path) -> None:
    cs = ConstraintSet.from_lists(1)
    with pytest.raises(InputError, match="cannot tell the output format"):
        io.save(cs, tmp_path / "out.json")
    with pytest.raises(InputError, match="unknown output format"):
        io.save(cs, tmp_path / "out.acs", format="yaml")


def test_llvm_input_without_front_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "constraints.llvm", None)  # import now fails
    path = tmp_path / "prog.c"
    path.write_text("int main(void) { return 0; }\n")
    with pytest.raises(InputError, match="LLVM input support not installed") as info:
        io.load(path)
    assert info.value.source == str(path)


def test_llvm_input_dispatches_to_front_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cs = ConstraintSet.from_lists(2)
    calls = []

    class FakeFrontEnd:
        @staticmethod
        def extract(paths):
            calls.append(paths)
            return cs

    monkeypatch.setitem(sys.modules, "constraints.llvm", FakeFrontEnd)
    assert io.load(tmp_path / "prog.ll") is cs
    assert calls == [[str(tmp_path / "prog.ll")]]


# ---------------------------------------------------------------- progress
def test_progress_bar_on_request(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    cs = ConstraintSet.from_lists(3, obj_size={2: 1}, kind=[1, 1, 1], addr=[(0, 2)], int_to_pointer=1)
    io.save(cs, tmp_path / "a.acs")
    io.save(cs, tmp_path / "a_nodes.txt")
    for path in (tmp_path / "a.acs", tmp_path / "a_nodes.txt"):
        assert io.load(path, progress=True) == cs
        assert "%|" in capsys.readouterr().err  # a tqdm bar was drawn
        assert io.load(path, progress=False) == cs
        assert capsys.readouterr().err == ""


# ------------------------------------------------------------------- npz
def test_npz_rejects_other_archives(tmp_path: Path) -> None:
    np.savez(tmp_path / "other.npz", a=np.arange(3))
    with pytest.raises(InputError, match="not an andersen-gpu constraint set"):
        io.load(tmp_path / "other.npz")


def test_npz_rejects_truncated_archive(tmp_path: Path) -> None:
    cs = ConstraintSet.from_lists(50, obj_size={2: 1}, addr=[(0, 2)] * 40, names=[f"n{i}" for i in range(50)])
    io.save(cs, tmp_path / "a.npz")
    data = (tmp_path / "a.npz").read_bytes()
    (tmp_path / "a.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="unreadable .npz") as info:
        io.load(tmp_path / "a.npz")
    assert info.value.source == str(tmp_path / "a.npz")


def test_gzip_text_survives_reading_twice(tmp_path: Path) -> None:
    cs = ConstraintSet.from_lists(2, addr=[(0, 1)])
    io.save(cs, tmp_path / "g.acs.gz")
    assert gzip.open(tmp_path / "g.acs.gz", "rt").readline().startswith("andersen-constraints 1")
    assert io.load(tmp_path / "g.acs.gz") == io.load(tmp_path / "g.acs.gz") == cs


def test_field_insensitive_objects_in_acs_and_npz(tmp_path: Path) -> None:
    # node 1 is field-insensitive: .acs writes it as fi=1, npz as a version-2 archive (a reader of
    # version 1 refuses it rather than drop the objects); the paper format refuses the set
    cs = ConstraintSet.from_lists(4, obj_size={1: 1, 2: 2}, addr=[(0, 1)], gep=[(3, 0, 1)], int_to_pointer=1,
                                  field_insensitive=[1])
    text = "".join(text_format.format_text(cs))
    assert "\nnode 1 object 1 fi=1\n" in text and text.count(" fi=1\n") == 1
    for name in ("f.acs", "f.npz"):
        io.save(cs, tmp_path / name)
        back = io.load(tmp_path / name)
        assert back == cs and back.field_insensitive.tolist() == [1]
    assert str(np.load(tmp_path / "f.npz")["format"]) == npz_format.FORMAT_TAG_FI
    with pytest.raises(InputError, match="field-insensitive"):
        io.save(cs, tmp_path / "F_nodes.txt")
    assert not (tmp_path / "F_nodes.txt").exists()
    plain = cs.replace(field_insensitive=[])
    npz_format.write_npz(plain, tmp_path / "p.npz")
    with np.load(tmp_path / "p.npz") as z:
        assert str(z["format"]) == npz_format.FORMAT_TAG and "field_insensitive" not in z.files


@pytest.mark.parametrize("line, message", [
    ("node 1 object 1 fi=2", "fi=2"),
    ("node 1 object 2 fi=1", "size 1, not 2"),
    ("node 1 value 0 fi=1", "size 1, not 0"),
])
def test_field_insensitive_bad_text(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.acs"
    path.write_text("andersen-constraints 1 nodes=3 addr=0 copy=0 load=0 store=0 gep=0 hcd=0\n"
                    f"node 0 value 0\n{line}\nnode 2 value 0\n")
    with pytest.raises(InputError, match=message):
        io.load(path)


def test_field_insensitive_validation() -> None:
    with pytest.raises(InputError, match="outside"):
        ConstraintSet.from_lists(2, obj_size={0: 1}, field_insensitive=[2])
    with pytest.raises(InputError, match="ascending and distinct"):
        ConstraintSet.from_lists(3, obj_size={0: 1, 1: 1}, field_insensitive=[1, 0])
