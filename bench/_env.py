"""Where and when a benchmark ran: machine, commit, date; and a Markdown table writer."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def commit() -> str:
    """Short hash of HEAD, with ``+dirty`` when the working tree has uncommitted changes.

    ``$ANDERSEN_COMMIT``, when set, is taken as is: for a tree exported with ``git archive``
    (into a git-ignored folder of another checkout, or a device copy whose ``.git`` is not the
    exported commit's), where git would name the surrounding checkout instead. Without it and
    without git: "unknown".
    """
    if os.environ.get("ANDERSEN_COMMIT"):
        return os.environ["ANDERSEN_COMMIT"]
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return os.environ.get("ANDERSEN_COMMIT", "unknown")


def cpu_name() -> str:
    """The processor's model name from /proc/cpuinfo (else what :mod:`platform` knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def host() -> str:
    """One line: processor, cores, memory, OS, Python."""
    try:
        mem = f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        mem = "? GiB"
    return (f"{cpu_name()}, {os.cpu_count()} cores, {mem}, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def gpu_name() -> str:
    """The CUDA device CuPy sees, or "" when there is none."""
    from andersen_gpu import gpu_available

    ok, name = gpu_available()
    return name if ok else ""


def today() -> str:
    """The local date and time, ISO 8601 to the minute."""
    return datetime.datetime.now().astimezone().isoformat(timespec="minutes")


def markdown_table(df) -> str:
    """A GitHub Markdown table of a DataFrame, without pandas' optional ``tabulate``.

    Integers get thousands separators; NaN and None become empty cells.
    """
    import numbers

    import pandas as pd

    def cell(v) -> str:
        if v is None or (not isinstance(v, str) and pd.isna(v)):
            return ""
        if isinstance(v, bool):
            return str(v)
        if isinstance(v, numbers.Integral):
            return f"{int(v):,}"
        if isinstance(v, float):
            return f"{v:,.1f}" if abs(v) >= 100 else f"{v:.3g}"
        return str(v).replace("|", "\\|")

    head = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "| " + " | ".join("---" for _ in df.columns) + " |"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *body])
