"""Result tables (CSV + Markdown) and plots of a benchmark run, per suite."""

from __future__ import annotations

from pathlib import Path

#: Leading CSV columns (the issue's minimum first); any others follow in first-seen order.
LEAD_COLUMNS = ("suite", "program", "backend", "device", "commit", "llvm_instructions", "extract_s",
                "solve_ms_median", "agrees", "checked_against", "runs", "solve_ms_min", "preprocess_ms",
                "total_ms", "iterations", "nodes", "constraints", "nodes_after", "constraints_after",
                "final_edges", "distinct_sets", "peak_host_mib", "peak_device_mib", "device_bytes_per_fact",
                "deterministic",
                "matches_reference_solution", "same_as_previous_run", "digest", "skipped", "error",
                "machine", "date", "concurrent_jobs")
TIMED_BACKENDS = ("gpu", "cpu", "reference")


def cpu_gpu_ratio(cpu_ms: float, cpu_objects_ms, gpu_ms: float, gpu_objects_ms) -> float:
    """The cpu backend's time over the GPU's, each with its own object-level solve where it ran one
    (``*_objects_ms`` None or NaN where not): the ratio every corpus table shows."""
    def ms(x) -> float:
        return 0.0 if x is None or x != x else float(x)
    return (cpu_ms + ms(cpu_objects_ms)) / (gpu_ms + ms(gpu_objects_ms))


def agreement(rows: list[dict]) -> None:
    """Set ``agrees`` and ``checked_against`` on the rows of one input, in place.

    A solution counts as checked against every other backend's (same digest; ``==`` where two
    backends ran in one process) and against the paper's reference solution where there is one.
    ``agrees`` stays None where nothing was compared (a single backend, no reference solution).
    """
    solved = [r for r in rows if r.get("digest")]
    names = [r["backend"] for r in solved]
    has_ref = any(r.get("matches_reference_solution") is not None for r in solved)
    checked = names + (["paper solution"] if has_ref else [])
    if len(solved) >= 2 or has_ref:
        same = len({r["digest"] for r in solved}) == 1
        in_process = all(v is not False for r in solved for k, v in r.items() if k.startswith("equals_"))
        ref_ok = all(r.get("matches_reference_solution") is not False for r in solved)
        verdict = same and in_process and ref_ok
    else:
        verdict = None
    for r in solved:
        r["agrees"] = verdict
        r["checked_against"] = " = ".join(checked) if verdict is not None else f"{', '.join(names)} only"


def ordered_frame(rows: list[dict]):
    """The rows as a DataFrame with :data:`LEAD_COLUMNS` first."""
    import pandas as pd

    from ._inputs import PAPER_PROGRAMS, corpus_programs

    df = pd.DataFrame(rows)
    lead = [c for c in LEAD_COLUMNS if c in df.columns]
    df = df[lead + [c for c in df.columns if c not in lead]]
    if "program" in df and len(df):  # inputs in suite order, whatever order they were run or merged in
        rank = {p: i for i, p in enumerate((*PAPER_PROGRAMS, *corpus_programs()))}
        df = df.sort_values("program", key=lambda c: c.map(lambda p: rank.get(p, len(rank))), kind="stable")
    return df.reset_index(drop=True)


def summary(df):
    """One row per input: counts, stage times, each backend's median solve ms, the GPU/CPU ratio,
    the GPU's peak device MiB and bytes per final fact, final facts and distinct final sets."""
    import pandas as pd

    out = []
    for (suite, program), g in df.groupby(["suite", "program"], sort=False):
        first = g.iloc[0]
        row = {"program": program}
        if suite == "corpus":
            row["instructions"] = first.get("llvm_instructions")
        row.update(nodes=first.get("nodes"), constraints=first.get("constraints"),
                   constraints_after=first.get("constraints_after"), preprocess_ms=first.get("preprocess_ms"))
        for b in TIMED_BACKENDS:
            hit = g[(g.backend == b) & g.get("solve_ms_median", pd.Series(dtype=float)).notna()] \
                if "solve_ms_median" in g else g.iloc[:0]
            row[f"{b}_ms"] = hit.solve_ms_median.iloc[0] if len(hit) else None
            if "objects_ms" in hit and len(hit) and pd.notna(hit.objects_ms.iloc[0]):
                row[f"{b}_objects_ms"] = hit.objects_ms.iloc[0]
            if b == "gpu" and len(hit) and "peak_device_mib" in hit:
                row["gpu_peak_MiB"] = hit.peak_device_mib.iloc[0]
                if "device_bytes_per_fact" in hit:
                    row["gpu_bytes/fact"] = hit.device_bytes_per_fact.iloc[0]
        if row.get("gpu_ms") and row.get("cpu_ms"):
            row["cpu/gpu"] = round(cpu_gpu_ratio(row["cpu_ms"], row.get("cpu_objects_ms"),
                                                 row["gpu_ms"], row.get("gpu_objects_ms")), 2)
        if "collapsed_objects" in first and pd.notna(first.get("collapsed_objects")):
            row["collapsed_objects"] = first.get("collapsed_objects")
        solved = g[g.digest.notna()] if "digest" in g else g.iloc[:0]
        row["final_edges"] = solved.final_edges.iloc[0] if len(solved) else None
        if "distinct_sets" in solved:
            row["distinct_sets"] = solved.distinct_sets.iloc[0] if len(solved) else None
        row["agrees"] = solved.agrees.iloc[0] if len(solved) and "agrees" in solved else None
        row["checked"] = solved.checked_against.iloc[0] if len(solved) and "checked_against" in solved else ""
        row["peak_host_MiB"] = g.peak_host_mib.max() if "peak_host_mib" in g else None
        out.append(row)
    sm = pd.DataFrame(out)
    for c in ("instructions", "nodes", "constraints", "constraints_after", "final_edges", "distinct_sets"):
        if c in sm:
            sm[c] = pd.to_numeric(sm[c]).round().astype("Int64")
    return sm.drop(columns=[c for c in sm.columns if (c.endswith("_ms") or c in ("distinct_sets", "gpu_bytes/fact"))
                            and sm[c].isna().all()])


def extraction_table(df):
    """Corpus only: one row per program with the extraction record (machine that extracted)."""
    import pandas as pd

    if "extract_s" not in df:
        return pd.DataFrame()
    cols = [c for c in ("program", "llvm_instructions", "extract_s", "extract_cpu_s", "nodes", "constraints",
                        "unmodelled_functions", "dump_bytes") if c in df]
    ex = df[df.extract_s.notna()].drop_duplicates("program")[cols].copy()
    if "dump_bytes" in ex:
        ex["dump_MiB"] = (ex.pop("dump_bytes") / 2**20).round(2)
    if "llvm_instructions" in ex and len(ex):
        ex["instructions_per_s"] = (ex.llvm_instructions / ex.extract_s).round(0).astype("Int64")
    return ex


def write_markdown(df, path: Path, meta: dict) -> None:
    """``path``: the run's header, the summary table, the extraction table, skipped and failed rows."""
    import pandas as pd

    from ._env import markdown_table

    suite = meta["suite"]
    title = {"paper": "The paper's inputs", "corpus": "Real programs (the corpus)"}.get(suite, suite)
    lines = [f"# {title}: every stage and backend\n",
             f"- command: `{meta['command']}`",
             f"- machine: {meta['machine']}; GPU: {meta['gpu'] or 'none'}",
             f"- date: {meta['date']}; commit: {meta['commit']}",
             f"- backends asked for: {meta['backends']}; repeat {meta['repeat']} after a warm-up "
             f"(one run where the warm-up took over {meta['long_s']} s); concurrent cpu jobs: {meta['jobs']}",
             "- times in ms, wall clock: `preprocess_ms` is the offline collapse shared by every backend; "
             "`<backend>_ms` the median solve of the collapsed set, from constraint arrays in host memory to the "
             "solution in host memory (device copies included); `<backend>_objects_ms` the object-level solve "
             "on that backend that picks the objects to collapse (`collapsed_objects`; LLVM inputs: "
             "`andersen_gpu.preprocess.objects`), once, before the preprocessing; `cpu/gpu` compares "
             "objects + solve",
             "- `agrees`: every backend's solution, and the paper's reference solution where there is one, "
             "is the same (per-node digest, and `Solution ==` between backends run in one process); "
             "`checked` lists what was compared"]
    if "date" in df and df.date.nunique() > 1:  # --merge kept rows of earlier runs
        lines.append(f"- rows from {df.date.nunique()} runs (this command wrote the rows dated {meta['date']}); "
                     "each row's `date`, `commit` and `concurrent_jobs` are in the CSV")
    lines.append("")
    lines += ["## Summary\n", markdown_table(summary(df)), ""]
    if suite == "corpus":
        ex = extraction_table(df)
        if len(ex):
            machine = df.extract_machine.dropna().iloc[0] if "extract_machine" in df and \
                df.extract_machine.notna().any() else "?"
            lines += [f"## Extraction (bitcode to constraints), on {machine}\n",
                      "`extract_s`: wall seconds of `constraints.llvm.extract_with_stats` (reading the bitcode "
                      "with llvm-dis included); `extract_cpu_s`: CPU seconds of that process and its children; "
                      "`dump_MiB`: the compact `.npz` dump (no names).\n",
                      markdown_table(ex), ""]
    flagged = [df[c].notna() for c in ("skipped", "error") if c in df]
    notes = df[pd.concat(flagged, axis=1).any(axis=1)] if flagged else df.iloc[:0]
    if len(notes):
        cols = [c for c in ("program", "backend", "skipped", "error") if c in notes]
        lines += ["## Not run or failed\n", markdown_table(notes[cols]), ""]
    path.write_text("\n".join(lines))


def write_plots(df, out_dir: Path, suite: str) -> list[Path]:
    """Plots of the suite's timings, only where the data exists; [] when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plots (pip install matplotlib)")
        return []
    if "solve_ms_median" not in df:
        return []
    timed = df[df.solve_ms_median.notna()]
    written = []
    programs = list(dict.fromkeys(timed.program))
    backends = [b for b in TIMED_BACKENDS if b in set(timed.backend)]
    if programs and backends:
        fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(programs) + 2), 4))
        width = 0.8 / len(backends)
        for i, b in enumerate(backends):
            ms = timed[timed.backend == b].set_index("program").solve_ms_median
            xs = [j + i * width for j, p in enumerate(programs) if p in ms.index]
            ax.bar(xs, [ms[p] for p in programs if p in ms.index], width, label=b)
        ax.set_xticks([j + width * (len(backends) - 1) / 2 for j in range(len(programs))], programs,
                      rotation=45, ha="right")
        ax.set_yscale("log")
        ax.set_ylabel("median solve time (ms, log)")
        ax.set_title(f"{suite}: solve time per input and backend")
        ax.legend()
        written.append(_save(fig, out_dir / f"{suite}-time.png"))
    pivot = timed.pivot_table(index="program", columns="backend", values="solve_ms_median", sort=False)
    if {"gpu", "cpu"} <= set(pivot.columns):
        ratio = (pivot.cpu / pivot.gpu).dropna()
        if len(ratio):
            fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(ratio) + 2), 4))
            ax.bar(list(ratio.index), list(ratio.values), color=["tab:green" if v >= 1 else "tab:red" for v in ratio])
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_ylabel("cpu time / gpu time (same machine)")
            ax.set_title(f"{suite}: GPU speed-up over the CPU backend")
            ax.tick_params(axis="x", rotation=45)
            written.append(_save(fig, out_dir / f"{suite}-speedup.png"))
    if "final_edges" in timed and timed.final_edges.notna().any():
        fig, ax = plt.subplots(figsize=(6, 4.5))
        for b in backends:
            sub = timed[(timed.backend == b) & (timed.final_edges > 0)]
            ax.scatter(sub.final_edges, sub.solve_ms_median, label=b)
            for r in sub.itertuples():
                ax.annotate(r.program, (r.final_edges, r.solve_ms_median), fontsize=7, alpha=0.7)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("final points-to edges")
        ax.set_ylabel("median solve time (ms)")
        ax.set_title(f"{suite}: solve time against solution size")
        ax.legend()
        written.append(_save(fig, out_dir / f"{suite}-edges.png"))
    return written


def _save(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
