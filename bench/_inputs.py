"""The benchmark inputs: where each one is found, and how it is read.

Two suites:

``paper``
    the GPU Andersen paper's constraint dumps: ``B_nodes.txt.gz`` (+ siblings)
    in ``--paper-dir`` (default ``../shared/paper-inputs``), or, where that
    folder is absent (the GPU machine), the compact ``.inputs/B.npz`` written
    by ``bench/gpu_paper_inputs.py dump``. Reference solutions:
    ``B_correct_soln_001.txt.gz`` or ``.inputs/B_soln.npz``.
``corpus``
    real programs (``bench/corpus/manifest.csv``): the extracted dump
    ``.corpus-dumps/P.npz`` with its ``P.json`` extraction record when present
    (that is what travels to the GPU machine), else the bitcode
    ``.corpus/P/P.bc`` (extracted in the measuring process).
"""

from __future__ import annotations

import csv
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ._env import ROOT

SUITES = ("paper", "corpus")
#: The paper's programs, smallest first (gap has no nodes file and is absent).
PAPER_PROGRAMS = ("ex", "gcc", "perl", "nh", "vim", "python", "svn", "gs", "gdb", "gimp", "pine", "mplayer",
                  "php", "linux")
DEFAULT_PAPER_DIR = ROOT.parent / "shared" / "paper-inputs"
DEFAULT_PAPER_DUMPS = ROOT / ".inputs"
DEFAULT_CORPUS_DIR = ROOT / ".corpus"
DEFAULT_DUMPS_DIR = ROOT / ".corpus-dumps"
MANIFEST = ROOT / "bench" / "corpus" / "manifest.csv"


@dataclass
class BenchInput:
    """One input of the benchmark.

    ``kind`` says how it is read: ``paper`` (nodes file + siblings), ``npz``
    (our dump format, or the legacy compact dump of ``.inputs/``) or
    ``bitcode`` (extracted when measured). ``extraction`` is the record the
    dump step wrote beside a corpus dump (instructions, extract_s, ...).
    """

    suite: str
    name: str
    path: Path
    kind: str
    solution: Path | None = None
    extraction: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return dict(suite=self.suite, name=self.name, path=str(self.path), kind=self.kind,
                    solution=str(self.solution) if self.solution else None, extraction=self.extraction)

    @classmethod
    def from_json(cls, d: dict) -> "BenchInput":
        return cls(d["suite"], d["name"], Path(d["path"]), d["kind"],
                   Path(d["solution"]) if d.get("solution") else None, d.get("extraction") or {})


def corpus_programs(manifest: Path = MANIFEST) -> list[str]:
    """Corpus program names in the manifest's order (smallest-first build order)."""
    if not manifest.is_file():
        return []
    with manifest.open(newline="") as fh:
        return [row["program"] for row in csv.DictReader(fh)]


def manifest_rows(manifest: Path = MANIFEST) -> dict[str, dict]:
    """The manifest's rows by program name."""
    if not manifest.is_file():
        return {}
    with manifest.open(newline="") as fh:
        return {row["program"]: row for row in csv.DictReader(fh)}


def find_paper(name: str, paper_dir: Path, paper_dumps: Path) -> BenchInput | None:
    """A paper input from the text dumps, else from the compact ``.npz``; None when neither exists."""
    nodes = paper_dir / f"{name}_nodes.txt.gz"
    if nodes.is_file() and (paper_dir / f"{name}_constraints_after_hcd.txt.gz").is_file():
        soln = paper_dir / f"{name}_correct_soln_001.txt.gz"
        return BenchInput("paper", name, nodes, "paper", soln if soln.is_file() else None)
    npz = paper_dumps / f"{name}.npz"
    if npz.is_file():
        soln = paper_dumps / f"{name}_soln.npz"
        return BenchInput("paper", name, npz, "npz", soln if soln.is_file() else None)
    return None


def find_corpus(name: str, dumps_dir: Path, corpus_dir: Path, prefer_bitcode: bool = False) -> BenchInput | None:
    """A corpus program from its dump (with the extraction record), else its bitcode."""
    dump, record = dumps_dir / f"{name}.npz", dumps_dir / f"{name}.json"
    bitcode = corpus_dir / name / f"{name}.bc"
    if dump.is_file() and not (prefer_bitcode and bitcode.is_file()):
        extraction = json.loads(record.read_text()) if record.is_file() else {}
        return BenchInput("corpus", name, dump, "npz", extraction=extraction)
    if bitcode.is_file():
        return BenchInput("corpus", name, bitcode, "bitcode")
    return None


def find_inputs(suites, names=(), *, paper_dir: Path = DEFAULT_PAPER_DIR, paper_dumps: Path = DEFAULT_PAPER_DUMPS,
                corpus_dir: Path = DEFAULT_CORPUS_DIR, dumps_dir: Path = DEFAULT_DUMPS_DIR,
                prefer_bitcode: bool = False) -> tuple[list[BenchInput], list[str]]:
    """Every input of ``suites`` (only those in ``names`` when given) that exists here.

    Returns
    -------
    (inputs, missing)
        The inputs found, in suite order then smallest first, and "suite/name"
        of those named or listed but not found.
    """
    wanted = set(names)
    found, missing = [], []
    for suite in suites:
        listed = PAPER_PROGRAMS if suite == "paper" else tuple(corpus_programs())
        for name in listed:
            if wanted and name not in wanted:
                continue
            inp = (find_paper(name, paper_dir, paper_dumps) if suite == "paper"
                   else find_corpus(name, dumps_dir, corpus_dir, prefer_bitcode))
            (found.append(inp) if inp is not None else missing.append(f"{suite}/{name}"))
    known = set(PAPER_PROGRAMS) | set(corpus_programs())
    missing += [f"?/{n}" for n in sorted(wanted - known)]
    return found, missing


def load_constraints(inp: BenchInput):
    """The :class:`~constraints.model.ConstraintSet` of a paper or npz input (not bitcode)."""
    from constraints import io

    if inp.kind == "npz" and _is_legacy_npz(inp.path):
        # the compact dumps of bench/gpu_paper_inputs.py (no format tag, no names)
        from bench.gpu_paper_inputs import load_dump
        return load_dump(inp.path)
    if inp.kind == "bitcode":
        raise ValueError(f"{inp.path}: bitcode is extracted, not loaded")
    return io.load(inp.path)


def _is_legacy_npz(path: Path) -> bool:
    """True for a zip archive of arrays without our ``format`` member (anything else goes to io.load)."""
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
    except (zipfile.BadZipFile, OSError):
        return False
    return "format.npy" not in names and "n_nodes.npy" in names


def load_solution(path: Path):
    """A reference solution (the paper's text format or our ``.npz``)."""
    from andersen_gpu.solution import Solution

    return Solution.load(path)
