"""Header counts against the file and the machine: refuse before allocating.

A dump's header says how many nodes and constraints follow, and readers size
their arrays by it; a header that lies (``nodes=2147483648`` in a 4 KB file)
must cost one error line, not 20 GB of allocations and the kernel's OOM killer.
Readers check a count against what the file can hold first (a line per entry,
bytes per array element), and what the arrays would take against
:func:`available_bytes`, with :func:`require`.
"""

from __future__ import annotations

import os

from .errors import InputError


def available_bytes() -> int:
    """Memory this process may still allocate: ``MemAvailable`` of ``/proc/meminfo`` (Linux),
    else the free physical pages; a very large number where neither is known."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def require(nbytes: int, what: str, source: str | None = None, line: int | None = None) -> None:
    """Raise :class:`InputError` when ``nbytes`` (what ``what`` needs) exceeds :func:`available_bytes`."""
    free = available_bytes()
    if nbytes > free:
        raise InputError(f"{what} would take {_gib(nbytes)} of memory, more than the {_gib(free)} available",
                         source, line)


def _gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB"
