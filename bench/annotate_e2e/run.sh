#!/usr/bin/env bash
# End to end on real programs: the soundness contract of the alias facts.
#
#   bench/annotate_e2e/run.sh [WORKDIR]       (default /tmp/annotate-e2e; needs .corpus/ built)
#
# For each program, its whole-program bitcode (.corpus/P/P.bc) is disassembled, annotated with
# `andersen-gpu annotate --backend cpu` (scoped-noalias metadata from the alias facts), and both
# the plain and the annotated IR are compiled with clang-19 -O2. Both executables then run the
# same workload and their outputs are compared after normalising what may differ between two runs
# of one binary (heap addresses, mtimes, the order a parallel build finishes its steps):
#   sqlite3   bench/annotate_e2e/work.sql in :memory: (indexes, CTEs, window functions, JSON, FTS5)
#   lua5.4    bench/annotate_e2e/work.lua (tables, sorting, closures, coroutines, metatables, GC)
#   ninja     (ninja-build) dry run, eight -t tools and a real -j2 build of ninja's own source tree
#   curl      offline: file:// URLs with headers, ranges, globs and #N output names, --write-out,
#             a config file, --help all, and the errors of a missing file and a malformed URL
# One line per program: SAME or DIFFERENT, and whether the two executables differ (the facts changed
# the optimised code). Exit status 1 when any output differs. Programs not built are skipped.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
W="${1:-/tmp/annotate-e2e}"
mkdir -p "$W"
status=0

build() {  # build P LIBS...: $W/P.bin and $W/P.annot.bin from .corpus/P/P.bc
    local p="$1"; shift
    llvm-dis-19 "$REPO/.corpus/$p/$p.bc" -o "$W/$p.ll" || return 1
    (cd "$REPO" && python3 -m andersen_gpu annotate "$W/$p.ll" -o "$W/$p.annot.ll" --backend cpu > "$W/$p.annotate.txt") || return 1
    local cc=clang-19; [[ $p == ninja-build ]] && cc=clang++-19
    $cc -O2 -x ir "$W/$p.ll" -o "$W/$p.bin" "$@" 2> /dev/null && $cc -O2 -x ir "$W/$p.annot.ll" -o "$W/$p.annot.bin" "$@" 2> /dev/null
}

normalise() {  # heap addresses numbered in order of appearance, mtimes dropped
    python3 -c '
import re, sys
seen = {}
text = re.sub(r"0x[0-9a-f]+", lambda m: seen.setdefault(m.group(0), "P%d" % len(seen)), sys.stdin.read())
sys.stdout.write(re.sub(r"mtime \d+", "mtime T", text))'
}

report() {  # report P: compare $W/P.out and $W/P.annot.out
    local p="$1" same=SAME bins="the two executables differ"
    cmp -s "$W/$p.out" "$W/$p.annot.out" || { same=DIFFERENT; status=1; }
    cmp -s "$W/$p.bin" "$W/$p.annot.bin" && bins="the two executables are identical (no fact changed the code)"
    echo "$p: $same output ($(wc -l < "$W/$p.out") lines); $bins; $(grep -o 'size: .*' "$W/$p.annotate.txt")"
}

if [[ -f "$REPO/.corpus/sqlite3/sqlite3.bc" ]] && build sqlite3 -lm -lreadline -lz -ldl -lpthread; then
    for v in sqlite3 sqlite3.annot; do "$W/$v.bin" :memory: < "$HERE/work.sql" > "$W/$v.out" 2>&1; echo "rc=$?" >> "$W/$v.out"; done
    report sqlite3
fi
if [[ -f "$REPO/.corpus/lua5.4/lua5.4.bc" ]] && build lua5.4 -lm -ldl -lreadline; then
    for v in lua5.4 lua5.4.annot; do "$W/$v.bin" "$HERE/work.lua" > "$W/$v.out" 2>&1; echo "rc=$?" >> "$W/$v.out"; done
    report lua5.4
fi
SRC=$(ls -d "$REPO"/.corpus/ninja-build/src/ninja-build-* 2>/dev/null | head -1)
if [[ -n "$SRC" ]] && build ninja-build; then
    for v in ninja-build ninja-build.annot; do
        rm -rf "$W/tree-$v" && cp -r "$SRC" "$W/tree-$v" && cd "$W/tree-$v" || continue
        rm -f build.ninja .ninja_log .ninja_deps
        CXX=g++ python3 configure.py > /dev/null 2>&1
        {
            for cmd in "-n -v" "-t targets all" "-t graph" "-t commands" "-t query ninja" "-t rules" \
                       "-t inputs all" "-t clean -n" "-t compdb"; do
                echo "== $cmd"; "$W/$v.bin" $cmd 2>&1 | sed "s#$W/tree-$v#TREE#g"
            done
            echo "== build"; "$W/$v.bin" -j2 2>&1 | sed 's/^\[[0-9]*\/[0-9]*\] //' | sort; echo "rc=${PIPESTATUS[0]}"
            echo "== deps"; "$W/$v.bin" -t deps 2>&1
            echo "== explain"; "$W/$v.bin" -n -d explain 2>&1
            echo "== version"; ./ninja --version 2>&1
        } | normalise > "$W/$v.out"
        cd "$W"
    done
    report ninja-build
fi
if [[ -f "$REPO/.corpus/curl/curl.bc" ]] && build curl -lssl -lcrypto -lz -lpthread; then
    D="$W/curl-files"
    rm -rf "$D" && mkdir -p "$D" && seq 1 20000 > "$D/a.txt" && printf 'one\ntwo\n' > "$D/b.txt"
    printf 'url = "file://%s/b.txt"\nwrite-out = "%%{url_effective} %%{size_download}\\n"\n' "$D" > "$D/config"
    for v in curl curl.annot; do
        rm -rf "$D/out-$v" && mkdir "$D/out-$v"
        {
            B="$W/$v.bin"
            echo "== get"; "$B" -s "file://$D/b.txt"
            echo "== head"; "$B" -s -I "file://$D/a.txt" | grep -v '^Last-Modified'
            echo "== ranges"; "$B" -s -r 100-140 "file://$D/a.txt"; echo; "$B" -s -r -30 "file://$D/a.txt"
            echo "== glob"; "$B" -s "file://$D/{a,b}.txt" -o "$D/out-$v/#1.copy" --create-dirs \
                -w '%{url_effective} %{size_download} %{http_code}\n' | sed "s#$D#D#g"
            cmp "$D/out-$v/a.copy" "$D/a.txt" && cmp "$D/out-$v/b.copy" "$D/b.txt" && echo copies equal
            echo "== config"; "$B" -s -K "$D/config" | sed "s#$D#D#g"
            echo "== sequence"; "$B" -s "file://$D/[a-b].txt" | md5sum
            echo "== help"; "$B" --help all | md5sum
            echo "== version"; "$B" --version | head -1
            echo "== missing"; "$B" -s "file://$D/none.txt"; echo "rc=$?"
            echo "== malformed"; "$B" -s "htp//x"; echo "rc=$?"
        } > "$W/$v.out" 2>&1
    done
    report curl
fi
exit $status
