"""CUDA-event timing of the kernels of a solve (``GpuOptions.timing``)."""

from __future__ import annotations

import cupy

_EVENTS: list = []   # events reused from solve to solve (a solve reads its marks before it returns)


class Timer:
    """Per-name kernel times from pairs of CUDA events, read once at the end (no
    synchronisation in between). Disabled, :meth:`run` just calls."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.marks: list = []
        self.used = 0

    def _event(self):
        if self.used == len(_EVENTS):
            _EVENTS.append(cupy.cuda.Event())
        self.used += 1
        return _EVENTS[self.used - 1]

    def run(self, name: str, fn, *args, **kw):
        if not self.enabled:
            return fn(*args, **kw)
        a = self._event()
        a.record()
        out = fn(*args, **kw)
        b = self._event()
        b.record()
        self.marks.append((name, a, b))
        return out

    def totals(self, since: int = 0) -> dict[str, float]:
        """Milliseconds per name, summed over the calls from the ``since``-th on (``len(marks)``
        before a stretch of work gives that stretch's; its events must have completed: the
        caller synchronised after it)."""
        out: dict[str, float] = {}
        for name, a, b in self.marks[since:]:
            out[name] = out.get(name, 0.0) + cupy.cuda.get_elapsed_time(a, b)
        return {k: round(v, 3) for k, v in out.items()}
