"""The test suite's own rules (issue 21, item 8): every GPU case carries the ``gpu`` marker (so
that ``pytest -m gpu`` on a GPU machine runs it), and the default run leaves out the ``slow``
tests, which ``.ci/run`` runs in a second call."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import andersen_gpu

ROOT = Path(__file__).resolve().parent.parent


def _collect(*args: str) -> list[str]:
    res = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", *args],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode in (0, 5), res.stdout + res.stderr
    return [line for line in res.stdout.splitlines() if "::" in line]


def test_pytest_dash_m_gpu_selects_every_gpu_case_of_the_rule_table() -> None:
    from test_rules import CASES

    selected = _collect("-m", "gpu", "tests/test_rules.py")
    assert len([t for t in selected if t.startswith("tests/test_rules.py::test_rule[")]) == len(CASES)
    assert all(t.endswith("-gpu]") for t in selected if "::test_rule[" in t)
    assert "gpu" in andersen_gpu.BACKENDS


def test_the_default_run_leaves_out_the_slow_tests_and_ci_runs_them() -> None:
    default = set(_collect("tests/test_cpu_backend.py"))
    slow = set(_collect("-m", "slow", "tests/test_cpu_backend.py"))
    assert slow and not (default & slow)
    assert "tests/test_cpu_backend.py::test_matches_reference_thorough" in slow
    assert "tests/test_cpu_backend.py::test_matches_reference" in default
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^python3 -m pytest \|\| status=\$\?$", ci, re.M)
    assert re.search(r"^python3 -m pytest -m slow \|\| slow=\$\?$", ci, re.M)
