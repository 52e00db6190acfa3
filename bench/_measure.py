"""What one benchmark process measures about one input (run in a fresh subprocess per input).

Stages, each timed with the wall clock of this process:

``extract``   bitcode to constraints (corpus inputs read from bitcode only; a dump carries
              the numbers of the machine that extracted it, see :func:`dump_one`);
``load``      reading a dump;
``preprocess`` :func:`andersen_gpu.preprocess.collapse` (SCC + HVN), shared by every backend;
``solve``     one backend on the collapsed set (``preprocess=False``), from constraint arrays in
              host memory to a :class:`~andersen_gpu.solution.Solution` in host memory.

Timed runs: the first run of a stage is a warm-up (JIT compilation and caches are warmed
before it on a two-node set); when it takes longer than ``long_s`` it is the only run
(``runs`` = 1), otherwise ``repeat`` more runs follow and their median is reported. A GPU
solve's first run never counts: ``repeat`` runs always follow it (it compiles the kernels the
warm-up set did not reach).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import resource
import statistics
import time
from pathlib import Path

import numpy as np

from ._inputs import BenchInput, load_constraints, load_solution

#: Backends in the order they run in a process; reference last (it is gated on the edge count).
BACKEND_ORDER = ("cpu", "gpu", "reference")


@dataclasses.dataclass
class MeasureConfig:
    """How to measure (see the driver's options)."""

    backends: tuple[str, ...] = ("cpu", "gpu", "reference")
    repeat: int = 3
    long_s: float = 10.0
    reference_max_edges: int = 1_000_000
    reference_max_constraints: int = 50_000


def _cpu_s() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def peak_rss_mib() -> float:
    """Peak resident memory of this process (ru_maxrss), MiB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def compact(cs):
    """``cs`` without node names and locations (what the solvers need; a far smaller dump)."""
    return dataclasses.replace(cs, names=None, locations=None)


def extract(inp: BenchInput) -> tuple[object, dict]:
    """Extract a bitcode input; return the constraint set and the extraction record."""
    from constraints.llvm import extract_with_stats

    from ._env import commit, host, today

    c0, t0 = _cpu_s(), time.perf_counter()
    cs, stats = extract_with_stats([inp.path])
    wall, cpu = time.perf_counter() - t0, _cpu_s() - c0
    record = dict(program=inp.name, bitcode=str(inp.path), llvm_instructions=stats.instructions,
                  functions_defined=stats.functions_defined, nodes=cs.n_nodes, constraints=cs.n_constraints,
                  unmodelled_functions=len(stats.unmodelled_calls), extract_s=round(wall, 2),
                  extract_cpu_s=round(cpu, 2), extract_read_s=round(stats.seconds.get("read", 0.0), 2),
                  extract_machine=host(), extract_date=today(), extract_commit=commit(),
                  load_avg=round(os.getloadavg()[0], 1))
    return cs, record


def dump_one(inp: BenchInput, dumps_dir: Path) -> dict:
    """Extract a corpus program and write ``dumps_dir/P.npz`` (no names) and ``P.json`` (the record)."""
    from constraints.npz_format import write_npz

    cs, record = extract(inp)
    dumps_dir.mkdir(parents=True, exist_ok=True)
    npz = dumps_dir / f"{inp.name}.npz"
    write_npz(compact(cs), npz)
    record["dump"] = npz.name
    record["dump_bytes"] = npz.stat().st_size
    record["extract_peak_rss_mib"] = peak_rss_mib()
    (dumps_dir / f"{inp.name}.json").write_text(json.dumps(record, indent=1) + "\n")
    return record


def solution_digest(sol) -> str:
    """A 128-bit digest of the points-to set of every node, independent of how sets are numbered.

    Equal solutions have equal digests whatever the backend's set table looks like (duplicate or
    reordered sets), so digests compare solutions made in different processes or on different
    machines.
    """
    indptr, indices = sol.set_indptr, np.ascontiguousarray(sol.set_indices, "<i4")
    per_set = np.empty((sol.n_sets, 16), np.uint8)
    for s in range(sol.n_sets):
        data = indices[indptr[s]:indptr[s + 1]].tobytes()
        per_set[s] = np.frombuffer(hashlib.blake2b(data, digest_size=16).digest(), np.uint8)
    return hashlib.blake2b(per_set[sol.node_set].tobytes(), digest_size=16).hexdigest()


def _timed(fn, cfg: MeasureConfig, always_repeat: bool = False):
    """Run ``fn`` as a warm-up, then ``cfg.repeat`` more times unless the warm-up was long
    (``always_repeat``: at least once more however long it was).

    Returns (median ms, min ms, runs, results of the counted runs).
    """
    t = time.perf_counter()
    first = fn()
    ms = [(time.perf_counter() - t) * 1e3]
    results = [first]
    if cfg.repeat > 0 and (always_repeat or ms[0] <= cfg.long_s * 1e3):
        ms, results = [], []
        for _ in range(cfg.repeat):
            t = time.perf_counter()
            results.append(fn())
            ms.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ms), min(ms), len(ms), results


def _warm_up(backend: str) -> None:
    """Compile the backend's code on a two-node set, so that no timed run pays for it."""
    from andersen_gpu import solve
    from constraints.model import ConstraintSet

    solve(ConstraintSet.from_lists(2, obj_size={1: 1}, addr=[(0, 1)]), backend=backend)


def available_backends(requested) -> tuple[list[str], dict[str, str]]:
    """The requested backends that can run here, and why each other one cannot."""
    from andersen_gpu import gpu_available

    ok, why = gpu_available() if "gpu" in requested else (False, "")
    usable, skipped = [], {}
    for b in BACKEND_ORDER:
        if b not in requested:
            continue
        if b == "gpu" and not ok:
            skipped[b] = why
        else:
            usable.append(b)
    return usable, skipped


def measure_one(inp: BenchInput, cfg: MeasureConfig, emit=print) -> None:
    """Measure every stage and backend on ``inp``; ``emit`` one JSON line per backend row.

    Rows carry the input-level fields (counts, extraction, load and preprocessing times, peak host
    memory of this process so far) and the backend's own (times, iterations, final edges, peak
    device memory, digest, equality with the reference solution and with the other backends).
    """
    from andersen_gpu import solve
    from andersen_gpu.preprocess import collapse

    base: dict = dict(suite=inp.suite, program=inp.name, source=inp.kind)
    if inp.kind == "bitcode":
        cs, record = extract(inp)
        base.update(extraction_fields(record))
    else:
        t = time.perf_counter()
        cs = compact(load_constraints(inp))
        base["load_s"] = round(time.perf_counter() - t, 3)
        base.update(extraction_fields(inp.extraction))
    base.update(nodes=cs.n_nodes, constraints=cs.n_constraints)

    usable, skipped = available_backends(cfg.backends)
    for b in usable:
        _warm_up(b)
    objects_ms: dict[str, float] = {}
    objects_parts: dict[str, dict] = {}
    if cs.collapse_cycles:   # no backend here: nothing is solved, the stages below see the plain set
        cs, objects_ms, objects_parts = (_collapse_objects(cs, usable, base, cfg) if usable
                                         else (cs.replace(collapse_cycles=False), {}, {}))
    pre_med, _pre_min, pre_runs, pre_results = _timed(lambda: collapse(cs), cfg)
    work, pstats = pre_results[-1]
    del pre_results
    base.update(preprocess_ms=round(pre_med, 1), preprocess_runs=pre_runs, nodes_after=pstats.nodes_after,
                constraints_after=pstats.constraints_after["total"])
    expected = load_solution(inp.solution) if inp.solution is not None else None

    first_sol, first_name, edges = None, "", None
    for b in usable:
        row = dict(base, backend=b)
        if b == "reference":
            reason = _reference_too_big(work, edges, cfg)
            if reason:
                row.update(skipped=reason)
                emit(json.dumps(row))
                continue
        opts = {} if b == "reference" else {"preprocess": False}
        bcfg = dataclasses.replace(cfg, repeat=0) if b == "reference" else cfg  # a check, not a timing
        try:
            # a GPU solve's first run compiles the CUDA and CuPy kernels that the two-node warm-up
            # did not reach (on a machine with an empty kernel cache, seconds: sqlite3 13.0 s
            # against 2.0 s warm, bench/results/h200-1b14a4e/FINDINGS.md), so it never counts
            med, mn, runs, sols = _timed(lambda: solve(work, backend=b, **opts), bcfg, always_repeat=b == "gpu")
        except Exception as exc:  # record it; the other backends still run
            row.update(error=f"{exc.__class__.__name__}: {' '.join(str(exc).split())[:300]}")
            emit(json.dumps(row))
            continue
        sol = sols[-1]
        st = sol.stats
        edges = sol.n_edges
        obj_ms = objects_ms.get(b)
        if obj_ms is not None:
            row["objects_ms"] = round(obj_ms, 2)
            row.update(objects_parts.get(b, {}))
        row.update(device=(st.device if st and st.device else ""), runs=runs, solve_ms_median=round(med, 2),
                   solve_ms_min=round(mn, 2), total_ms=round((obj_ms or 0.0) + pre_med + med, 2),
                   backend_solve_ms=round(st.solve_ms, 2) if st else None,
                   iterations=st.iterations if st else None, final_edges=edges, distinct_sets=sol.n_sets,
                   peak_device_mib=round(st.peak_device_bytes / 2**20, 1) if st and st.peak_device_bytes else None,
                   device_bytes_per_fact=(round(st.peak_device_bytes / edges, 4)
                                          if st and st.peak_device_bytes and edges else None),
                   deterministic=all(s == sol for s in sols[:-1]), digest=solution_digest(sol))
        if expected is not None:
            row["matches_reference_solution"] = bool(sol == expected)
        if first_sol is None:
            first_sol, first_name = sol, b
        else:
            row["equals_" + first_name] = bool(sol == first_sol)
        del sols
        row["peak_host_mib"] = peak_rss_mib()
        emit(json.dumps(row))
    for b, why in skipped.items():
        emit(json.dumps(dict(base, backend=b, skipped=why, peak_host_mib=peak_rss_mib())))


def _collapse_objects(cs, backends, base: dict, cfg: MeasureConfig):
    """The set every backend solves when ``cs.collapse_cycles`` (``andersen_gpu.preprocess.objects``:
    the objects positive-weight cycles reach, found by an object-level solve), made by each fast
    backend (the reference backend's is skipped where another ran: the set is the same) and timed
    there as the solves are (:func:`_timed`; on the GPU never its first run, which loads the
    kernels into the process): ``objects_ms`` per backend, the median, and the parts of its last run
    per backend (``objects_host_ms``, ``objects_preprocess_ms``, ``objects_iterations``: see
    :class:`andersen_gpu.preprocess.objects.ObjectsStats`); ``base`` gets the objects and slots
    collapsed."""
    from andersen_gpu.preprocess.objects import collapse_reached
    from andersen_gpu.solve import coarse_solver

    out, ms, parts = None, {}, {}
    for b in [x for x in backends if x != "reference"] or list(backends):
        med, _mn, _runs, results = _timed(lambda: collapse_reached(cs, coarse_solver(b)),
                                          cfg, always_repeat=b == "gpu")
        got, stats = results[-1]
        ms[b] = med
        if len(ms) > 1 and got != out:
            raise RuntimeError(f"backend {b} collapsed other objects than the first backend")
        out = got
        base.update(collapsed_objects=stats.objects, collapsed_slots=stats.slots, cycle_nodes=stats.cycle_nodes)
        # where the stage's time goes, from its last run on this backend
        parts[b] = dict(objects_host_ms=round(stats.host_ms, 2), objects_iterations=stats.presolve_iterations,
                        objects_preprocess_ms=round(stats.presolve_preprocess_ms, 2))
    return out, ms, parts


def _reference_too_big(work, edges, cfg: MeasureConfig) -> str:
    """Why the pure-Python reference backend is not run on ``work`` ("" when it is)."""
    if work.n_constraints > cfg.reference_max_constraints:
        return f"reference skipped: {work.n_constraints:,} constraints > {cfg.reference_max_constraints:,}"
    if edges is not None and edges > cfg.reference_max_edges:
        return f"reference skipped: {edges:,} final edges > {cfg.reference_max_edges:,}"
    return ""


def extraction_fields(record: dict) -> dict:
    """The columns a row takes from an extraction record (``P.json``)."""
    keys = ("llvm_instructions", "extract_s", "extract_cpu_s", "unmodelled_functions", "dump_bytes",
            "extract_machine", "extract_date")
    return {k: record[k] for k in keys if k in record}
