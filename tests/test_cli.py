"""The ``andersen-gpu`` command line: commands, exit codes, the README's commands, ``.ci/run``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import andersen_gpu.commands.solve as solve_command
from andersen_gpu import BackendUnavailable, Solution
from andersen_gpu.cli import COMMAND_MODULES, ExitCode, main
from constraints import io
from constraints.model import ConstraintSet

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "linked_list.acs"
EXAMPLE_SOLUTION = ROOT / "examples" / "linked_list.solution.txt"
README = ROOT / "README.md"


@pytest.fixture
def small(tmp_path: Path) -> Path:
    cs = ConstraintSet.from_lists(5, obj_size={3: 1, 4: 1}, addr=[(0, 3), (1, 4)], copy=[(2, 0)],
                                  store=[(0, 1)], names=["p", "q", "r", "o", "t"])
    path = tmp_path / "small.acs"
    io.save(cs, path)
    return path


def test_exit_codes_are_the_documented_ones() -> None:
    # the README's exit-code table lists exactly the codes main() returns
    text = README.read_text()
    table = text[text.index("### Exit codes"):].split("\n\n")[1]
    documented = {int(m) for m in re.findall(r"^\| *(\d+) *\|", table, re.M)}
    assert documented == {int(c) for c in ExitCode}
    assert {c.name: int(c) for c in ExitCode} == {
        "OK": 0, "CHECK_FAILED": 1, "BAD_INPUT": 2, "BACKEND_UNAVAILABLE": 3, "OUT_OF_MEMORY": 4,
        "INTERRUPTED": 130, "PIPE_CLOSED": 141, "TERMINATED": 143}


def test_every_command_module_follows_the_protocol() -> None:
    import importlib

    for name in COMMAND_MODULES:
        module = importlib.import_module(f"andersen_gpu.commands.{name}")
        assert isinstance(module.NAME, str) and isinstance(module.HELP, str)
        assert callable(module.add_arguments) and callable(module.run)


@pytest.mark.parametrize("argv", [["--help"], ["solve", "--help"], ["convert", "--help"], ["info", "--help"],
                                  ["--version"]])
def test_help_everywhere(argv: list[str], capsys: pytest.CaptureFixture) -> None:
    assert main(argv) == ExitCode.OK
    assert capsys.readouterr().out


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["solve"], ["solve", "x.acs", "--backend", "tpu"],
                                  ["convert", "x.acs"], ["solve", "x.acs", "--no-such-flag"]])
def test_usage_errors_exit_2_without_traceback(argv: list[str], capsys: pytest.CaptureFixture) -> None:
    assert main(argv) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("andersen-gpu: error: ")
    assert "Traceback" not in err


def test_solve_writes_both_solution_formats(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    for name in ("s.npz", "s.txt", "s.txt.gz"):
        assert main(["solve", str(small), "--backend", "reference", "-o", str(tmp_path / name)]) == ExitCode.OK
    a, b, c = (Solution.load(tmp_path / n) for n in ("s.npz", "s.txt", "s.txt.gz"))
    assert a == b == c
    assert a.points_to(2).tolist() == [3] and a.points_to(3).tolist() == [4]
    out = capsys.readouterr().out
    assert "solved" in out and f"wrote {tmp_path / 's.npz'}" in out


def test_solve_stats(small: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["solve", str(small), "--backend", "reference", "--stats"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "backend: reference" in out and "points-to edges: 4" in out and "constraints: 4" in out


def test_stats_asks_for_kernel_times_and_only_then(small: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture) -> None:
    # --stats turns on the gpu's per-kernel CUDA events; a plain solve goes without them
    real_solve = solve_command.solve
    seen = []

    def recording_solve(cs, backend, **options):
        seen.append(options.get("kernel_timing"))
        return real_solve(cs, backend=backend, **options)   # the cpu backend ignores it

    monkeypatch.setattr(solve_command, "solve", recording_solve)
    assert main(["solve", str(small), "--backend", "cpu", "--stats"]) == ExitCode.OK
    assert main(["solve", str(small), "--backend", "cpu"]) == ExitCode.OK
    assert seen == [True, False]


def test_verify_against_passes_and_fails(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    good = tmp_path / "good.txt"
    assert main(["solve", str(small), "--backend", "reference", "-o", str(good)]) == ExitCode.OK
    assert main(["solve", str(small), "--backend", "reference", "--verify-against", str(good)]) == ExitCode.OK
    assert "identical" in capsys.readouterr().out
    bad = tmp_path / "bad.txt"
    bad.write_text(good.read_text().replace("[1, 3] => [4]", "[1, 3] => [3, 4]"))
    assert bad.read_text() != good.read_text()
    assert main(["solve", str(small), "--backend", "reference", "--verify-against", str(bad)]) \
        == ExitCode.CHECK_FAILED
    captured = capsys.readouterr()
    assert "MISMATCH" in captured.out and "node 1 (q)" in captured.out
    assert "check failed" in captured.err


def test_verify_with_second_backend(small: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture) -> None:
    assert main(["solve", str(small), "--backend", "reference", "--verify", "reference"]) == ExitCode.OK
    assert "identical" in capsys.readouterr().out

    real_solve = solve_command.solve
    calls = []

    def wrong_second_solve(cs, backend, **options):
        calls.append(backend)
        sol = real_solve(cs, backend="reference")
        if len(calls) == 1:
            return sol
        sets = [sol.points_to(v).tolist() for v in range(sol.n_nodes)]
        sets[2] = []
        return Solution.from_sets(sets)

    monkeypatch.setattr(solve_command, "solve", wrong_second_solve)
    assert main(["solve", str(small), "--backend", "reference", "--verify", "cpu"]) == ExitCode.CHECK_FAILED
    assert calls == ["reference", "cpu"]
    assert "node 2 (r)" in capsys.readouterr().out


@pytest.mark.slow  # the multi-core mode's first use compiles for about a minute
def test_solve_threads_option(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    serial, parallel = tmp_path / "serial.npz", tmp_path / "parallel.npz"
    assert main(["solve", str(small), "--backend", "cpu", "-o", str(serial)]) == ExitCode.OK
    assert main(["solve", str(small), "--backend", "cpu", "--threads", "2", "-o", str(parallel),
                 "--verify", "reference"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "cpu on 2 threads" in out and "identical" in out
    assert Solution.load(serial) == Solution.load(parallel)
    # other backends ignore --threads
    assert main(["solve", str(small), "--backend", "reference", "--threads", "4"]) == ExitCode.OK


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_solve_threads_must_be_positive(small: Path, value: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["solve", str(small), "--threads", value]) == ExitCode.BAD_INPUT
    assert "--threads" in capsys.readouterr().err


def test_auto_small_input_policy_reaches_the_alias_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture) -> None:
    # alias/annotate solve inside aliasfacts.analyze, which passes auto and the announcement on to solve()
    import sys

    solve_module = sys.modules["andersen_gpu.solve"]
    monkeypatch.setattr(solve_module, "gpu_available", lambda: (False, "no CUDA device"))
    src = tmp_path / "p.ll"
    src.write_text("define ptr @f() {\n  %a = alloca ptr\n  store ptr %a, ptr %a\n  ret ptr %a\n}\n")
    assert main(["alias", str(src), "-o", str(tmp_path / "f.jsonl")]) == ExitCode.OK
    err = capsys.readouterr().err
    assert "backend auto: using reference" in err and "no CUDA device" in err
    assert main(["annotate", str(src), "-o", str(tmp_path / "a.ll"), "--backend", "cpu"]) == ExitCode.OK
    assert "backend auto" not in capsys.readouterr().err


def test_auto_falls_back_and_says_so(small: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture) -> None:
    import sys

    solve_module = sys.modules["andersen_gpu.solve"]   # the module (the package exports a function of that name)
    monkeypatch.setattr(solve_module, "gpu_available", lambda: (False, "no CUDA device"))
    monkeypatch.setattr(solve_module, "SMALL_INPUT_CONSTRAINTS", 0)      # so that auto wants cpu first
    monkeypatch.setitem(sys.modules, "andersen_gpu.backends.cpu", None)  # ... and cpu cannot be imported
    assert main(["solve", str(small), "--backend", "auto"]) == ExitCode.OK
    captured = capsys.readouterr()
    assert "using cpu (no usable GPU (no CUDA device))" in captured.err
    assert "falling back to reference" in captured.err
    assert "(reference," in captured.out


def test_auto_uses_the_reference_solver_for_small_inputs(small: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture) -> None:
    import sys

    solve_module = sys.modules["andersen_gpu.solve"]
    monkeypatch.setattr(solve_module, "gpu_available", lambda: (False, "no CUDA device"))
    assert main(["solve", str(small), "--backend", "auto"]) == ExitCode.OK
    captured = capsys.readouterr()
    assert "using reference" in captured.err and "small enough" in captured.err


def test_unavailable_backend_exits_3(small: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture) -> None:
    def unavailable(cs, backend, **options):
        raise BackendUnavailable(f"{backend} backend unavailable: no CUDA device")

    monkeypatch.setattr(solve_command, "solve", unavailable)
    assert main(["solve", str(small), "--backend", "gpu"]) == ExitCode.BACKEND_UNAVAILABLE
    assert capsys.readouterr().err == "andersen-gpu: error: gpu backend unavailable: no CUDA device\n"


def test_interrupt_exits_130(small: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                             capsys: pytest.CaptureFixture) -> None:
    def interrupted(cs, backend, **options):
        raise KeyboardInterrupt

    monkeypatch.setattr(solve_command, "solve", interrupted)
    out = tmp_path / "s.npz"
    assert main(["solve", str(small), "--backend", "reference", "-o", str(out)]) == ExitCode.INTERRUPTED
    assert not out.exists()
    assert capsys.readouterr().err == "andersen-gpu: error: interrupted\n"


def test_out_of_memory_exits_4_with_one_line_and_no_output(small: Path, monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    def out_of_memory(cs, backend, **options):
        raise MemoryError("device out of memory growing the points-to pool to 168.7 GiB: Out of memory "
                          "allocating 181,189,214,208 bytes")

    monkeypatch.setattr(solve_command, "solve", out_of_memory)
    out = tmp_path / "s.npz"
    assert main(["solve", str(small), "--backend", "gpu", "-o", str(out)]) == ExitCode.OUT_OF_MEMORY
    assert not out.exists()
    assert capsys.readouterr().err == ("andersen-gpu: error: out of memory: device out of memory growing the "
                                       "points-to pool to 168.7 GiB: Out of memory allocating 181,189,214,208 bytes\n")


def test_convert_and_info(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["convert", str(small), "-o", str(tmp_path / "s.npz")]) == ExitCode.OK
    assert io.load(tmp_path / "s.npz") == io.load(small)
    assert main(["info", str(tmp_path / "s.npz")]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "format: npz" in out and "nodes: 5" in out and "addr 2" in out


def test_no_hcd_reads_the_original_constraints(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from constraints import paper_format

    nodes = tmp_path / "p_nodes.txt.gz"
    after_hcd = ConstraintSet.from_lists(3, obj_size={2: 1}, kind=[1, 1, 1], addr=[(0, 2)], int_to_pointer=1,
                                         offline_rep=[0, 0, 2])
    original = after_hcd.replace(offline_rep=None, copy_dst=[1], copy_src=[0])
    paper_format.write_paper(after_hcd, nodes)
    paper_format.write_paper(original, nodes, use_hcd=False)
    assert main(["info", str(nodes), "--no-hcd"]) == ExitCode.OK
    assert "copy 1" in capsys.readouterr().out
    assert main(["info", str(nodes)]) == ExitCode.OK
    assert "copy 0" in capsys.readouterr().out
    for flags in ([], ["--no-hcd"]):
        assert main(["solve", str(nodes), "--backend", "reference", "-o", str(tmp_path / "s.npz")] + flags) == 0
        assert Solution.load(tmp_path / "s.npz").points_to(1).tolist() == [2]


def test_python_dash_m(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "andersen_gpu", "info", str(EXAMPLE)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "nodes: 37" in done.stdout


# ------------------------------------------------------------ README and CI
def _readme_blocks(language: str) -> list[str]:
    """The README's fenced code blocks tagged ``language`` ("" for untagged ones)."""
    blocks, current, tag = [], None, ""
    for line in README.read_text().splitlines():
        if line.startswith("```"):
            if current is None:
                current, tag = [], line[3:].strip()
            else:
                if tag == language:
                    blocks.append("\n".join(current) + "\n")
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def _readme_commands() -> list[str]:
    """Lines of the README's ``sh`` code blocks, in order."""
    return [line.strip() for block in _readme_blocks("sh") for line in block.splitlines() if line.strip()]


def test_readme_first_command_solves_the_shipped_example(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    install, first = _readme_commands()[0].split(" && ")
    assert install == "python3 -m pip install -e ."
    assert first == f"andersen-gpu solve examples/{EXAMPLE.name} --backend auto"
    out = tmp_path / "s.txt"
    argv = first.split()[1:]
    argv[1] = str(ROOT / argv[1])
    assert main(argv + ["-o", str(out)]) == ExitCode.OK
    assert Solution.load(out) == Solution.load(EXAMPLE_SOLUTION)
    assert "backend auto" in capsys.readouterr().err


def test_example_solution_by_name() -> None:
    cs = io.load(EXAMPLE)
    sol = Solution.load(EXAMPLE_SOLUTION)
    sol.names = cs.names
    assert sol.points_to_names("main:%r") == ["a", "b"]           # via the function pointer
    assert sol.points_to_names("main:%s") == ["a", "b"]           # via the direct call
    assert sol.points_to_names("main:%w") == []                   # load through int-to-pointer
    assert sol.points_to_names("main:%past") == []                # gep past the object
    assert sol.points_to_names("head") == ["n1", "n2"]


def test_readme_test_command_is_what_ci_runs() -> None:
    install_and_test = "python3 -m pip install -e '.[test,cuda]' && python3 -m pytest"
    assert _readme_commands()[1] == install_and_test
    ci = (ROOT / ".ci" / "run").read_text()
    for part in install_and_test.split(" && "):
        assert part in ci


def test_readme_python_api_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (code,) = _readme_blocks("python")
    assert len(code.strip().splitlines()) <= 10
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code.replace('"examples/', f'"{ROOT}/examples/'), "README.md", "exec"), namespace)
    sol = namespace["sol"]
    assert sol.may_alias("main:%r", "main:%s")
    assert (tmp_path / "copy.npz").is_file() and (tmp_path / "solution.npz").is_file()


def test_readme_text_format_sample_parses(tmp_path: Path) -> None:
    (sample,) = [b for b in _readme_blocks("") if b.startswith("andersen-constraints")]
    (tmp_path / "sample.acs").write_text(sample)
    cs = io.load(tmp_path / "sample.acs")
    assert cs.node_id("q") == 3 and cs.count("gep") == 1


def test_ci_script_is_executable_bash() -> None:
    ci = ROOT / ".ci" / "run"
    assert ci.stat().st_mode & 0o111
    assert subprocess.run(["bash", "-n", str(ci)]).returncode == 0
    text = ci.read_text()
    assert "set -euo pipefail" in text and "nvcc -arch=sm_90" in text and '"$status" -eq 5' in text
    assert "python3 -m pytest -m slow" in text  # the tests the README's command leaves out


def test_error_line_starts_clear_of_an_open_progress_bar(monkeypatch):
    # an interrupt prints its line while the worker's bar is still drawn: on a terminal the line
    # first returns to the start and clears it, so the bar's text does not run into it
    import io

    from tqdm import tqdm

    from andersen_gpu import cli

    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = Tty()
    monkeypatch.setattr(sys, "stderr", out)
    cli.error("interrupted")
    assert out.getvalue() == "andersen-gpu: error: interrupted\n"
    bar = tqdm(total=10, file=io.StringIO())
    try:
        out.seek(0)
        out.truncate()
        cli.error("interrupted")
        assert out.getvalue() == "\r\033[Kandersen-gpu: error: interrupted\n"
    finally:
        bar.close()
