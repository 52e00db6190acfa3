"""GPU solve time and peak device memory with the pool's initial capacity at 2^18 (main), 2^17, 2^16,
runs interleaved. Usage: poolcap.py REPS NAME... (corpus program, or paper:NAME)."""
import os, sys, time, json, statistics
if os.environ.get("ANDERSEN_GPU_EMULATOR") == "1":
    sys.path.insert(0, "."); from tests.emu import install; install()
sys.path.insert(0, '.'); sys.path.insert(0, 'bench')
from pathlib import Path
from constraints import io as cio
import andersen_gpu
from andersen_gpu.preprocess.objects import collapse_reached
from andersen_gpu.preprocess import collapse
from gpu_paper_inputs import load_dump
reps = int(sys.argv[1])
CAPS = (1 << 18, 1 << 17, 1 << 16)
for name in sys.argv[2:]:
    if name.startswith("paper:"):
        work, kw = load_dump(Path(f".inputs/{name[6:]}.npz")), {}
    else:
        cs = cio.load(f".corpus-dumps/{name}.npz")
        fine, _ = collapse_reached(cs, lambda c: andersen_gpu.solve(c, backend="gpu"))
        work, _ = collapse(fine); kw = dict(preprocess=False)
    res = {c: [] for c in CAPS}; info = {}
    for c in CAPS:
        andersen_gpu.solve(work, backend="gpu", capacity=c, **kw)
    for r in range(reps):
        for c in CAPS:
            t = time.perf_counter(); sol = andersen_gpu.solve(work, backend="gpu", capacity=c, **kw)
            res[c].append((time.perf_counter() - t) * 1e3)
            n = sol.stats.notes
            info[c] = dict(peak_MiB=round(sol.stats.peak_device_bytes / 2**20, 1), bpf=n["bytes_per_fact"],
                           compactions=n["compactions"], growths=n["pool_growths"], retries=n["round_retries"], digest=hash(sol.set_indices.tobytes()) % 10**8)
    print(json.dumps(dict(input=name, **{str(c): dict(ms=round(statistics.median(res[c]), 1), runs=[round(x, 1) for x in res[c]], **info[c]) for c in CAPS})), flush=True)
