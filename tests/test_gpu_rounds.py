"""bench/gpu_rounds.py on the SIMT emulator: one line per round as the solve runs, the summary at
the end, and a cut solve that still leaves its rounds (exit 3)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("g++") is None, reason="g++ builds the emulated kernels")]


def _script(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, ANDERSEN_GPU_EMULATOR="1", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(ROOT / "bench" / "gpu_rounds.py"), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def _run(*args: str) -> tuple[int, list[dict]]:
    p = _script(*args)
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines()]


def test_every_round_is_a_line_then_the_summary():
    rc, lines = _run("examples/linked_list.acs")
    assert rc == 0
    assert lines[0] == {"input": "examples/linked_list.acs", "nodes": 37} and "set_up_s" in lines[1]
    rounds, summary = lines[2:-1], lines[-1]
    assert [r["round"] for r in rounds] == list(range(1, summary["rounds"] + 1))
    assert summary["final_edges"] == 42 and rounds[-1]["next_changed"] == 0


def test_a_cut_solve_exits_3_after_its_rounds_so_far():
    # --max-s 0: cut when the first round ends (the example takes 9)
    rc, lines = _run("examples/linked_list.acs", "--max-s", "0")
    assert rc == 3
    assert [r.get("round") for r in lines[2:-1]] == [1]
    assert lines[-1]["rounds"] == 1 and lines[-1]["cut_at_s"] < 60


def test_a_bad_input_is_one_line():
    p = _script("no/such.acs")
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.splitlines()) == 1, p.stderr


def test_a_paper_dump_is_read(tmp_path):
    # the paper inputs' dumps (bench/gpu_paper_inputs.py dump: arrays without the constraint-set
    # format tag) solve too, so that the H200 call can profile them
    sys.path.insert(0, str(ROOT / "bench"))
    from gpu_paper_inputs import save_dump

    from constraints import io

    dump = tmp_path / "ll.npz"
    save_dump(io.load(str(ROOT / "examples" / "linked_list.acs")), dump)
    rc, lines = _run(str(dump))
    assert rc == 0 and lines[0]["nodes"] == 37 and lines[-1]["final_edges"] == 42
