#!/usr/bin/env bash
# One call on the GPU machine that measures everything the README's tables and the GPU tests need,
# within one `device` call (at most 600 s), and returns it as one file, $OUT/results.tgz:
#
#   run(kind="nvidia-h200", timeout_s=600,
#       carry=[".inputs", ".corpus-dumps", ".llvm-extracts", ".cuda-ptx"],
#       command="ANDERSEN_COMMIT=$(git rev-parse --short HEAD, here) bash bench/h200_call.sh")
#
# then here: tar xzf <files_at>/results.tgz (it unpacks into bench/results/h200-<commit>/), merge the
# rows you want into bench/results/ and run `python -m bench report` and `python -m bench readme`.
#
# What runs, in this order (seconds from the start; the cpu work overlaps the GPU work):
#   - `python3 -m andersen_gpu warmup --backend gpu`: every GPU kernel compiled into CuPy's cache;
#   - the numba cache of the cpu backend is filled once (about 70 s, one core), then the cpu
#     backend solves every corpus program, CPU_JOBS at once, each for at most CPU_TIMEOUT_S;
#   - the GPU tests (every test marked gpu, tests/test_rules.py's included; the alias and CUDA
#     programs' gpu assertions with .llvm-extracts), the paper inputs on the GPU (bench/gpu_paper_inputs.py
#     time), the CUDA kernels' device run (bench/cuda_device_run.py --ncu, with .cuda-ptx; CUDA_S seconds),
#     ROUNDS_INPUT's (default git; several names, paper:NAME a paper input) rounds as they happen for ROUNDS_S seconds (bench/gpu_rounds.py),
#     WALKS_INPUTS' rounds with walk geps and without (each cut at WALKS_S; step "walks", not in the default),
#     the corpus on the GPU one program at a time, each for at most GPU_TIMEOUT_S.
# Steps not in the default: "stages" (STAGES_PROGRAMS' object-level stage and collapsed solve with
# this tree and each tree under .compare/<rev>/, bench/stages_ab.py; STAGES_S seconds a tree),
# "compiles" (the kernels a corpus solve compiles after the warm-up, bench/kernel_compiles.py), "pool" (POOL_INPUTS solved with the pool's default start and each of
# POOL_CAPS, bench/pool_start.py), "compare" (the paper inputs with each tree under .compare/<rev>/,
# made here by `git archive <rev> | tar x -C .compare/<rev>`, between two runs of this tree), "profile"
# (PROFILE_INPUTS' rounds with the kernels' cycle counters, ANDERSEN_GPU_PROFILE=1; paper:vim names
# a paper input; PROFILE_TREES="head chunks" also profiles the tree .compare/chunks).
# STEPS names the steps to run (default all: "tests cuda paper rounds corpus"; the cpu backend
# runs with corpus), so that the work can be split over two calls.
# A step that runs out of its time is cut and the rest goes on; every step's log is in the tgz,
# which is rewritten before each step (a call cut at its limit keeps what had finished). Everything
# does not fit in one 600 s call; at b70449a/8efbeae three calls do it:
#   STEPS="paper rounds corpus" GPU_TIMEOUT_S=45 CPU_TIMEOUT_S=420   (313 s: the cpu backend needs
#                                                                    238 s for python3.11)
#   STEPS="tests paper"                                              (about 210 s)
#   STEPS=cuda CUDA_S=550                                            (with --ncu; not yet run whole)
# A device call's start and copies count about 200 s of device time beside the command's own (270 s
# on 2026-12-05, and 15 s for each call refused while no machine was free); a call within 30 s of the
# last one's end finds the machine warm and pays no start. At 79d4b58 the 18 corpus programs took
# STEPS=corpus CPU_AFTER=1 230 s, STEPS="tests paper" 164 s.
# The results carry ANDERSEN_COMMIT (the device's copy of .git may be stale: pass it).
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1 ANDERSEN_COMMIT=${ANDERSEN_COMMIT:?set ANDERSEN_COMMIT to the commit being measured}
CPU_JOBS=${CPU_JOBS:-11}
CPU_TIMEOUT_S=${CPU_TIMEOUT_S:-300}
CPU_AFTER=${CPU_AFTER:-0}
GPU_TIMEOUT_S=${GPU_TIMEOUT_S:-150}
ROUNDS_S=${ROUNDS_S:-45}
CUDA_S=${CUDA_S:-200}
PAPER_S=${PAPER_S:-120}
ROUNDS_INPUT=${ROUNDS_INPUT:-git}
PROFILE_INPUTS=${PROFILE_INPUTS:-python3.11}
POOL_INPUTS=${POOL_INPUTS:-bash tmux nginx btop sqlite3 perl git vim cppcheck python3.11}
POOL_CAPS=${POOL_CAPS:-262144 1048576}
POOL_S=${POOL_S:-200}
WALKS_INPUTS=${WALKS_INPUTS:-sqlite3 vim git}
STAGES_PROGRAMS=${STAGES_PROGRAMS:-bash gawk lighttpd ninja-build btop tmux zstd}
STAGES_S=${STAGES_S:-70}
WALKS_S=${WALKS_S:-40}
CORPUS_PROGRAMS=${CORPUS_PROGRAMS:-}   # the corpus step's programs, both backends (default: every dump)
# counted runs per corpus program after its warm-up run (a cpu solve whose warm-up took over 3 s
# counts that run alone): one run left bash's GPU solve at 35.1 ms in one call and 50.6 ms in the
# next (bench/results/h100-38cadb3/FINDINGS.md)
CORPUS_REPEAT=${CORPUS_REPEAT:-3}
# 0: no warm-up (75 to 95 s on a fresh machine), for calls that time nothing a first solve compiles:
# compare (each input's first solve there is an untimed warm-up), and profile or rounds when only
# their kernel times are read (CUDA events: a kernel compiles before its start event); their first
# input's solve_ms then includes the compiles.
WARMUP=${WARMUP:-1}
STEPS=" ${STEPS:-tests cuda paper rounds corpus} "   # a call may run some: STEPS="tests cuda paper"
want() { [[ "$STEPS" == *" $1 "* ]]; }
# an input's dump: a corpus program's name, or paper:NAME for the paper input .inputs/NAME.npz
dump_of() { [[ $1 == paper:* ]] && echo ".inputs/${1#paper:}.npz" || echo ".corpus-dumps/$1.npz"; }
OUT=${OUT:?the device tool sets OUT}
RES="bench/results/h200-$ANDERSEN_COMMIT"
mkdir -p "$RES"/{cpu,gpu,paper,cuda,compare}
S=$(date +%s)
pack() { tar czf "$OUT/results.tgz.part" "$RES" 2>/dev/null && mv "$OUT/results.tgz.part" "$OUT/results.tgz"; }
el() { pack; echo "[$(( $(date +%s) - S )) s] $*"; }   # packed before every step: a cut call keeps what ran
trap pack EXIT

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$RES/device.txt"
# every GPU kernel first, into CuPy's cache (empty on a fresh device machine): no step after it pays
# for a compile, and the log says what a user's first solve on a new machine costs. It runs once per
# machine (a stamp in the cache), so on a warm machine it only imports. WARMUP=0 skips it only where
# the stamp is there: without it, the first solve of a step pays every compile (at 0ffd6e8 the corpus
# step's first program ran past GPU_TIMEOUT_S so, on a fresh machine)
if [[ $WARMUP == 1 ]] || ! python3 -c "from andersen_gpu.warmup import gpu_stamp; raise SystemExit(not gpu_stamp().exists())" 2>/dev/null; then
    el "gpu kernels: andersen_gpu warmup --backend gpu"
    { time timeout 300 python3 -m andersen_gpu warmup --backend gpu; } > "$RES/gpu/warmup.txt" 2>&1
    tail -4 "$RES/gpu/warmup.txt"
fi
cpu_corpus() {
    timeout $((CPU_TIMEOUT_S + 20)) python3 -m bench run --suite corpus --backends cpu --jobs "$CPU_JOBS" \
        --repeat "$CORPUS_REPEAT" --long-s 3 --timeout-s "$CPU_TIMEOUT_S" --no-progress --no-plots --out-dir "$RES/cpu" $CORPUS_PROGRAMS
}
if want corpus; then
    # CPU_AFTER=1: the cpu backend's corpus waits for the GPU's (the host's cores to the GPU solves'
    # host steps, the cycle passes' SCC); only the numba cache is filled beside the GPU work
    el "cpu backend: numba cache, then the corpus ($CPU_JOBS at once$([[ $CPU_AFTER == 1 ]] && echo ', after the gpu'))"
    (
        timeout 200 python3 -c "from andersen_gpu.warmup import compile_backend; print(compile_backend('cpu'))"
        [[ $CPU_AFTER == 1 ]] || cpu_corpus
    ) > "$RES/cpu/log.txt" 2>&1 &
    CPU=$!
fi

if want compiles; then
    # right after the warm-up (the tests fill the cache), in a new process: any kernel that what
    # tests/test_warmup.py solves, or a corpus solve, still compiles, named
    el "kernels the warm-up missed (bench/kernel_compiles.py on the corpus dumps)"
    timeout 240 python3 bench/kernel_compiles.py --samples $(ls -Sr .corpus-dumps/*.npz) --out "$RES/gpu/compiles" \
        > "$RES/gpu/compiles.jsonl" 2> "$RES/gpu/compiles.err"
    grep -c '"kernels"' "$RES/gpu/compiles.jsonl"
fi
if want tests; then
    el "gpu tests"
    # every test marked gpu: the backend's, the rules', the alias and CUDA programs' (with .llvm-extracts)
    ANDERSEN_LLVM_EXTRACTS=.llvm-extracts timeout 240 python3 -m pytest -p no:cacheprovider -q -m gpu tests \
        > "$RES/gpu/tests.txt" 2>&1
    tail -2 "$RES/gpu/tests.txt"
fi
if want paper; then
    el "paper inputs, gpu"
    timeout "$PAPER_S" python3 bench/gpu_paper_inputs.py time --repeat 3 --out "$RES/paper" > "$RES/paper/log.txt" 2>&1
    grep -v "^$" "$RES/paper/log.txt" | tail -1
fi
if want cuda; then
    el "CUDA kernels"
    timeout "$CUDA_S" python3 bench/cuda_device_run.py --ncu --out "$RES/cuda" > "$RES/cuda/log.txt" 2>&1
    tail -2 "$RES/cuda/log.txt"
fi
if want pool; then
    el "the pool's start: default against POOL_CAPS (bench/pool_start.py)"
    timeout "$POOL_S" python3 bench/pool_start.py $(for p in $POOL_INPUTS; do echo .corpus-dumps/$p.npz; done) \
        $(for c in $POOL_CAPS; do echo --capacity $c; done) --out "$RES/gpu/pool-start.csv" > "$RES/gpu/pool-start.txt" 2>&1
    tail -3 "$RES/gpu/pool-start.txt"
fi
if want compare; then
    # the paper inputs with the trees under .compare/<rev>/ (git archive of <rev>), between two runs
    # of this tree, one process after another on one host: ratios from one call. An exported tree
    # compiles every kernel again on its first input (the include folder is a compile option):
    # give PAPER_S a minute more than the inputs take
    for T in head-1 $(ls .compare 2>/dev/null) head-2; do
        el "paper inputs, gpu, $T"
        DIR=$([[ $T == head-* ]] && echo . || echo ".compare/$T")
        [[ $DIR == . ]] || ln -sfn "$PWD/.inputs" "$DIR/.inputs"
        (cd "$DIR" && PYTHONPATH=. timeout "$PAPER_S" python3 bench/gpu_paper_inputs.py time --repeat 3 \
            --out "$OLDPWD/$RES/compare/$T") > "$RES/compare-$T.txt" 2>&1
        grep -v "^$" "$RES/compare-$T.txt" | tail -1
    done
fi
if want stages; then
    # the two GPU stages of STAGES_PROGRAMS (objects, collapsed solve) with this tree and each tree
    # under .compare/, one process after another (bench/stages_ab.py)
    for T in head $(ls .compare 2>/dev/null); do
        el "stages, gpu, $T"
        DIR=$([[ $T == head ]] && echo . || echo ".compare/$T")
        timeout "$STAGES_S" python3 bench/stages_ab.py run "$DIR" "$T" $STAGES_PROGRAMS >> "$RES/gpu/stages.jsonl" \
            2>> "$RES/gpu/stages.err"
    done
    python3 bench/stages_ab.py table "$RES/gpu/stages.jsonl" head > "$RES/gpu/stages.md" 2>&1
    cat "$RES/gpu/stages.md"
fi
if want rounds; then
    # (each input a corpus dump's name, or paper:NAME: dump_of)
    for P in $ROUNDS_INPUT; do
        el "$P's rounds on the gpu, streamed (cut at ROUNDS_S)"
        F=$(dump_of "$P")
        N=${P/:/-}
        timeout $((ROUNDS_S + 30)) python3 bench/gpu_rounds.py "$F" --timing \
            --max-s "$ROUNDS_S" > "$RES/gpu/$N-rounds.jsonl" 2> "$RES/gpu/$N-rounds.err"
        tail -1 "$RES/gpu/$N-rounds.jsonl" | cut -c1-600
    done
fi
if want profile; then
    # the kernels compiled with their cycle counters (ANDERSEN_GPU_PROFILE=1: a compile of every
    # kernel file, about a minute, and slower kernels): where emit's time goes, and its longest item
    # (a name is a corpus dump; paper:NAME the paper input .inputs/NAME.npz)
    # PROFILE_TREES: this tree (head) and/or trees under .compare/ (their files named -<tree>)
    for T in ${PROFILE_TREES:-head}; do
        DIR=$([[ $T == head ]] && echo . || echo ".compare/$T")
        SFX=$([[ $T == head ]] || echo "-$T")
        for P in $PROFILE_INPUTS; do
            el "$P's rounds on the gpu, profiled ($T)"
            F=$PWD/$(dump_of "$P")
            N=${P/:/-}$SFX
            (cd "$DIR" && ANDERSEN_GPU_PROFILE=1 PYTHONPATH=. timeout $((ROUNDS_S + 120)) python3 bench/gpu_rounds.py \
                "$F" --timing --max-s "$ROUNDS_S") > "$RES/gpu/$N-profile.jsonl" 2> "$RES/gpu/$N-profile.err"
            tail -1 "$RES/gpu/$N-profile.jsonl" | cut -c1-300
        done
    done
fi
if want walks; then
    # walk geps on and off, side by side: each input's rounds streamed, cut at WALKS_S
    for P in $WALKS_INPUTS; do
        for MODE in walks no-walks; do
            el "$P's rounds on the gpu, $MODE"
            FLAG=$([[ $MODE == no-walks ]] && echo --no-walk-geps)
            timeout $((WALKS_S + 60)) python3 bench/gpu_rounds.py ".corpus-dumps/$P.npz" --max-s "$WALKS_S" $FLAG \
                > "$RES/gpu/$P-$MODE-rounds.jsonl" 2> "$RES/gpu/$P-$MODE-rounds.err"
            tail -1 "$RES/gpu/$P-$MODE-rounds.jsonl" | cut -c1-300
        done
    done
fi
if want corpus; then
    el "corpus, gpu"
    N_DUMPS=$(ls .corpus-dumps/*.npz 2>/dev/null | wc -l)
    timeout $((N_DUMPS * GPU_TIMEOUT_S)) python3 -m bench run --suite corpus --backends gpu \
        --repeat "$CORPUS_REPEAT" --long-s 3 --timeout-s "$GPU_TIMEOUT_S" --no-progress --no-plots \
        --out-dir "$RES/gpu" $CORPUS_PROGRAMS > "$RES/gpu/log.txt" 2>&1
    tail -12 "$RES/gpu/log.txt"
    el "waiting for the cpu backend"
    wait "$CPU"
    if [[ $CPU_AFTER == 1 ]]; then
        el "corpus, cpu backend"
        cpu_corpus >> "$RES/cpu/log.txt" 2>&1
    fi
    tail -12 "$RES/cpu/log.txt"
fi
el "end"
