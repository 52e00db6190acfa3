#!/usr/bin/env bash
# The corpus programs, traced on a workload each: does any access touch an object outside its set?
#
#   bench/soundness/corpus.sh [WORKDIR] [PROGRAM...]     (default /tmp/soundness-run; needs .corpus/)
#
# For each program (default: every one with a workload below whose .corpus/P/P.bc is built):
# `run.py build` (alias facts from the cpu backend, instrumented IR, linked against the libraries
# the corpus binary uses), the workload with AG_LOG set, then `run.py check --json`. One line per
# program, a table in WORKDIR/summary.md and the reports in WORKDIR/P.json. Exit status 1 when
# any access touched an object its set lacks, 2 when a program failed to build or run.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
E2E="$REPO/bench/annotate_e2e"
W="$(mkdir -p "${1:-/tmp/soundness-run}" && cd "${1:-/tmp/soundness-run}" && pwd)"
shift || true
ALL="bash bzip2 curl gawk git gzip lua5.4 make-dfsg ninja-build perl python3.11 rsync sqlite3 vim"
PROGRAMS="${*:-$ALL}"
export W
status=0

build() {  # build P: $W/P/program from .corpus/P/P.bc, linked against the corpus binary's libraries
    local p="$1" bin libs cxx=""
    bin="$(cat "$REPO/.corpus/$p/binary_path" 2>/dev/null)"
    libs=$(ldd "$bin" 2>/dev/null | awk '$1 ~ /^lib/ && $1 !~ /^libc\.so/ {print "-l:" $1}' | tr '\n' ' ')
    ldd "$bin" 2>/dev/null | grep -q libstdc++ && cxx=--cxx
    llvm-dis-19 "$REPO/.corpus/$p/$p.bc" -o "$W/$p.ll" &&
        python3 "$HERE/run.py" build "$W/$p.ll" -o "$W/$p" $cxx -- $libs > "$W/$p.build.json"
}

workload() {  # workload P: run $W/P/program (as $B) on P's workload, from $W/P-work
    local p="$1"
    local B="$W/$p/program"
    rm -rf "$W/$p-work" && mkdir -p "$W/$p-work" && cd "$W/$p-work" || return 1
    case "$p" in
    bash) "$B" "$HERE/workloads/work.bash" ;;
    bzip2) seq 1 200000 > nums && "$B" -c nums > nums.bz2 && "$B" -dc nums.bz2 | cmp - nums && "$B" -tv nums.bz2 ;;
    curl)
        seq 1 20000 > a.txt && printf 'one\ntwo\n' > b.txt
        printf 'url = "file://%s/b.txt"\nwrite-out = "%%{url_effective} %%{size_download}\\n"\n' "$PWD" > config
        "$B" -s "file://$PWD/b.txt" && "$B" -s -I "file://$PWD/a.txt" && "$B" -s -r 100-140 "file://$PWD/a.txt" &&
            "$B" -s "file://$PWD/{a,b}.txt" -o "out/#1.copy" --create-dirs -w '%{url_effective} %{size_download}\n' &&
            cmp out/a.copy a.txt && "$B" -s -K config && "$B" --help all > /dev/null && "$B" --version
        "$B" -s "file://$PWD/none.txt"; "$B" -s "htp//x"; true ;;
    gawk) seq 1 200000 > nums && "$B" -f "$HERE/workloads/work.awk" nums ;;
    git)
        export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b HOME="$PWD"
        "$B" init -q -b main repo 2> /dev/null && cd repo && seq 1 500 > a.txt && printf 'x\ny\n' > b.txt &&
            "$B" add a.txt b.txt && "$B" commit -qm first && sed -i 's/^5$/five/' a.txt && "$B" commit -qam second &&
            "$B" checkout -qb topic && echo z >> b.txt && "$B" commit -qam third && "$B" checkout -q main &&
            echo w > c.txt && "$B" add c.txt && "$B" commit -qm fourth && "$B" merge -q --no-edit topic &&
            "$B" log --oneline --graph && "$B" diff HEAD~2 --stat && "$B" status --short && "$B" tag -a -m t v1 &&
            "$B" describe && "$B" grep -n five && "$B" show --format=%s HEAD~1 | head -3 && "$B" rev-list --count HEAD &&
            "$B" blame -s b.txt && "$B" cat-file -p 'HEAD^{tree}' && "$B" gc -q && "$B" fsck &&
            "$B" log -p --format='%H %an' | md5sum && echo q >> a.txt && "$B" stash -q && "$B" stash pop -q &&
            "$B" diff | head -5 && "$B" archive HEAD | tar t ;;
    gzip) seq 1 200000 > nums && "$B" -c nums > nums.gz && "$B" -dc nums.gz | cmp - nums && "$B" -l nums.gz && "$B" -t nums.gz ;;
    lua5.4) "$B" "$E2E/work.lua" ;;
    make-dfsg) cp "$HERE/workloads/Makefile" . && touch a.in b.in && "$B" -j2 all && "$B" -p > /dev/null ;;
    ninja-build)
        local src
        src=$(ls -d "$REPO"/.corpus/ninja-build/src/ninja-build-*/ | head -1)
        cp -r "$src" tree && cd tree && rm -f build.ninja .ninja_log .ninja_deps && CXX=g++ python3 configure.py > /dev/null &&
            for cmd in "-n" "-t targets all" "-t graph" "-t commands" "-t query ninja" "-t rules" "-t inputs all" \
                       "-t clean -n" "-t compdb"; do "$B" $cmd > /dev/null || return 1; done &&
            "$B" -j2 > /dev/null && "$B" -t deps > /dev/null && "$B" -n -d explain ;;
    perl) "$B" "$HERE/workloads/work.pl" ;;
    python3.11)
        local lib
        lib=$(ls -d "$REPO"/.corpus/python3.11/src/python3.11-*/Lib | head -1)
        PYTHONHOME=/nonexistent PYTHONPATH="$lib" "$B" -S "$HERE/workloads/work.py" ;;
    rsync)
        mkdir -p src/d1/d2 && seq 1 5000 > src/a && seq 1 300 > src/d1/b && echo c > src/d1/d2/c && ln -s a src/link &&
            "$B" -a src/ dst/ && echo more >> src/a && rm src/d1/b && "$B" -a --delete --stats src/ dst/ &&
            "$B" -anc --itemize-changes src/ dst/ && "$B" -r --exclude 'd2' src/ dst2/ && diff -r src dst ;;
    sqlite3) "$B" :memory: < "$E2E/work.sql" ;;
    vim) "$B" -u NONE -i NONE -N -es -S "$HERE/workloads/work.vim" && cat vim.out ;;
    *) echo "no workload for $p"; return 1 ;;
    esac
}

printf '| program | traced sites | sites reached | accesses | resolved to an object | (site, object) pairs | outside the set |\n' > "$W/summary.md"
printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n' >> "$W/summary.md"
for p in $PROGRAMS; do
    [[ -f "$REPO/.corpus/$p/$p.bc" ]] || { echo "$p: not built, skipped"; continue; }
    if ! build "$p" 2> "$W/$p.build.err"; then echo "$p: BUILD FAILED ($W/$p.build.err)"; status=2; continue; fi
    rm -f "$W/$p/log"
    (export AG_LOG="$W/$p/log"; workload "$p") > "$W/$p.out" 2>&1
    rc=$?
    [[ $rc -eq 0 ]] || { echo "$p: the workload exited $rc ($W/$p.out)"; status=2; }
    python3 "$HERE/run.py" check "$W/$p" --json > "$W/$p.json"
    [[ $? -eq 1 ]] && status=$(( status > 1 ? status : 1 ))
    python3 - "$W/$p.build.json" "$W/$p.json" "$p" >> "$W/summary.md" <<'EOF'
import json, sys
b, c = (json.load(open(f)) for f in sys.argv[1:3])
row = (sys.argv[3], f"{b['traced_sites']:,}", f"{c['sites_reached']:,}", f"{c['accesses']:,}",
       f"{c['resolved'] / max(1, c['accesses']):.1%}", f"{c['pairs']:,}", f"{c['lost_pairs']} at {c['lost_sites']} sites")
print("| " + " | ".join(row) + " |")
EOF
    tail -1 "$W/summary.md" | sed "s/^| //; s/ |$//; s/ | /  /g"
done
exit $status
