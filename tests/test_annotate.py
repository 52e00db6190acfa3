"""Annotated IR agrees with the facts under LLVM's own ScopedNoAliasAA.

For each alias-assertion program of ``tests/llvm`` (compiled like the front end
does: clang-19 -O0 -g, mem2reg, then ``llvm-dis-19``) and a program full of
unknown pointers, the annotated text is fed to
``opt-19 -passes=aa-eval -aa-pipeline=scoped-noalias-aa -evaluate-aa-metadata``:
every (load, store) and (store, store) pair must be NoAlias exactly when the
two location sets are known and disjoint.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from andersen_gpu.aliasfacts import analyze
from andersen_gpu.aliasfacts.aaeval import load_store_pairs, strip_metadata
from andersen_gpu.aliasfacts.annotate import annotate_text, site_lines
from andersen_gpu.cli import main
from constraints.errors import InputError

HERE = Path(__file__).resolve().parent / "llvm"
PROGRAMS = sorted(p for p in HERE.iterdir() if p.suffix in (".c", ".cc", ".ll"))
needs_llvm = pytest.mark.skipif(any(shutil.which(t) is None for t in ("clang-19", "opt-19", "llvm-dis-19")),
                                reason="clang-19/opt-19/llvm-dis-19 not installed")

# Pointers from unknown code (an unmodelled function's result, memory it was
# handed, integers) beside plain globals, fields, heap and a memcpy.
MIXED = r"""
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
struct pair { int *a; int *b; long n; };
extern int *mystery(void);
extern void scribble(struct pair *);
int g1, g2, garr[8];
struct pair gp;
int *sel(int c, int *x) { return c ? x : mystery(); }
void fill(struct pair *p, int *x, int *y) { p->a = x; p->b = y; p->n = 2; }
int work(int c, uintptr_t bits) {
  struct pair local, other;
  int *heap = malloc(4 * sizeof(int));
  fill(&local, &g1, heap);
  fill(&gp, &g2, garr);
  other.a = &g2; other.n = 1;
  *local.a = 1; *local.b = 2; local.n = 3;
  *gp.a = 4; gp.b[c] = 5; *other.a = 9;
  int *m = sel(c, &g1);
  *m = 6;
  int *i2p = (int *)bits;
  *i2p = 7;
  scribble(&local);
  memcpy(garr, heap, 8);
  memset(&gp, 0, sizeof gp);
  int s = g1 + g2 + garr[1] + heap[2] + (int)other.n;
  free(heap);
  return s;
}
"""


def to_text(src: Path, out: Path) -> Path:
    """``src`` as the front end compiles it, disassembled to IR text."""
    from constraints.llvm.inputs import compile_source

    if src.suffix == ".ll":
        return src
    bc = compile_source(src, out, ["-I", str(HERE)])
    ll = out / f"{src.stem}.ll"
    subprocess.run(["llvm-dis-19", str(bc), "-o", str(ll)], check=True)
    return ll


def check_consistent(ll: Path, out: Path):
    """Annotate ``ll``, run aa-eval, compare every pair with the facts; return (facts, text, pairs)."""
    text = ll.read_text()
    facts, _, _, _ = analyze([ll], backend="reference")
    annotated, stats = annotate_text(text, facts)
    path = out / f"{ll.stem}.annotated.ll"
    path.write_text(annotated)
    lines = text.split("\n")
    by_text: dict[tuple[str, str], list[int]] = {}
    for fname, line_of in site_lines(lines, facts).items():
        for i, li in line_of.items():
            by_text.setdefault((fname, strip_metadata(lines[li])), []).append(i)
    pairs = load_store_pairs(path)
    wrong = []
    for p in pairs:
        a, b = by_text[(p.function, strip_metadata(p.a))], by_text[(p.function, strip_metadata(p.b))]
        expected = {not facts.may_alias(x, y) for x in a for y in b}
        if len(expected) == 1 and (p.verdict == "NoAlias") != expected.pop():
            wrong.append(f"{p.function}: {p.verdict}: {p.a} <-> {p.b}")
        assert len(expected) <= 1, f"identical lines with different facts: {p.a}"
    assert not wrong, "\n".join(wrong)
    return facts, annotated, pairs, stats


@needs_llvm
@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.name)
def test_scoped_noalias_matches_facts(src, tmp_path):
    check_consistent(to_text(src, tmp_path), tmp_path)


@needs_llvm
def test_unknown_accesses_get_no_scopes(tmp_path):
    src = tmp_path / "mixed.c"
    src.write_text(MIXED)
    facts, annotated, pairs, stats = check_consistent(to_text(src, tmp_path), tmp_path)
    verdicts = {p.verdict for p in pairs}
    assert verdicts == {"NoAlias", "MayAlias"}
    assert stats.unknown >= 3 and stats.annotated > 0
    lines = annotated.split("\n")
    for fname, line_of in site_lines(lines, facts).items():
        for i, li in line_of.items():
            tagged = "!alias.scope" in lines[li] or "!noalias" in lines[li]
            if facts.site_set[i] < 0 or facts.sites.kind[i] == "call":
                assert not tagged, lines[li]
    assert stats.bytes_out > stats.bytes_in


EXISTING = """\
@x = global i32 0
@y = global i32 0

define void @f(ptr noalias %p, ptr %q) {
entry:
  store i32 1, ptr @x, align 4, !alias.scope !2, !noalias !5
  store i32 2, ptr @y, align 4, !alias.scope !5, !noalias !2
  store i32 3, ptr @x, align 4
  ret void
}

!0 = distinct !{!0, !"restrict"}
!1 = distinct !{!1, !0}
!2 = !{!1}
!4 = distinct !{!4, !0}
!5 = !{!4}
"""


@needs_llvm
def test_existing_scopes_are_kept(tmp_path):
    ll = tmp_path / "existing.ll"
    ll.write_text(EXISTING)
    facts, annotated, pairs, stats = check_consistent(ll, tmp_path)
    assert stats.merged == 2
    first = annotated.split("\n")[5]
    scope = int(re.search(r"!alias.scope !(\d+)", first).group(1))
    assert re.search(rf"^!{scope} = !\{{!1, !\d+\}}$", annotated, re.M)   # the old scope and ours


def test_text_of_another_module_is_refused(tmp_path):
    ll = tmp_path / "a.ll"
    ll.write_text(EXISTING)
    facts, _, _, _ = analyze([ll], backend="reference")
    other = EXISTING.replace("  store i32 3, ptr @x, align 4\n", "  %v = load i32, ptr @x, align 4\n")
    with pytest.raises(InputError, match="were they computed from this module"):
        annotate_text(other, facts)
    with pytest.raises(InputError):
        annotate_text(EXISTING.replace("  store i32 3, ptr @x, align 4\n", ""), facts)


def test_annotate_command(tmp_path, capsys):
    ll = tmp_path / "a.ll"
    ll.write_text(EXISTING)
    out = tmp_path / "out.ll"
    assert main(["annotate", str(ll), "-o", str(out), "--backend", "reference",
                 "--json", str(tmp_path / "s.json")]) == 0
    assert "metadata nodes added" in capsys.readouterr().out
    assert out.read_text().count("!alias.scope") == 3
    assert main(["annotate", str(tmp_path / "a.bc"), "-o", str(out)]) == 2


@needs_llvm
def test_aa_eval_reader_sees_every_pair(tmp_path):
    from andersen_gpu.aliasfacts.aaeval import count_load_store_verdicts

    ll = tmp_path / "partial.ll"
    ll.write_text("define i64 @f(ptr %p) {\n  %q = getelementptr i8, ptr %p, i64 4\n  store i64 0, ptr %p, align 8\n"
                  "  store i32 1, ptr %q, align 4\n  %v = load i64, ptr %p, align 8\n  ret i64 %v\n}\n")
    pairs = load_store_pairs(ll, "basic-aa")      # 1 load x 2 stores + 1 store pair
    assert len(pairs) == 3 and {p.verdict for p in pairs} >= {"PartialAlias", "MustAlias"}
    assert sum(count_load_store_verdicts(ll, "basic-aa").values()) == 3


BYTE_COPY = r"""
#include <stdio.h>
struct box { int *p; long pad; };
static void copy_bytes(void *dst, const void *src, unsigned long n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  while (n--) *d++ = *s++;
}
int target = 1, other = 3;
__attribute__((noinline)) int run(struct box *a, struct box *b) {
  copy_bytes(b, a, sizeof *a);
  target = 2;
  *b->p = 5;
  return target;
}
int main(void) {
  struct box a = { &target, 0 }, b = { &other, 0 };
  printf("%d %d\n", run(&a, &b), other);
  return 0;
}
"""


@needs_llvm
def test_byte_copied_pointer_keeps_its_target_end_to_end(tmp_path):
    """A pointer copied one byte at a time (a hand-written memcpy over unsigned char)
    keeps its target: the annotated IR, compiled with clang-19 -O2, prints what the
    original prints ("5 3": b->p is &target after the copy)."""
    src = tmp_path / "bytecopy.c"
    src.write_text(BYTE_COPY)
    ll = to_text(src, tmp_path)
    check_consistent(ll, tmp_path)
    outputs = []
    for f in (ll, tmp_path / f"{ll.stem}.annotated.ll"):
        exe = tmp_path / f"{f.stem}.exe"
        subprocess.run(["clang-19", "-O2", str(f), "-o", str(exe)], check=True, capture_output=True)
        outputs.append(subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout)
    assert outputs == ["5 3\n", "5 3\n"]


def test_aa_eval_function_names_as_the_text_writes_them():
    # aa-eval prints a function's name bare; the facts and the text quote names LLVM quotes (a
    # lambda's `$`), so pairs are keyed by the quoted form (cpp_std_thread.cc's lambda)
    from andersen_gpu.aliasfacts.aaeval import printed_name

    assert printed_name("main") == "main" and printed_name("a.b-c_1") == "a.b-c_1"
    assert printed_name("_ZZ4mainENK3$_0clEv") == '"_ZZ4mainENK3$_0clEv"'
    assert printed_name("1f") == '"1f"'
    assert printed_name('a"b\\c') == '"a\\22b\\\\c"'   # as llvm-dis-19 prints @"a\22b\\c"
