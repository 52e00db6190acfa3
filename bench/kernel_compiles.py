"""Which GPU kernels a solve still compiles after ``andersen_gpu warmup --backend gpu`` (GPU machine).

Usage::

    python3 bench/kernel_compiles.py [DUMP.npz ...] [--samples] [--out DIR]

Solves each dump on the GPU with CuPy's compiler wrapped: every kernel that CuPy compiles (rather
than loads from its cache) prints one JSON line with the dump being solved, the kernel's entry
names, the first lines of its source and the andersen_gpu frames that asked for it. With ``--out``
each compiled source is written there too. Run it after the warm-up, in a new process: a line
means the warm-up missed a kernel that a real solve reaches (tests/test_warmup.py's gpu test fails
on the same thing, without saying which). ``--samples`` first solves what that test solves besides
the dumps: the shipped example, ``warmup.sample_set()`` and ``warmup.gpu_sample_set(values=20000,
seed=3)``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import traceback
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dumps", nargs="*")
    ap.add_argument("--samples", action="store_true", help="also the sets tests/test_warmup.py solves")
    ap.add_argument("--out", help="folder for the sources of the kernels compiled")
    args = ap.parse_args()
    import cupy.cuda.compiler as compiler

    import andersen_gpu
    from andersen_gpu import warmup
    from constraints import io

    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    current = {"dump": ""}
    original = getattr(compiler, "compile_using_nvrtc", None)
    if original is None:
        sys.exit("kernel_compiles: this CuPy has no cupy.cuda.compiler.compile_using_nvrtc to wrap")

    def logged(source, *a, **kw):
        names = sorted(set(re.findall(r"__global__\s+void\s+(\w+)", source)))
        frames = [f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in traceback.extract_stack()[:-1]
                  if "andersen_gpu" in f.filename or "cupy" in f.filename]
        digest = hashlib.sha1(source.encode()).hexdigest()[:12]
        print(json.dumps(dict(dump=current["dump"], kernels=names, source_sha1=digest,
                              head=source[:400], frames=frames[-12:])), flush=True)
        if out:
            (out / f"{digest}.cu").write_text(source)
        return original(source, *a, **kw)

    compiler.compile_using_nvrtc = logged
    sets = [(p, lambda p=p: io.load(p)) for p in args.dumps]
    if args.samples:
        sets[:0] = [("example", lambda: io.load(str(ROOT / "examples" / "linked_list.acs"))),
                    ("sample_set", warmup.sample_set),
                    ("gpu_sample_set(values=20000, seed=3)", lambda: warmup.gpu_sample_set(values=20000, seed=3))]
    for name, load in sets:
        current["dump"] = name
        andersen_gpu.solve(load(), backend="gpu")
    print(json.dumps(dict(done=[name for name, _ in sets])), flush=True)


if __name__ == "__main__":
    main()
