#!/usr/bin/env bash
# Build whole-program LLVM bitcode of real programs from Debian 12's source
# packages: the benchmark corpus of andersen-gpu.
#
#   bench/corpus/build.sh [--force] [PROGRAM...]
#
# With no PROGRAM, builds every program of bench/corpus/recipes/ in the order
# of PROGRAMS below (small first).  For each program it
#   1. installs the build dependencies (apt-get build-dep --arch-only),
#   2. unpacks the Debian source package (apt-get source) under
#      .corpus/<program>/,
#   3. compiles it with clang-19 through wllvm, flags CORPUS_CFLAGS below,
#      using the program's recipe (recipes/<program>.sh),
#   4. links the executable's bitcode (extract-bc), runs mem2reg
#      (opt-19 -passes=mem2reg) and writes .corpus/<program>/<program>.bc,
#   5. records counts in bench/corpus/manifest.csv (one row per program).
# A program whose <program>.bc exists is skipped (its manifest row is
# recomputed if missing); --force rebuilds it.  The log of each build is
# .corpus/<program>/build.log.
#
# Environment: CORPUS_DIR (default <repo>/.corpus), JOBS (make -j, default 2),
# NICE (niceness of the compile step, default 19).  Run one build.sh at a
# time: runs share the manifest and apt.
# Needs root (or sudo) the first time, to install packages and to add a
# deb-src entry for bookworm.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CORPUS_DIR="${CORPUS_DIR:-$REPO/.corpus}"
MANIFEST="$HERE/manifest.csv"
JOBS="${JOBS:-2}"
NICE="${NICE:-19}"
LLVM_MAJOR=19

PROGRAMS=(lua5.4 bzip2 gzip sqlite3 bash make-dfsg gawk git vim perl python3.11)

# Flags of every C/C++ compile.  -disable-O0-optnone lets mem2reg run on -O0
# code; -fno-discard-value-names keeps the names the analysis reports.
CORPUS_CFLAGS="-O0 -g -Xclang -disable-O0-optnone -fno-discard-value-names"
MANIFEST_HEADER="program,source_package,source_version,binary,llvm_version,llvm_instructions,defined_functions,functions_without_bitcode,bitcode_bytes,build_s,built_on"

export LLVM_COMPILER=clang
export LLVM_CC_NAME=clang-$LLVM_MAJOR
export LLVM_CXX_NAME=clang++-$LLVM_MAJOR
export LLVM_LINK_NAME=llvm-link-$LLVM_MAJOR
export LLVM_AR_NAME=llvm-ar-$LLVM_MAJOR

log() { printf '[corpus %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO="sudo"; fi
fi

apt_install() {  # apt_install PKG...: install the missing ones
    local missing=()
    for p in "$@"; do
        [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] \
            || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing ${missing[*]}"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends \
        "${missing[@]}" >&2
}

ensure_deb_src() {  # a deb-src entry for bookworm, so that apt-get source works
    # (grep -c, not grep -q: an early exit of grep would fail the pipeline)
    if [ "$(apt-cache showsrc lua5.4 2>/dev/null | grep -c '^Package:')" -gt 0 ]; then return 0; fi
    local f=/etc/apt/sources.list.d/andersen-corpus-src.sources
    log "adding deb-src entries ($f)"
    $SUDO tee "$f" >/dev/null <<'EOF'
# Added by andersen-gpu bench/corpus/build.sh: source packages for the benchmark corpus
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    $SUDO apt-get update -q >&2
}

ensure_tools() {
    if [ "$(apt-cache policy "clang-$LLVM_MAJOR" | grep -c 'Candidate: [0-9]')" -eq 0 ]; then
        $SUDO apt-get update -q >&2
    fi
    apt_install "clang-$LLVM_MAJOR" "llvm-$LLVM_MAJOR" dpkg-dev build-essential binutils file python3-pip
    if ! command -v wllvm >/dev/null || ! command -v extract-bc >/dev/null; then
        log "installing wllvm (pip)"
        python3 -m pip install -q wllvm >&2 \
            || python3 -m pip install -q --break-system-packages wllvm >&2
        hash -r
    fi
    command -v wllvm >/dev/null || die "wllvm is not on PATH after pip install"
    # Call wllvm by its real path, not through a wrapper such as a pyenv shim:
    # it runs once per compile, and configure scripts compile thousands of times.
    local scripts; scripts="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')"
    if [ -x "$scripts/wllvm" ]; then export PATH="$scripts:$PATH"; fi
    ensure_deb_src
}

# count_stats BC: prints "instructions,defined_functions" of a bitcode file.
# An instruction is a line of a function body that starts with exactly two
# spaces (labels start in column 0; switch-case lines, landingpad clauses and
# #dbg_ records are indented further or start with ']' / '#').
count_stats() {
    "llvm-dis-$LLVM_MAJOR" "$1" -o - | awk '
        /^define /            { fns++; infn = 1; next }
        infn && /^}/          { infn = 0; next }
        infn && /^  [^ \]#]/  { insts++ }
        END { printf "%d,%d\n", insts, fns }'
}

# no_bitcode BINARY BC: prints the global functions defined in the executable
# that have no definition in the bitcode (C runtime start-up code and the few
# functions of glibc's libc_nonshared.a excluded).  Static functions are not
# compared: llvm-link drops the unreferenced ones, which the linker keeps.  A
# non-empty list means that part of the program was compiled without wllvm
# (assembler, another compiler) or came from a static library built elsewhere.
no_bitcode() {
    comm -23 \
        <(nm --defined-only "$1" | awk '$2 == "T" { print $3 }' | sed 's/@.*//' \
            | grep -vxE '_start|_init|_fini|__do_global_dtors_aux|deregister_tm_clones|register_tm_clones|frame_dummy|__libc_csu_(init|fini)|atexit|at_quick_exit|pthread_atfork|__pthread_atfork|__stack_chk_fail_local' \
            | sort -u) \
        <("llvm-nm-$LLVM_MAJOR" --defined-only "$2" | awk '$2 ~ /^[Tt]$/ { print $3 }' \
            | sed -E 's/\.[0-9]+$//' | sort -u)
}

manifest_set() {  # manifest_set PROGRAM ROW: replace PROGRAM's row, keep order of PROGRAMS
    local prog="$1" row="$2" tmp
    tmp="$(mktemp)"
    {
        echo "$MANIFEST_HEADER"
        if [ -f "$MANIFEST" ]; then tail -n +2 "$MANIFEST" | awk -F, -v p="$prog" '$1 != p'; fi
        echo "$row"
    } > "$tmp"
    # sort rows by the position of the program in PROGRAMS (unknown ones last)
    local order; order="$(printf '%s\n' "${PROGRAMS[@]}")"
    { head -n 1 "$tmp"; tail -n +2 "$tmp" | awk -F, -v order="$order" '
        BEGIN { n = split(order, o, "\n"); for (i = 1; i <= n; i++) rank[o[i]] = i }
        { r = ($1 in rank) ? rank[$1] : 1000; printf "%04d\t%s\n", r, $0 }' \
        | sort -t$'\t' -k1,1 -s | cut -f2-; } > "$MANIFEST"
    rm -f "$tmp"
}

manifest_has() { [ -f "$MANIFEST" ] && awk -F, -v p="$1" '$1 == p { f = 1 } END { exit !f }' "$MANIFEST"; }

record() {  # record PROGRAM BUILD_S
    local prog="$1" build_s="$2" dir="$CORPUS_DIR/$1" bc="$CORPUS_DIR/$1/$1.bc"
    local meta; meta="$(cat "$dir/meta")"   # source_package,source_version,binary
    local stats; stats="$(count_stats "$bc")"
    local llvm_version; llvm_version="$("llvm-config-$LLVM_MAJOR" --version)"
    local bytes; bytes="$(stat -c %s "$bc")"
    local missing=NA
    if [ -x "$(cat "$dir/binary_path" 2>/dev/null)" ]; then
        no_bitcode "$(cat "$dir/binary_path")" "$bc" > "$dir/no-bitcode.txt"
        missing="$(wc -l < "$dir/no-bitcode.txt")"
        [ "$missing" -eq 0 ] || log "$prog: warning: $missing functions of the executable have no bitcode (list: $dir/no-bitcode.txt)"
    fi
    manifest_set "$prog" "$prog,$meta,$llvm_version,$stats,$missing,$bytes,$build_s,$(date +%F)"
    log "$prog: instructions,functions = $stats; $bytes bytes; build ${build_s}s"
}

build_one() {
    local prog="$1" force="$2"
    local recipe="$HERE/recipes/$prog.sh" dir="$CORPUS_DIR/$prog"
    [ -f "$recipe" ] || die "no recipe for '$prog' (have: $(cd "$HERE/recipes" && ls | sed 's/\.sh$//' | tr '\n' ' '))"
    if [ "$force" = 0 ] && [ -s "$dir/$prog.bc" ]; then
        if manifest_has "$prog"; then log "$prog: already built ($dir/$prog.bc), skipping"; return 0; fi
        log "$prog: bitcode present, recording it"
        record "$prog" "$(cat "$dir/build_s" 2>/dev/null || echo NA)"
        return 0
    fi

    # The recipe sets SRCPKG (Debian source package), BINARY (the executable,
    # relative to the unpacked source tree) and defines corpus_build, which
    # runs in the source tree and builds BINARY.
    local SRCPKG BINARY
    unset -f corpus_build
    # shellcheck source=/dev/null
    source "$recipe"
    [ -n "${SRCPKG:-}" ] && [ -n "${BINARY:-}" ] || die "$recipe must set SRCPKG and BINARY"

    mkdir -p "$dir"
    log "$prog: build dependencies of $SRCPKG"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q -o DPkg::Lock::Timeout=600 --arch-only \
        --no-install-recommends "$SRCPKG" > "$dir/build-dep.log" 2>&1 \
        || die "$prog: apt-get build-dep $SRCPKG failed (see $dir/build-dep.log)"

    log "$prog: apt-get source $SRCPKG"
    rm -rf "$dir/src"; mkdir -p "$dir/src"
    # Some mirrors lack the source files of bookworm-security; then take the
    # version of the bookworm release (point release) instead.
    (cd "$dir/src" && apt-get source -q "$SRCPKG") > "$dir/source.log" 2>&1 || {
        log "$prog: apt-get source $SRCPKG failed, trying $SRCPKG/bookworm"
        rm -rf "$dir/src"; mkdir -p "$dir/src"
        (cd "$dir/src" && apt-get source -q "$SRCPKG/bookworm") >> "$dir/source.log" 2>&1
    } || die "$prog: apt-get source $SRCPKG failed (see $dir/source.log)"
    local tree; tree="$(find "$dir/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
    [ -n "$tree" ] || die "$prog: no source tree unpacked in $dir/src"
    local version; version="$(cd "$dir/src" && ls ./*.dsc | head -n 1 | sed -E 's/.*_(.*)\.dsc$/\1/')"
    echo "$SRCPKG,$version,$(basename "$BINARY")" > "$dir/meta"

    log "$prog: compiling in $tree (log: $dir/build.log)"
    local t0 t1 rc; t0="$(date +%s)"
    set +e   # (a subshell on the left of || would run with errexit ignored)
    (
        set -e
        renice -n "$NICE" -p "$BASHPID" >/dev/null
        cd "$tree"
        # CC/CXX compile through wllvm (an object file plus its bitcode);
        # CC_PLAIN/CXX_PLAIN are the bare compilers, for configure scripts
        # (much faster than wllvm there, and their probes need no bitcode).
        export CC=wllvm CXX=wllvm++ CFLAGS="$CORPUS_CFLAGS" CXXFLAGS="$CORPUS_CFLAGS"
        export CC_PLAIN="clang-$LLVM_MAJOR" CXX_PLAIN="clang++-$LLVM_MAJOR"
        export CORPUS_CFLAGS JOBS NICE
        export AR="llvm-ar-$LLVM_MAJOR" RANLIB="llvm-ranlib-$LLVM_MAJOR"
        set -x
        corpus_build
    ) > "$dir/build.log" 2>&1
    rc=$?
    set -e
    [ "$rc" -eq 0 ] || die "$prog: build failed, last lines of $dir/build.log:
$(tail -n 25 "$dir/build.log")"
    [ -x "$tree/$BINARY" ] || die "$prog: recipe finished but $tree/$BINARY is missing"
    [[ "$(file -L "$tree/$BINARY")" == *ELF* ]] \
        || die "$prog: $tree/$BINARY is not an ELF executable (a libtool wrapper script?)"
    echo "$tree/$BINARY" > "$dir/binary_path"

    log "$prog: extract-bc + mem2reg"
    rm -f "$dir/$prog.raw.bc" "$dir/$prog.bc"
    {
        nice -n "$NICE" extract-bc -o "$dir/$prog.raw.bc" "$tree/$BINARY" &&
        nice -n "$NICE" "opt-$LLVM_MAJOR" -passes=mem2reg "$dir/$prog.raw.bc" -o "$dir/$prog.bc.tmp" &&
        mv "$dir/$prog.bc.tmp" "$dir/$prog.bc"
    } >> "$dir/build.log" 2>&1 || die "$prog: extract-bc/opt failed (see $dir/build.log)"
    t1="$(date +%s)"
    echo $((t1 - t0)) > "$dir/build_s"
    record "$prog" $((t1 - t0))
}

main() {
    local force=0 progs=()
    for a in "$@"; do
        case "$a" in
            --force) force=1 ;;
            -h|--help) sed -n '2,/^set -e/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
            -*) die "unknown option $a" ;;
            *) progs+=("$a") ;;
        esac
    done
    [ ${#progs[@]} -gt 0 ] || progs=("${PROGRAMS[@]}")
    ensure_tools
    mkdir -p "$CORPUS_DIR"
    local failed=() rc
    for p in "${progs[@]}"; do
        # one failing program does not stop the others
        set +e
        ( set -e; build_one "$p" "$force" )
        rc=$?
        set -e
        [ "$rc" -eq 0 ] || failed+=("$p")
    done
    if [ ${#failed[@]} -gt 0 ]; then log "failed: ${failed[*]}"; exit 1; fi
    log "done: ${progs[*]}"
}

main "$@"
