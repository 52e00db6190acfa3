"""How fast the SIMT emulator (tests/emu) runs: kernel builds, a warp-synchronous step, solves.

    PYTHONPATH=. python3 bench/emulator_speed.py [--inputs .inputs] [--names ex gcc] > bench/results/emulator.md

Prints a Markdown report: the time to build the backend's kernel files into a fresh cache, the
CPU time of one __shfl_sync step of a warp (a persistent grid of 16 blocks of 256 threads), and
the wall and CPU time of solves on the emulator (the shipped example; paper inputs whose dumps
are in ``--inputs``, written by ``bench/gpu_paper_inputs.py dump``), each checked against the
reference solution where one is stored. CPU times are this process's (g++ excluded), so they
stay comparable on a loaded machine where wall times do not.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SHFL = r"""
extern "C" __global__ void shfl_loop(unsigned* out, int iters) {
    unsigned v = threadIdx.x;
    for (int i = 0; i < iters; ++i) v = __shfl_sync(0xFFFFFFFFu, v, (threadIdx.x + 1) & 31) + 1;
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
"""


def _timed(f):
    t, c = time.perf_counter(), time.process_time()
    out = f()
    return out, time.perf_counter() - t, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--inputs", type=Path, default=ROOT / ".inputs")
    ap.add_argument("--names", nargs="*", default=["ex", "gcc"])
    args = ap.parse_args()
    os.environ["ANDERSEN_GPU_EMULATOR_CACHE"] = tempfile.mkdtemp(prefix="simt-bench-")
    from tests.emu import install
    cp = install()
    import kernels_cu
    from andersen_gpu.backends import gpu, reference
    from andersen_gpu.backends.gpu.device import compile_options
    from constraints import io

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    load = os.getloadavg()[0]
    print(f"# The SIMT emulator's speed\n\n`PYTHONPATH=. python3 bench/emulator_speed.py`, commit `{commit}`, "
          f"{platform.node()} ({os.cpu_count()} cores, {platform.machine()}), "
          f"{time.strftime('%Y-%m-%d')}; load average {load:.1f} at the start.\n")
    files = sorted(p.name for p in kernels_cu.DIRECTORY.glob("*.cu"))
    _, wall, _ = _timed(lambda: [cp.RawModule(code=kernels_cu.source(f), options=compile_options()) for f in files])
    print(f"Build of the {len(files)} kernel files into a fresh cache (g++ -O2, one after another): "
          f"{wall:.1f} s wall.\n")
    fn = cp.RawModule(code=SHFL).get_function("shfl_loop")
    out = cp.zeros(16 * 256, cp.uint32)
    fn((16,), (256,), (out, np.int32(10)))
    _, _, c0 = _timed(lambda: fn((16,), (256,), (out, np.int32(0))))
    _, _, c1 = _timed(lambda: fn((16,), (256,), (out, np.int32(2000))))
    per_step = (c1 - c0) / (16 * 8 * 2000)
    print(f"One `__shfl_sync` step of a warp (32 lanes, each a fiber switch): {per_step * 1e9:.0f} ns CPU; "
          f"a launch of 16 x 256 threads that do nothing: {c0 * 1e3:.2f} ms CPU.\n")
    print("| input | nodes | iterations | wall_s | cpu_s | agrees |\n| --- | ---: | ---: | ---: | ---: | --- |")
    cases = [("linked_list (example)", io.load(ROOT / "examples/linked_list.acs"), None)]
    if args.inputs.is_dir():
        from andersen_gpu.solution import Solution
        from bench.gpu_paper_inputs import load_dump
        for name in args.names:
            path, ref = args.inputs / f"{name}.npz", args.inputs / f"{name}_soln.npz"
            if path.is_file():
                cases.append((name, load_dump(path), Solution.load(ref) if ref.is_file() else None))
    gpu.solve(cases[0][1])   # numba's and the pointee order's first compilations
    for name, cs, ref in cases:
        got, wall, cpu = _timed(lambda: gpu.solve(cs))
        want = ref if ref is not None else reference.solve(cs)
        print(f"| {name} | {cs.n_nodes:,} | {got.stats.iterations} | {wall:.2f} | {cpu:.2f} | "
              f"{'reference solution' if ref is not None else 'reference backend'}: {got == want} |")


if __name__ == "__main__":
    main()
