"""Which GPU kernels a solve still compiles after ``andersen_gpu warmup --backend gpu`` (GPU machine).

Usage::

    python3 bench/kernel_compiles.py [DUMP.npz ...] [--samples] [--out DIR]

Solves each input on the GPU and compares CuPy's kernel cache folder before and after: every
binary CuPy added to it (it writes one per kernel it compiles rather than loads) prints one JSON
line with the input being solved, the kernel's entry names and the first lines of its source
(CUPY_CACHE_SAVE_CUDA_SOURCE=1, set here, makes CuPy keep each compiled source beside its
binary). With ``--out`` the sources are copied there too. Run it after the warm-up, in a new
process: a line means the warm-up missed a kernel that a real solve reaches (tests/test_warmup.py's
gpu test fails on the same thing). ``--samples`` first solves what that test solves besides the
dumps: the shipped example, ``warmup.sample_set()`` and ``warmup.gpu_sample_set(values=20000,
seed=3)``.

The folder is compared rather than CuPy's compiler wrapped: at 8530343 on the H200 (CuPy 14) a
wrapper of ``cupy.cuda.compiler.compile_using_nvrtc`` saw no compile while the cache gained a file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _kernel_line(dump: str, binary: Path, out: Path | None) -> dict:
    """What is known of one new cache file: its source's entry names and first lines."""
    src_path = binary.with_name(binary.name + ".cu")
    source = src_path.read_text(errors="replace") if src_path.is_file() else ""
    if out and source:
        (out / src_path.name).write_text(source)
    names = sorted(set(re.findall(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)", source)))
    return dict(dump=dump, kernels=names, file=binary.name, bytes=binary.stat().st_size,
                head=source[:400] if source else "(no source saved)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dumps", nargs="*")
    ap.add_argument("--samples", action="store_true", help="also the sets tests/test_warmup.py solves")
    ap.add_argument("--out", help="folder for the sources of the kernels compiled")
    args = ap.parse_args()
    os.environ["CUPY_CACHE_SAVE_CUDA_SOURCE"] = "1"   # read by CuPy when it compiles

    import andersen_gpu
    from andersen_gpu import warmup
    from constraints import io

    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    cache = warmup.gpu_stamp().parent   # CuPy 14 has no compiler.get_cache_dir(): the stamp knows the folder

    def listing() -> set[Path]:
        return {p for p in cache.rglob("*") if p.is_file()} if cache.is_dir() else set()

    sets = [(p, lambda p=p: io.load(p)) for p in args.dumps]
    if args.samples:
        sets[:0] = [("example", lambda: io.load(str(ROOT / "examples" / "linked_list.acs"))),
                    ("sample_set", warmup.sample_set),
                    ("gpu_sample_set(values=20000, seed=3)", lambda: warmup.gpu_sample_set(values=20000, seed=3))]
    for name, load in sets:
        before = listing()
        andersen_gpu.solve(load(), backend="gpu")
        for f in sorted(listing() - before):
            if not f.name.endswith(".cu") and not f.name.startswith("andersen-gpu-kernels-"):   # not the warm-up's stamp
                print(json.dumps(_kernel_line(name, f, out)), flush=True)
    print(json.dumps(dict(done=[name for name, _ in sets], cache=str(cache))), flush=True)


if __name__ == "__main__":
    main()
