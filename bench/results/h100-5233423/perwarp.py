"""Pairs a warp in the run kernels (rounds.UNION/STORE/EXPAND_PER_WARP), set in one process between
solves, runs interleaved. Usage: perwarp.py REPS NAME... (paper:NAME or a corpus program)."""
import os, sys, time, json, statistics
sys.path.insert(0, '.'); sys.path.insert(0, 'bench')
if os.environ.get("ANDERSEN_GPU_EMULATOR") == "1":
    from tests.emu import install; install()
from pathlib import Path
from constraints import io as cio
import andersen_gpu
from andersen_gpu.backends.gpu import rounds
from andersen_gpu.preprocess.objects import collapse_reached
from andersen_gpu.preprocess import collapse
from gpu_paper_inputs import load_dump
reps = int(sys.argv[1])
CONFIGS = [(32, 32, 32), (8, 32, 32), (4, 32, 32), (8, 8, 8), (2, 8, 8), (1, 4, 4)]
def setc(c): rounds.UNION_PER_WARP, rounds.STORE_PER_WARP, rounds.EXPAND_PER_WARP = c
for name in sys.argv[2:]:
    if name.startswith("paper:"):
        work, kw = load_dump(Path(f".inputs/{name[6:]}.npz")), {}
    else:
        cs = cio.load(f".corpus-dumps/{name}.npz")
        fine, _ = collapse_reached(cs, lambda c: andersen_gpu.solve(c, backend="gpu"))
        work, _ = collapse(fine); kw = dict(preprocess=False)
    ms = {c: [] for c in CONFIGS}; kern = {}; ref = None; same = {}
    for c in CONFIGS:
        setc(c); sol = andersen_gpu.solve(work, backend="gpu", timing=True, **kw)
        kern[c] = {k: round(v, 1) for k, v in sol.stats.kernel_ms.items()}
        ref = ref or sol; same[c] = sol == ref
    for r in range(reps):
        for c in CONFIGS:
            setc(c); t = time.perf_counter(); andersen_gpu.solve(work, backend="gpu", **kw); ms[c].append((time.perf_counter() - t) * 1e3)
    base = statistics.median(ms[CONFIGS[0]])
    print(json.dumps(dict(input=name, rows=[dict(cfg=c, ms=round(statistics.median(ms[c]), 1), ratio=round(statistics.median(ms[c]) / base, 3),
                                                  runs=[round(x, 1) for x in ms[c]], kernel=kern[c], equal=same[c]) for c in CONFIGS])), flush=True)
setc(CONFIGS[0])
