#!/usr/bin/env bash
# The corpus programs, traced on a workload each: does any access touch an object outside its set?
#
#   bench/soundness/corpus.sh [WORKDIR] [PROGRAM...]     (default /tmp/soundness-run; needs .corpus/)
#
# For each program (default: every one with a workload below whose .corpus/P/P.bc is built):
# `run.py build` (alias facts from the cpu backend, instrumented IR, linked against the libraries
# the corpus binary uses), the workload with AG_LOG set, then `run.py check --json`. One line per
# program, a table in WORKDIR/summary.md and the reports in WORKDIR/P.json. Exit status 1 when
# any access touched an object its set lacks or two accesses the facts call NoAlias touched the
# same bytes, 2 when a program failed to build or its workload failed.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
E2E="$REPO/bench/annotate_e2e"
W="$(mkdir -p "${1:-/tmp/soundness-run}" && cd "${1:-/tmp/soundness-run}" && pwd)"
shift || true
ALL="bash bzip2 cppcheck curl gawk git gzip jq lua5.4 make-dfsg memcached nginx ninja-build perl python3.11 rsync sqlite3 tmux vim zstd"
PROGRAMS="${*:-$ALL}"
status=0

build() {  # build P: $W/P/program from .corpus/P/P.bc, linked against the corpus binary's libraries
    local p="$1" bin libs cxx=""
    bin="$(cat "$REPO/.corpus/$p/binary_path" 2>/dev/null)"
    libs=$(ldd "$bin" 2>/dev/null | awk '$1 ~ /^lib/ && $1 !~ /^libc\.so/ {print "-l:" $1}' | tr '\n' ' ')
    ldd "$bin" 2>/dev/null | grep -q libstdc++ && cxx=--cxx
    # the functions built without bitcode (rsync's md5_process_asm: assembly), from the build's objects
    if [[ -s "$REPO/.corpus/$p/no-bitcode.txt" ]]; then
        libs+=" $(find "$REPO/.corpus/$p/src" -name '*.o' -print0 | xargs -0 nm -A --defined-only 2> /dev/null |
            awk 'NR == FNR {want[$1]; next} ($NF in want) {split($1, f, ":"); print f[1]}' \
                "$REPO/.corpus/$p/no-bitcode.txt" - | sort -u | tr '\n' ' ')"
    fi
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
    cppcheck)
        ln -sfn "$(dirname "$(cat "$REPO/.corpus/cppcheck/binary_path")")/cfg" "$W/cppcheck/cfg"
        cp "$HERE/workloads/work.c" . && "$B" --enable=all --inconclusive --std=c99 work.c 2>&1 | sed "s#$PWD/##" &&
            "$B" --enable=warning,style --template='{file}:{line}:{severity}:{id}' -DDEBUG work.c 2>&1 | sort ;;
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
    jq)
        printf '{"a":[1,2,{"b":"x"}],"s":"hello world","n":null}\n{"a":[],"s":"abc"}\n' > in.json
        seq 1 2000 | "$B" -s 'map(. * 2) | add' && "$B" -c '.a | length' in.json && "$B" -r '.s | test("o w")' in.json &&
            "$B" -c '[.s | match("[a-z]+"; "g") | .string]' in.json && "$B" -c 'to_entries | map(select(.value != null)) | from_entries' in.json &&
            "$B" -r '[.a[]? | numbers] | @csv' in.json && "$B" -nc '[range(10)] | group_by(. % 3)' && "$B" -c '[paths]' in.json &&
            "$B" -n '"a,b,c" | split(",") | join("-")' && "$B" --arg x 5 -n '$x | tonumber + 1' && "$B" -sc 'sort_by(.s)' in.json &&
            "$B" -n 'def f: if . > 1 then . * (. - 1 | f) else 1 end; 10 | f' && "$B" -c 'with_entries(.key |= ascii_upcase)' in.json &&
            "$B" -r '.s | @base64 | @base64d' in.json && "$B" -n '[limit(5; repeat(1))] | add' && "$B" -c 'tostream' in.json | head -4 ;;
    lua5.4) "$B" "$E2E/work.lua" ;;
    make-dfsg) cp "$HERE/workloads/Makefile" . && touch a.in b.in && "$B" -j2 all && "$B" -p > /dev/null ;;
    memcached)   # on 127.0.0.1 only; `shutdown` (allowed by -A) makes it return from main
        "$B" -A -u root -l 127.0.0.1 -p 21911 -U 0 -t 2 -m 16 & local pid=$!
        python3 "$HERE/workloads/client.py" memcached 21911; local rc=$?
        wait $pid; return $rc ;;
    nginx)       # one process, on 127.0.0.1 only, stopped with SIGQUIT (a graceful exit)
        mkdir -p www/d logs && seq 1 2000 > www/a.txt && echo b > www/d/b.txt
        printf '%s\n' "daemon off; master_process off; error_log stderr notice; pid nginx.pid;" \
            "events { worker_connections 64; }" \
            "http { access_log logs/access.log;" \
            "  server { listen 127.0.0.1:21912; root $PWD/www; location /d/ { autoindex on; } } }" > nginx.conf
        "$B" -p "$PWD/" -c "$PWD/nginx.conf" & local pid=$!
        python3 "$HERE/workloads/client.py" http 21912; local rc=$?
        kill -QUIT $pid; wait $pid; return $rc ;;
    ninja-build)
        local src
        src=$(ls -d "$REPO"/.corpus/ninja-build/src/ninja-build-*/ | head -1)
        cp -r "$src" tree && cd tree && rm -f build.ninja .ninja_log .ninja_deps && CXX=g++ python3 configure.py > /dev/null &&
            for cmd in "-n" "-t targets all" "-t graph" "-t commands" "-t query ninja" "-t rules" "-t inputs all" \
                       "-t compdb"; do "$B" $cmd > /dev/null || return 1; done &&
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
    tmux)        # a server forked by the first client; kill-server ends it
        local T=("$B" -S "$PWD/sock" -f /dev/null)
        "${T[@]}" new-session -d -s s1 -x 80 -y 24 sh && "${T[@]}" send-keys -t s1 'echo hello; seq 1 30' Enter &&
            sleep 0.5 && "${T[@]}" split-window -t s1 -h && "${T[@]}" list-panes -a && "${T[@]}" capture-pane -p -t s1:0.0 &&
            "${T[@]}" rename-window -t s1 w && "${T[@]}" new-window -t s1 && "${T[@]}" list-windows -t s1 &&
            "${T[@]}" set -g status-left x && "${T[@]}" show -g status-left && "${T[@]}" kill-server ;;
    vim) "$B" -u NONE -i NONE -N -es -S "$HERE/workloads/work.vim" && cat vim.out ;;
    zstd)
        seq 1 200000 > nums && "$B" -q -c nums > nums.zst && "$B" -dq -c nums.zst | cmp - nums && "$B" -lv nums.zst &&
            "$B" -q -19 -c nums > n19.zst && "$B" -tq n19.zst && "$B" -q --long=24 -c nums | "$B" -dq --long=24 | cmp - nums &&
            seq 1 300 | "$B" -q -c --no-check | "$B" -dq | tail -1 ;;
    *) echo "no workload for $p"; return 1 ;;
    esac
}

printf '| program | traced sites | sites reached | accesses | resolved to an object | (site, object) pairs | outside the set | pairs of sites sharing bytes | of them NoAlias |\n' > "$W/summary.md"
printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n' >> "$W/summary.md"
for p in $PROGRAMS; do
    [[ -f "$REPO/.corpus/$p/$p.bc" ]] || { echo "$p: not built, skipped"; continue; }
    if ! build "$p" 2> "$W/$p.build.err"; then echo "$p: BUILD FAILED ($W/$p.build.err)"; status=2; continue; fi
    rm -f "$W/$p/log"
    (export AG_LOG="$W/$p/log"; workload "$p") > "$W/$p.out" 2>&1
    rc=$?
    [[ $rc -eq 0 ]] || { echo "$p: the workload exited $rc ($W/$p.out)"; status=2; }
    python3 "$HERE/run.py" check "$W/$p" --json > "$W/$p.json"
    rc=$?
    [[ $rc -eq 2 ]] && { echo "$p: no log"; status=2; continue; }
    [[ $rc -eq 1 ]] && status=$(( status > 1 ? status : 1 ))
    python3 - "$W/$p.build.json" "$W/$p.json" "$p" >> "$W/summary.md" <<'EOF'
import json, sys
b, c = (json.load(open(f)) for f in sys.argv[1:3])
row = (sys.argv[3], f"{b['traced_sites']:,}", f"{c['sites_reached']:,}", f"{c['accesses']:,}",
       f"{c['resolved'] / max(1, c['accesses']):.1%}", f"{c['pairs']:,}", f"{c['lost_pairs']} at {c['lost_sites']} sites",
       f"{c['overlapping_pairs']:,}", str(c['noalias_sharing']))
print("| " + " | ".join(row) + " |")
EOF
    tail -1 "$W/summary.md" | sed "s/^| //; s/ |$//; s/ | /  /g"
done
exit $status
