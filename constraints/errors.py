"""Errors raised for bad input.

Every problem with a user's input (a dump file, bitcode, an id out of range)
is an :class:`InputError` whose message is one line naming where the problem
is (file, line, node or constraint) and what it is. The CLI turns it into
exit code 2 without a traceback.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: malformed file, inconsistent counts, ids out of range.

    Parameters
    ----------
    problem:
        What is wrong, e.g. ``"node id 12 out of range [0, 10)"``.
    source:
        The file (or other origin) the problem is in, if known.
    line:
        1-based line number inside ``source``, if known.
    """

    def __init__(self, problem: str, source: str | None = None, line: int | None = None):
        self.problem = problem
        self.source = source
        self.line = line
        super().__init__(self._format())

    def _format(self) -> str:
        where = ""
        if self.source is not None:
            where = str(self.source)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        return where + self.problem

    def at(self, source: str | None = None, line: int | None = None) -> "InputError":
        """Return a copy located in ``source``/``line`` (keeps known fields)."""
        return InputError(self.problem, source if source is not None else self.source,
                          line if line is not None else self.line)
