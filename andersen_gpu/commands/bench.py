"""Benchmark every input, stage and backend: the driver of ``bench/`` (same as ``python -m bench``).

Steps: ``dump`` extracts the corpus bitcode (``.corpus/P/P.bc``) to compact dumps
(``.corpus-dumps/P.npz`` + ``P.json``, what travels to a GPU machine); ``run`` measures
extraction, preprocessing and every available backend on the paper's inputs and the corpus,
checks that all backends agree, and writes ``bench/results/<suite>.{csv,md}`` and plots;
``report`` writes the tables and plots again from the CSV; ``readme`` rewrites the README's
benchmark tables from the committed CSVs (between ``<!-- bench:NAME -->`` markers). The driver lives in the source
checkout (``bench/``), not in the installed package; see ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "bench"
HELP = "benchmark the paper's inputs and the real-program corpus (from a source checkout)"

_CHECKOUT = Path(__file__).resolve().parents[2]


def _driver():
    """``bench.driver`` of the checkout this package was installed from, or None."""
    if not (_CHECKOUT / "bench" / "driver.py").is_file():
        return None
    if str(_CHECKOUT) not in sys.path:
        sys.path.insert(0, str(_CHECKOUT))
    import bench.driver

    return bench.driver


def add_arguments(parser: argparse.ArgumentParser) -> None:
    driver = _driver()
    if driver is None:
        parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
        return
    driver.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from constraints.errors import InputError

    driver = _driver()
    if driver is None:
        raise InputError("the benchmark driver is part of the source checkout (bench/driver.py), "
                         "not of the installed package: run it from a clone", str(_CHECKOUT))
    return driver.run_args(args, sys.argv[2:] if sys.argv[1:2] == [NAME] else None)
