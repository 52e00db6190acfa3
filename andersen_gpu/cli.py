"""The ``andersen-gpu`` command line: ``main(argv) -> int`` and its exit codes.

Each subcommand is a module of :mod:`andersen_gpu.commands` named in
:data:`COMMAND_MODULES`; adding one is a new module plus one name here. A
command module exposes ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int`` (see :mod:`andersen_gpu.commands`).

Errors never reach the user as tracebacks: bad input (:class:`InputError`)
and usage errors print one ``andersen-gpu: error: ...`` line and exit 2, an
unavailable backend exits 3, running out of device or host memory exits 4, Ctrl-C
(SIGINT) exits 130 and SIGTERM 143, after removing every temporary file (see
:mod:`andersen_gpu.interrupt`).
"""

from __future__ import annotations

import argparse
import enum
import importlib
import os
import sys

from constraints.errors import InputError

PROG = "andersen-gpu"

#: Subcommand modules under :mod:`andersen_gpu.commands`, in ``--help`` order.
COMMAND_MODULES = ("solve", "query", "convert", "info", "extract", "check_aliases", "alias", "annotate", "bench",
                   "warmup")


class ExitCode(enum.IntEnum):
    """Exit status of :func:`main`."""

    OK = 0
    CHECK_FAILED = 1          # a requested verification found differences
    BAD_INPUT = 2             # bad input file or bad command line
    BACKEND_UNAVAILABLE = 3   # the requested backend cannot run here
    OUT_OF_MEMORY = 4         # the solve ran out of device (GPU) or host memory
    INTERRUPTED = 130         # Ctrl-C (128 + SIGINT)
    PIPE_CLOSED = 141         # stdout closed before the output was written (| head), quietly
    TERMINATED = 143          # SIGTERM (128 + SIGTERM)


class UsageError(Exception):
    """A command-line error found by argparse (reported with the usage line)."""

    def __init__(self, parser: argparse.ArgumentParser, message: str):
        super().__init__(message)
        self.parser = parser
        self.message = message


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises :class:`UsageError` instead of exiting."""

    def error(self, message: str):
        raise UsageError(self, message)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per entry of :data:`COMMAND_MODULES`."""
    from . import __version__

    parser = _Parser(prog=PROG, description="Inclusion-based (Andersen) points-to analysis, solved on a GPU "
                     "with CPU solvers beside it.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)
    for module_name in COMMAND_MODULES:
        module = importlib.import_module(f"andersen_gpu.commands.{module_name}")
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.__doc__ or module.HELP,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def error(message: str) -> None:
    """Print one ``andersen-gpu: error: ...`` line on stderr (on a terminal, over a progress bar
    still drawn there: an interrupt leaves the worker's bar open)."""
    tqdm = sys.modules.get("tqdm")
    bar_open = tqdm is not None and bool(getattr(getattr(tqdm, "tqdm", None), "_instances", None))
    clear = "\r\033[K" if bar_open and sys.stderr.isatty() else ""
    print(f"{clear}{PROG}: error: {' '.join(str(message).split())}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return an :class:`ExitCode`."""
    from .interrupt import Terminated, exit_status
    from .solve import BackendUnavailable

    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except UsageError as exc:
            exc.parser.print_usage(sys.stderr)
            error(exc.message)
            return ExitCode.BAD_INPUT
        except SystemExit as exc:  # --help and --version exit through argparse
            return ExitCode.OK if exc.code in (0, None) else ExitCode.BAD_INPUT
        return ExitCode(args.run(args))
    except InputError as exc:
        error(str(exc))
        return ExitCode.BAD_INPUT
    except BackendUnavailable as exc:
        error(str(exc))
        return ExitCode.BACKEND_UNAVAILABLE
    except KeyboardInterrupt as exc:
        error("interrupted")
        return ExitCode(exit_status(exc))
    except Terminated as exc:
        error(f"terminated ({exc})")
        return ExitCode(exit_status(exc))
    except MemoryError as exc:  # CuPy's OutOfMemoryError is one too
        error(f"out of memory: {exc}" if str(exc) else "out of memory")
        return ExitCode.OUT_OF_MEMORY
    except BrokenPipeError:  # stdout closed early (| head): nothing to say, and no one to say it to
        _silence_stdout()
        return ExitCode.PIPE_CLOSED
    except OSError as exc:  # e.g. an output folder that does not exist
        error(f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else str(exc))
        return ExitCode.BAD_INPUT


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def console_main() -> None:
    """Entry point of the ``andersen-gpu`` console script: :func:`main` with SIGINT and SIGTERM
    handled (:func:`andersen_gpu.interrupt.install_handlers`)."""
    from . import interrupt

    interrupt.install_handlers()
    code = int(main())
    interrupt.ignore_signals()  # the answer is decided: a late Ctrl-C must not turn it into a traceback
    if interrupt.signal_received():
        # the clean-up has run; skip the interpreter's finalization, which would run under a worker
        # still in compiled code, and which ends a process whose KeyboardInterrupt went through an
        # import with SIGINT (exit -2) instead of our exit status
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
