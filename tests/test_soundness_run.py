"""bench/soundness/run.py: a real run's accesses, traced to objects, checked against the facts.

The program below is compiled as the corpus is (clang-19 -O0, mem2reg), instrumented, run, and
checked: the objects its accesses touch are written out by hand, so a tracer that attributes an
address to the wrong object, or a check that cannot fail, is caught. A hand-removed pointee must
then be reported.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from bench.soundness.run import Log, _operands, _value, main, split_top, type_end

needs_llvm = pytest.mark.skipif(any(shutil.which(t) is None for t in ("clang-19", "clang++-19", "opt-19", "llvm-dis-19")),
                                reason="clang-19/opt-19/llvm-dis-19 not installed")

PROGRAM = r"""
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
struct S { int *a; int *b; char buf[16]; };
int g1, g2[4];
struct S gs = { &g1, 0 };
static jmp_buf env;
static int *pick(int c) { return c ? &g1 : g2; }
static void fill(struct S *d, const struct S *s) { memcpy(d, s, sizeof *d); }
static int deep(int n) { int here[8]; here[n & 7] = n; if (n == 0) longjmp(env, 1); return deep(n - 1) + here[n & 7]; }
static int same_depth(void) { int other[64]; for (int i = 0; i < 64; i++) other[i] = i; return other[5]; }
int main(int argc, char **argv) {
  int x = 3;
  struct S *s = malloc(sizeof *s);
  s->a = &x;
  s->b = pick(argc);
  *s->b = 5;
  struct S loc;
  fill(&loc, s);
  memset(loc.buf, 0, sizeof loc.buf);
  char cwd[256];
  char *d = getcwd(cwd, sizeof cwd);
  if (d != 0 && d[0] != '/') return 9;
  if (setjmp(env) == 0) deep(5);
  gs.b = s->a;
  free(s);
  return same_depth() + *gs.b == 8 ? 0 : 1;
}
"""


def _build(tmp: Path) -> Path:
    src = tmp / "t.c"
    src.write_text(PROGRAM)
    subprocess.run(["clang-19", "-O0", "-g", "-Xclang", "-disable-O0-optnone", "-fno-discard-value-names", "-c",
                    "-emit-llvm", str(src), "-o", str(tmp / "t0.bc")], check=True)
    subprocess.run(["opt-19", "-passes=mem2reg", str(tmp / "t0.bc"), "-o", str(tmp / "t.bc")], check=True)
    subprocess.run(["llvm-dis-19", str(tmp / "t.bc"), "-o", str(tmp / "t.ll")], check=True)
    out = tmp / "out"
    assert main(["build", str(tmp / "t.ll"), "-o", str(out), "--backend", "reference"]) == 0
    res = subprocess.run([str(out / "program")], env={"AG_LOG": str(out / "log")}, cwd=tmp)
    assert res.returncode == 0
    return out


def _observed(out: Path) -> dict[tuple[str, str, str], set[str]]:
    """{(function, kind, pointer): names of the objects its site touched}."""
    f = np.load(out / "facts.npz", allow_pickle=True)
    seen: dict = {}
    for s, z in Log(out / "log").count:
        key = (str(f["site_function"][s]), str(f["site_kind"][s]), str(f["site_pointer"][s]))
        seen.setdefault(key, set()).add(str(f["names"][z]))
    return seen


@needs_llvm
def test_a_run_touches_the_objects_written_out_and_all_are_in_the_facts(tmp_path: Path, capsys) -> None:
    out = _build(tmp_path)
    seen = _observed(out)
    assert seen[("main", "store", "%x")] == {"*main:%x"}
    assert seen[("main", "store", "%a")] == {"*main:%call"}                # s->a: the malloc'd S
    assert seen[("main", "load", "%b2")] == {"*main:%call"}                # s->b
    assert seen[("main", "store", "%0")] == {"*@g1"}                       # *s->b with argc == 1
    assert seen[("fill", "memcpy", "%d, %s")] == {"*main:%loc", "*main:%call"}
    assert seen[("main", "memset", "%arraydecay")] == {"*main:%loc"}
    # getcwd returns its buffer argument: the alloca's object, not getcwd's own
    assert seen[("main", "load", "%arrayidx")] == {"*main:%cwd"}          # d[0]
    # after the longjmp out of deep's frames, same_depth's array is its own object
    assert seen[("deep", "store", "%arrayidx")] == {"*deep:%here"}
    assert seen[("same_depth", "store", "%arrayidx")] == {"*same_depth:%other"}
    assert seen[("main", "store", "getelementptr inbounds (%struct.S, ptr @gs, i32 0, i32 1)")] == {"*@gs"}
    assert seen[("main", "load", "%3")] == {"*main:%x"}                    # *gs.b
    assert len(seen) == 15
    assert main(["check", str(out)]) == 0
    report = capsys.readouterr().out
    assert "not in the site's set: 0 pairs" in report and "the same bytes: 0" in report
    log = Log(out / "log")
    f = np.load(out / "facts.npz", allow_pickle=True)
    ranges = {(str(f["site_function"][s]), str(f["site_kind"][s]), str(f["site_pointer"][s]), str(f["names"][z])): r
              for (s, z), r in log.ranges.items()}
    assert ranges["main", "store", "%a", "*main:%call"] == {(0, 8)}          # s->a: 8 bytes at 0
    assert ranges["main", "store", "%b", "*main:%call"] == {(8, 8)}          # s->b
    assert ranges["fill", "memcpy", "%d, %s", "*main:%loc"] == {(0, 32)}     # sizeof(struct S)
    assert ranges["main", "memset", "%arraydecay", "*main:%loc"] == {(16, 16)}
    assert ranges["deep", "store", "%arrayidx", "*deep:%here"] == {(4 * k, 4) for k in range(6)}


@needs_llvm
def test_a_pointee_missing_from_the_facts_is_reported(tmp_path: Path, capsys) -> None:
    out = _build(tmp_path)
    f = dict(np.load(out / "facts.npz", allow_pickle=True))
    names = [str(n) for n in f["names"]]
    site = next(s for s in range(len(f["site_kind"]))
                if (f["site_function"][s], f["site_kind"][s], f["site_pointer"][s]) == ("main", "store", "%0"))
    g1 = names.index("*@g1")
    lo, hi = f["obj_indptr"][site], f["obj_indptr"][site + 1]
    objs = f["obj"][lo:hi]
    assert g1 in objs
    kept = objs[objs != g1]
    f["obj"] = np.concatenate([f["obj"][:lo], kept, f["obj"][hi:]])
    f["obj_indptr"] = np.concatenate([f["obj_indptr"][:site + 1], f["obj_indptr"][site + 1:] - 1])
    np.savez_compressed(out / "facts.npz", **f)
    assert main(["check", str(out)]) == 1
    report = capsys.readouterr().out
    assert "not in the site's set: 1 pairs at 1 sites" in report
    assert "main: store %0 (" in report and "t.c:19) touched *@g1 (1 times), set ['*@g2']" in report


def _site(f, key) -> int:
    return next(s for s in range(len(f["site_kind"]))
                if (f["site_function"][s], f["site_kind"][s], f["site_pointer"][s]) == key)


@needs_llvm
def test_two_noalias_accesses_that_touch_the_same_bytes_are_reported(tmp_path: Path, capsys) -> None:
    # s->a = &x (a store at byte 0 of the malloc'd S) and gs.b = s->a (a load of the same bytes):
    # give the load a set of the S's second slot only, and the facts call the two disjoint, while
    # the run touched bytes 0..8 through both (the object-level check is satisfied: same object)
    out = _build(tmp_path)
    f = dict(np.load(out / "facts.npz", allow_pickle=True))
    names = [str(n) for n in f["names"]]
    load = _site(f, ("main", "load", "%a13"))
    f["set_indices"] = np.append(f["set_indices"], names.index("*main:%call#1"))
    f["set_indptr"] = np.append(f["set_indptr"], f["set_indices"].size)
    f["site_set"] = f["site_set"].copy()
    f["site_set"][load] = f["set_indptr"].size - 2
    np.savez_compressed(out / "facts.npz", **f)
    assert main(["check", str(out)]) == 1
    report = capsys.readouterr().out
    assert "not in the site's set: 0 pairs" in report and "the same bytes: 1" in report
    assert re.search(r"main: store %a \(\S*t\.c:17\) and load %a13 \(\S*t\.c:27\) both touched bytes 0\.\.8 "
                     r"of \*main:%call$", report, re.M), report


def test_operands_are_read_off_the_instruction_line() -> None:
    gep = "getelementptr inbounds (%struct.M, ptr @m, i32 0, i32 3)"
    assert _operands(f"  %0 = load atomic i32, ptr {gep} monotonic, align 4", "load") == \
        ([gep], "ptrtoint (ptr getelementptr (i32, ptr null, i32 1) to i64)")
    assert _operands("  store volatile { ptr, i64 } %v, ptr %p, align 4", "store") == \
        (["%p"], "ptrtoint (ptr getelementptr ({ ptr, i64 }, ptr null, i32 1) to i64)")
    assert _operands("  %old = atomicrmw add ptr %c, i64 1 seq_cst, align 8", "atomicrmw") == \
        (["%c"], "ptrtoint (ptr getelementptr (i64, ptr null, i32 1) to i64)")
    assert _operands("  %r = cmpxchg weak ptr %q, ptr %a, ptr %b acq_rel monotonic, align 8", "cmpxchg")[0] == ["%q"]
    assert _operands("  call void @llvm.memset.p0.i64(ptr align 4 getelementptr inbounds ([16 x i32], ptr @prng, "
                     "i64 0, i64 4), i8 0, i64 44, i1 false), !dbg !7", "call") == \
        (["getelementptr inbounds ([16 x i32], ptr @prng, i64 0, i64 4)"], "44")
    assert _operands("  call void @llvm.memcpy.p0.p0.i32(ptr align 8 %d, ptr noundef nonnull align 8 %s, i32 %n, i1 false)",
                     "call") == (["%d", "%s"], "i32 %n")
    assert _value("ptr noundef byval(%struct.S) align 8 %arg") == "%arg"
    assert split_top('{ i32, ptr } { i32 1, ptr @g }, ptr "a,b"') == ["{ i32, ptr } { i32 1, ptr @g }", 'ptr "a,b"']
    assert [type_end(t) for t in ("[4 x { i8, ptr }] zeroinitializer", '%"s t" x', "ptr addrspace(1) @g")] == [17, 6, 16]


HOOKS_DRIVER = r"""
#include <stdint.h>
#include <stdlib.h>
uint64_t __ag_enter(void);
void __ag_leave(uint64_t);
void __ag_alloca(uint32_t, void *, uint64_t, uint64_t);
void __ag_heap(uint32_t, void *, uint32_t, uint64_t, void *, void *);
void __ag_access(uint32_t, void *, uint64_t);
static char *kept, *unwound;
__attribute__((noinline)) static void callee(void) {
  uint64_t t = __ag_enter();
  char buf[32];
  kept = buf;
  __ag_alloca(7, buf, 1, 32);
  __ag_access(1, buf + 4, 4);
  __ag_leave(t);
}
__attribute__((noinline)) static void left_by_a_throw(void) {   /* enters, never leaves */
  __ag_enter();
  char b[16];
  unwound = b;
  __ag_alloca(11, b, 1, 16);
}
int main(void) {
  uint64_t t = __ag_enter();
  callee();
  __ag_access(2, kept + 4, 4);                 /* callee's frame is gone: unresolved */
  char *p = malloc(64);
  __ag_heap(9, p, 1, 0, 0, 0);
  __ag_access(3, p + 8, 8);                    /* heap object 9, bytes 8..16 */
  free(p);                                     /* the runtime's free retires it */
  __ag_access(4, p + 8, 8);                    /* unresolved */
  char *q = malloc(16);
  __ag_heap(10, q, 0, 0, q, 0);                /* returned its argument: not an object */
  __ag_access(5, q, 1);                        /* unresolved */
  __ag_access(6, q, 0);                        /* zero length: counted apart */
  uint64_t g = __ag_enter();                   /* a callee frame (inlined, say) */
  left_by_a_throw();
  __ag_leave(g);                               /* pops the frame the throw left too */
  __ag_access(8, unwound, 1);                  /* unresolved */
  __ag_leave(t);
  return 0;
}
"""


@needs_llvm
def test_the_runtime_retires_frames_and_frees(tmp_path: Path) -> None:
    # the hooks called by hand: after a frame's leave, after free, after a frame an exception left
    # (popped with its caller's), an address is in no object; zero-length accesses are apart
    from bench.soundness.run import RUNTIME

    (tmp_path / "d.c").write_text(HOOKS_DRIVER)
    subprocess.run(["clang++-19", "-O2", "-c", str(RUNTIME), "-o", str(tmp_path / "rt.o")], check=True)
    subprocess.run(["clang-19", "-O0", str(tmp_path / "d.c"), str(tmp_path / "rt.o"), "-lstdc++",
                    "-o", str(tmp_path / "d")], check=True)
    subprocess.run([str(tmp_path / "d")], env={"AG_LOG": str(tmp_path / "log")}, check=True)
    log = Log(tmp_path / "log")
    assert (log.processes, log.accesses, log.unresolved, log.empty) == (1, 6, 4, 1)
    assert dict(log.count) == {(1, 7): 1, (3, 9): 1}
    assert log.ranges[1, 7] == {(4, 4)} and log.ranges[3, 9] == {(8, 8)}
