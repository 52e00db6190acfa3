"""The LLVM front end: names, layout, models, reports, the CLI, and bad input."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from andersen_gpu.backends.reference import solve
from andersen_gpu.cli import ExitCode, main
from constraints.errors import InputError
from constraints.llvm import extract, extract_with_stats
from constraints.model import NodeKind

needs_clang = pytest.mark.skipif(shutil.which("clang-19") is None, reason="clang-19 not installed")

IR = """
%struct.S = type { i32, ptr, { ptr, [4 x ptr] } }
@g = global %struct.S { i32 1, ptr @h, { ptr, [4 x ptr] } { ptr @f, [4 x ptr] [ptr null, ptr @h, ptr null, ptr null] } }
@h = global i32 0
@fp = global ptr @f

declare ptr @malloc(i64)
declare void @mystery(ptr)

define ptr @f(ptr %a, ptr %b) {
entry:
  %slot = alloca ptr
  store ptr %a, ptr %slot
  %v = load ptr, ptr %slot
  %m = call ptr @malloc(i64 32)
  call void @mystery(ptr %m)
  ret ptr %v
}

define i32 @main() {
entry:
  %p = getelementptr inbounds %struct.S, ptr @g, i32 0, i32 2, i32 1, i64 3
  %fn = load ptr, ptr @fp
  %r = call ptr %fn(ptr @h, ptr null)
  ret i32 0
}
"""


@pytest.fixture(scope="module")
def ir_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("ir") / "prog.ll"
    path.write_text(IR)
    return path


def test_names_kinds_and_layout(ir_file):
    cs, stats = extract_with_stats([ir_file])
    g = cs.node_id("*@g")
    # i32, ptr, { ptr, [4 x ptr] (one slot) }: 4 slots, consecutive ids
    assert cs.obj_size[g] == 4 and cs.kind[g] == NodeKind.OBJECT
    assert [cs.names[g + k] for k in range(4)] == ["*@g", "*@g#1", "*@g#2", "*@g#3"]
    assert list(cs.obj_size[g:g + 4]) == [4, 3, 2, 1]
    assert cs.kind[cs.node_id("@g")] == NodeKind.VALUE
    f = cs.node_id("@f")
    assert cs.kind[f] == NodeKind.FUNCTION
    assert [cs.names[f + k] for k in range(4)] == ["@f", "@f#ret", "@f#arg0", "@f#arg1"]
    for name in ("f:%a", "f:%slot", "*f:%slot", "*f:%m", "main:%p"):
        cs.node_id(name)
    assert stats.instructions == 10
    assert stats.unmodelled_calls == {"mystery": 1}


def test_solution_through_globals_and_indirect_call(ir_file):
    cs = extract([ir_file])
    sol = solve(cs)
    sol.names = cs.names
    assert sol.points_to_names("main:%p") == ["*@g#3"]        # array elements collapse onto one slot
    assert sol.points_to_names("*@g#3") == ["*@h"]
    assert sol.points_to_names("*@g#2") == ["@f"]
    assert sol.points_to_names("f:%a") == ["*@h"]              # the indirect call reached @f
    assert sol.points_to_names("main:%r") == ["*@h"]           # and its return came back
    assert sol.points_to_names("f:%m") == ["*f:%m"]
    assert cs.obj_size[cs.node_id("*f:%m")] <= 32              # a heap object of 32 bytes


def test_stats_report_lists_unmodelled(ir_file):
    _, stats = extract_with_stats([ir_file])
    text = "\n".join(stats.lines())
    assert "unmodelled external functions: 1 (1 calls)" in text and "mystery x1" in text


@needs_clang
def test_debug_locations_and_linking(tmp_path):
    a = tmp_path / "a.c"
    a.write_text("int *shared;\nint *get(void);\nint main(void) {\n  int *p = get();\n  return p == shared;\n}\n")
    b = tmp_path / "b.c"
    b.write_text("int x;\nextern int *shared;\nint *get(void) {\n  shared = &x;\n  return &x;\n}\n")
    cs = extract([a, b])
    sol = solve(cs)
    sol.names = cs.names
    assert sol.points_to_names("main:%call") == ["*@x"]
    assert cs.locations[cs.node_id("main:%call")].endswith("a.c:4")
    assert cs.locations[cs.node_id("*@x")].endswith("b.c:1")


@needs_clang
def test_cli_extract_and_check(tmp_path, capsys):
    src = tmp_path / "p.c"
    src.write_text('#include <stdlib.h>\nvoid NOALIAS(void*, void*);\n'
                   'int main(void) { int *a = malloc(4), *b = malloc(4); NOALIAS(a, b); return 0; }\n')
    out = tmp_path / "p.acs"
    assert main(["extract", str(src), "-o", str(out), "--stats", "--no-progress"]) == ExitCode.OK
    assert out.is_file()
    text = capsys.readouterr().out
    assert "unmodelled external functions: 0" in text and "constraints:" in text
    js = tmp_path / "r.json"
    assert main(["check-aliases", str(src), "--backend", "reference", "--json", str(js)]) == ExitCode.OK
    assert '"failed": 0' in js.read_text()
    bad = tmp_path / "bad.c"
    bad.write_text('void MAYALIAS(void*, void*);\nint x, y;\nint main(void) { MAYALIAS(&x, &y); return 0; }\n')
    assert main(["check-aliases", str(bad), "--backend", "reference"]) == ExitCode.CHECK_FAILED
    printed = capsys.readouterr().out
    # the location is the debug info's file name (its directory form depends on where clang ran)
    assert any(line.startswith("FAIL ") and "bad.c:3:" in line for line in printed.splitlines())
    assert "0 passed, 1 failed" in printed


def _bad_inputs(tmp_path):
    garbage = tmp_path / "garbage.bc"
    garbage.write_bytes(b"\x00\x01not bitcode at all")
    truncated = tmp_path / "truncated.bc"
    good = tmp_path / "good.ll"
    good.write_text(IR)
    whole = subprocess.run(["llvm-as-19", "-o", "-", str(good)], capture_output=True, check=True).stdout
    truncated.write_bytes(whole[:200])
    broken_c = tmp_path / "broken.c"
    broken_c.write_text("int main( { return 0; }\n")
    bad_ir = tmp_path / "bad.ll"
    bad_ir.write_text("define i32 @f( {\n")
    return [garbage, truncated, broken_c, bad_ir]


@needs_clang
def test_bad_input_exits_2_without_output(tmp_path, capsys):
    for path in _bad_inputs(tmp_path):
        out = tmp_path / (path.stem + ".acs")
        code = main(["extract", str(path), "-o", str(out), "--no-progress"])
        err = capsys.readouterr().err
        assert code == ExitCode.BAD_INPUT, path
        assert not out.exists()
        assert len(err.strip().splitlines()) == 1 and path.name in err and "Traceback" not in err


def test_missing_clang_is_bad_input(tmp_path, monkeypatch, capsys):
    from constraints.llvm import inputs
    monkeypatch.setattr(inputs, "CLANG", "clang-19-that-is-not-installed")
    src = tmp_path / "p.c"
    src.write_text("int main(void) { return 0; }\n")
    with pytest.raises(InputError, match="not found on PATH"):
        extract([src])
    assert main(["extract", str(src), "-o", str(tmp_path / "p.acs"), "--no-progress"]) == ExitCode.BAD_INPUT
    assert not (tmp_path / "p.acs").exists()


def test_every_node_named_and_sizes_consistent(ir_file):
    cs = extract([ir_file])
    assert all(cs.names)
    objs = np.flatnonzero(cs.kind == NodeKind.OBJECT)
    for z in objs:
        k = cs.obj_size[z]
        assert all(cs.kind[z + j] == NodeKind.FIELD and cs.obj_size[z + j] == k - j for j in range(1, k))


HEAP_IR = """
%struct.Big = type { ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr }
@table = global %struct.Big zeroinitializer
declare ptr @malloc(i64)
define i32 @main() {
  %small = call ptr @malloc(i64 16)
  %big = call ptr @malloc(i64 64)
  %any = call ptr @malloc(i64 %n)
  store ptr %small, ptr @table          ; each leaves main: its use does not bound its slots
  %t1 = getelementptr inbounds %struct.Big, ptr @table, i32 0, i32 1
  store ptr %big, ptr %t1
  %t2 = getelementptr inbounds %struct.Big, ptr @table, i32 0, i32 2
  store ptr %any, ptr %t2
  ret i32 0
}
"""


def test_heap_object_has_the_slots_its_bytes_can_hold(tmp_path):
    """16 bytes hold at most two of the program's slots (two pointers), not 16:
    a constant-size block gets the most slots any type places in that many bytes."""
    path = tmp_path / "heap.ll"
    path.write_text(HEAP_IR.replace("i64 %n", "i64 1000"))
    cs = extract([path])
    assert cs.obj_size[cs.node_id("*main:%small")] == 2
    assert cs.obj_size[cs.node_id("*main:%big")] == 8
    assert cs.obj_size[cs.node_id("*main:%any")] == 8     # never more than the largest struct


def test_literal_struct_geps_bound_heap_objects(tmp_path):
    """A heap block indexed through a literal struct type ({ptr, ptr, ptr}) keeps
    that type's slots even when no named type is that large."""
    path = tmp_path / "lit.ll"
    path.write_text("""
declare ptr @malloc(i64)
define ptr @main() {
  %h = call ptr @malloc(i64 24)
  %f = getelementptr inbounds { ptr, ptr, ptr }, ptr %h, i32 0, i32 2
  store ptr %h, ptr %f
  %v = load ptr, ptr %f
  ret ptr %v
}
""")
    cs = extract([path])
    sol = solve(cs)
    sol.names = cs.names
    assert cs.obj_size[cs.node_id("*main:%h")] == 3
    assert sol.points_to_names("main:%v") == ["*main:%h"]


def test_unknown_layouts_are_field_insensitive(tmp_path):
    """A heap block of unknown size whose use is not known (it leaves main) and a char buffer (an
    array of scalars: one declared slot, the rest a tail) are one field-insensitive node each; a
    constant-size block and a struct keep their slots. A struct field of either lands on it."""
    path = tmp_path / "fi.ll"
    path.write_text(HEAP_IR.replace("@main()", "@main(i64 %n)").replace("  ret i32 0\n}", """  %buf = alloca [64 x i8]
  %f = getelementptr inbounds %struct.Big, ptr %any, i32 0, i32 5
  store ptr %buf, ptr %f
  %g = getelementptr inbounds %struct.Big, ptr %buf, i32 0, i32 3
  store ptr %small, ptr %g
  %v = load ptr, ptr %any
  %w = load ptr, ptr %buf
  ret i32 0
}"""))
    cs = extract([path])
    fi = {cs.names[z] for z in cs.field_insensitive}
    assert fi == {"*main:%any", "*main:%buf"}
    assert cs.obj_size[cs.node_id("*main:%any")] == 1 and cs.obj_size[cs.node_id("*main:%big")] == 8
    assert cs.obj_size[cs.node_id("*@table")] == 8
    sol = solve(cs)
    sol.names = cs.names
    assert sol.points_to_names("main:%f") == ["*main:%any"]
    assert sol.points_to_names("main:%v") == ["*main:%buf"]
    assert sol.points_to_names("main:%w") == ["*main:%small"]
