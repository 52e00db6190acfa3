"""Subcommands of the ``andersen-gpu`` command line, one module each.

A command module exposes:

``NAME``
    the subcommand's name on the command line;
``HELP``
    one line for ``andersen-gpu --help`` (the module docstring becomes the
    subcommand's own ``--help`` text);
``add_arguments(parser)``
    adds its arguments to an :class:`argparse.ArgumentParser`;
``run(args) -> int``
    does the work and returns an :class:`andersen_gpu.cli.ExitCode`. Bad
    input is raised as :class:`constraints.InputError`, an unusable backend
    as :class:`andersen_gpu.BackendUnavailable`; the CLI turns both into one
    error line and an exit code.

Register a new module by adding its name to
:data:`andersen_gpu.cli.COMMAND_MODULES`. Every registered module is imported
to build the parser, so keep heavy imports inside ``run``.

The helpers below are shared by several commands.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from constraints.model import ConstraintSet

from ..solve import BACKENDS


INPUT_HELP = ("constraint set: .acs/.acs.gz, .npz, a paper dump's B_nodes.txt[.gz], "
              "or LLVM input (.bc/.ll/.c/.cc/.cpp)")


def positive_int(text: str) -> int:
    """argparse type: an integer of at least 1 (``--threads``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def add_input_arguments(parser: argparse.ArgumentParser, what: str = INPUT_HELP) -> None:
    """``INPUT`` and ``--no-hcd``: the arguments of every command that reads a constraint set."""
    parser.add_argument("input", metavar="INPUT", help=what)
    parser.add_argument("--no-hcd", action="store_true",
                        help="paper dumps: read the original B_constraints instead of "
                             "B_constraints_after_hcd + B_hcd")


BACKEND_CHOICES = ("auto",) + BACKENDS


def add_backend_argument(parser: argparse.ArgumentParser,
                         help: str = "solver (default: auto = gpu if present, else cpu)") -> None:
    """``--backend auto|reference|cpu|gpu``, shared by every command that solves."""
    parser.add_argument("--backend", choices=BACKEND_CHOICES, default="auto", help=help)


def add_progress_argument(parser: argparse.ArgumentParser) -> None:
    """``--no-progress``: no progress bars on stderr (they appear only when it is a terminal)."""
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


#: A solve still running after this many seconds gets a progress bar (stderr a terminal only).
PROGRESS_AFTER_S = 1.0


@contextlib.contextmanager
def progress_while(desc: str, enabled: bool = True):
    """Show a bar with the elapsed time on stderr while the block runs, from
    :data:`PROGRESS_AFTER_S` on; only when ``enabled`` and stderr is a terminal.

    The solvers do not know in advance how many rounds they take, so the bar counts
    seconds; it disappears when the block ends.
    """
    if not enabled or not sys.stderr.isatty():
        yield
        return
    import threading

    done = threading.Event()

    def tick() -> None:
        if done.wait(PROGRESS_AFTER_S):
            return
        from tqdm import tqdm

        with tqdm(desc=desc, bar_format="{desc}: {elapsed}", leave=False, file=sys.stderr) as bar:
            while not done.wait(0.5):
                bar.refresh()

    ticker = threading.Thread(target=tick, name="andersen-gpu progress", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join(2.0)


def load_input(args: argparse.Namespace) -> ConstraintSet:
    """Load ``args.input`` (progress bar on large inputs when stderr is a terminal)."""
    from constraints import io

    return io.load(args.input, use_hcd=not args.no_hcd, progress=None)


def check_outputs(outputs, inputs) -> None:
    """Refuse bad output paths before any work (:func:`constraints.atomic.check_outputs`);
    ``inputs`` are input paths as given (a paper dump's family is added here), ``None``s are skipped."""
    from constraints import io
    from constraints.atomic import check_outputs as check

    files = [f for p in inputs if p is not None for f in io.input_files(p)]
    check([p for p in outputs if p is not None], files)


def note(message: str) -> None:
    """One informational line on stderr (kept off stdout, which carries results)."""
    print(f"andersen-gpu: {message}", file=sys.stderr)
