"""Ctrl-C and SIGTERM: every command stops cleanly, even inside compiled code.

Contract of the command line (:func:`andersen_gpu.cli.console_main` installs
the handlers): SIGINT ends the command with exit 130 and SIGTERM with 143
(128 + the signal), one line on stderr, after the usual unwinding has removed
every temporary file and folder (atomic outputs, the LLVM front end's work
folders; ``subprocess.run`` kills the tools it was waiting for) and before any
output file appeared.

Two things make that hold:

* **SIGTERM becomes an exception** (:class:`Terminated`), as SIGINT is
  :class:`KeyboardInterrupt`, so ``finally`` blocks and ``with`` statements
  run; once one of the two has arrived, further SIGINT/SIGTERM are ignored for
  :data:`HARD_STOP_AFTER_S` seconds so that the clean-up is not cut short (one
  after that ends the process at once).
* **Long compiled calls run off the main thread** (:func:`call`). Python runs
  signal handlers in the main thread between bytecodes: a KeyboardInterrupt
  raised while numba converts a typed container to or from Python (the
  return of the cpu backend's core) leaves it with a half-built object and
  the process crashed with SIGSEGV; and while the main thread is inside a
  long compiled loop no handler runs at all. So the work runs in a worker
  thread (the numba entry points release the GIL: ``nogil=True``) and the
  main thread waits on it, interruptibly. An interrupted worker cannot be
  stopped; it is left running as a daemon thread, its result dropped.

After a signal, :func:`console_main` ends the process with ``os._exit`` once
its output is flushed: a normal interpreter exit would run the finalizers of
the code under a worker's feet, and CPython ends a process whose
KeyboardInterrupt passed through an import (the signal can land in one) by
killing itself with SIGINT, which would replace exit status 130 by -2.
"""

from __future__ import annotations

import os
import signal
import threading
import time

#: Exit status for a command ended by signal ``s``: 128 + s (130 for SIGINT, 143 for SIGTERM).
SIGNAL_EXIT_BASE = 128
#: A second signal this many seconds or more after the first ends the process at once.
HARD_STOP_AFTER_S = 3.0


class Terminated(BaseException):
    """Raised in the main thread when the process receives SIGTERM (a BaseException, like
    KeyboardInterrupt, so that ``except Exception`` does not swallow it)."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)


_stopping: list = []                 # (signal, monotonic time) of the first signal, once one came


def _handler(signum: int, frame) -> None:
    if _stopping:
        if time.monotonic() - _stopping[1] < HARD_STOP_AFTER_S:
            return  # already unwinding: let the clean-up finish
        # the clean-up hangs, or the exception was swallowed: stop now, as asked twice
        os.write(2, b"andersen-gpu: error: interrupted again: stopping at once\n")
        os._exit(SIGNAL_EXIT_BASE + signum)
    _stopping.extend((signum, time.monotonic()))
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def install_handlers() -> None:
    """Turn SIGINT into KeyboardInterrupt and SIGTERM into :class:`Terminated` (main thread only).

    A signal the process was started with ignored (``nohup``, a background job
    of a non-interactive shell) stays ignored.
    """
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _handler)


def ignore_signals() -> None:
    """From now on SIGINT and SIGTERM do nothing (the command's exit status is decided)."""
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)


def exit_status(exc: BaseException) -> int:
    """128 + the signal behind ``exc`` (a KeyboardInterrupt or a :class:`Terminated`)."""
    signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
    return SIGNAL_EXIT_BASE + int(signum)


def call(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, run in a worker thread while the main thread waits interruptibly.

    For long calls into compiled (numba) code that releases the GIL: a signal
    then interrupts the wait in the main thread at once (the exception
    propagates from here) and never lands inside numba's conversions of
    arguments and results, which run in the worker. Called from any thread
    but the main one, it just calls ``fn``. Exceptions of ``fn`` are raised
    here as they are.
    """
    if threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    outcome: list = []
    done = threading.Event()

    def work() -> None:
        try:
            outcome.append((True, fn(*args, **kwargs)))
        except BaseException as exc:  # handed to the waiting thread
            outcome.append((False, exc))
        finally:
            done.set()

    worker = threading.Thread(target=work, name=f"andersen-gpu {getattr(fn, '__qualname__', 'work')}",
                              daemon=True)
    worker.start()
    # not worker.join(): an exception raised inside join() marks the thread stopped while it still
    # runs (CPython 3.11's fix of bpo-45274). An interrupt raises out of this wait; the worker is
    # left to run (see the module docstring)
    while not done.wait(0.25):
        pass
    ok, value = outcome[0]
    if ok:
        return value
    raise value


def signal_received() -> bool:
    """True once SIGINT or SIGTERM reached a handler installed by :func:`install_handlers`."""
    return bool(_stopping)
