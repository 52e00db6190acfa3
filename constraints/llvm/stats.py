"""What the front end reports beside the constraints: counts, unmodelled calls, alias assertions."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .access_sites import AccessSites


@dataclass
class AliasCheck:
    """One alias assertion call found in the program."""

    kind: str          # MAYALIAS, NOALIAS, ...
    a: int             # node of the first argument
    b: int             # node of the second argument
    location: str      # file:line of the call (or function name when no debug info)
    function: str


@dataclass
class ExtractStats:
    """What the extractor saw and what it could not model.

    Attributes
    ----------
    inputs : the input files
    instructions : LLVM instructions read
    opcodes : instructions per opcode
    functions_defined, functions_declared, globals : module contents
    unmodelled_calls : external functions without a model that can move pointers (a
        pointer argument or result), with call counts: their results point to an object
        of their own and into their arguments; other effects are not modelled
    callbacks : ``(external, function)`` pairs, with counts: a function handed to an
        unmodelled external, which may call it with what it was given
    unknown_instructions : opcodes the extractor does not know, with counts
    inline_asm : calls to inline assembly (no pointer effect modelled)
    loaded_code_lookups : ``dlsym`` calls with a library handle (not a null one, which finds
        the program's own functions): code loaded at run time, modelled as one function of
        unknown effect (the unmodelled default); what that code hands the program's exported
        functions is not modelled
    alias_checks : alias assertions found (MAYALIAS, NOALIAS, ...)
    seconds : time per phase
    """

    inputs: list[str] = field(default_factory=list)
    instructions: int = 0
    opcodes: Counter = field(default_factory=Counter)
    functions_defined: int = 0
    functions_declared: int = 0
    globals: int = 0
    unmodelled_calls: Counter = field(default_factory=Counter)
    callbacks: Counter = field(default_factory=Counter)
    unknown_instructions: Counter = field(default_factory=Counter)
    inline_asm: int = 0
    loaded_code_lookups: int = 0
    alias_checks: list[AliasCheck] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    node_kinds: dict[str, int] = field(default_factory=dict)
    constraints: dict[str, int] = field(default_factory=dict)
    # access sites (loads, stores, memory intrinsics, calls): only with record_sites=True
    access_sites: "AccessSites | None" = None

    def lines(self, unmodelled_limit: int | None = None) -> list[str]:
        """A readable report: counts per kind, then every unmodelled call."""
        out = [f"inputs: {', '.join(self.inputs)}",
               f"instructions: {self.instructions}  functions: {self.functions_defined} defined, "
               f"{self.functions_declared} declared  globals: {self.globals}",
               "nodes: " + "  ".join(f"{k} {v}" for k, v in self.node_kinds.items()),
               "constraints: " + "  ".join(f"{k} {v}" for k, v in self.constraints.items())]
        if self.seconds:
            out.append("time: " + "  ".join(f"{k} {v:.2f}s" for k, v in self.seconds.items()))
        if self.alias_checks:
            out.append(f"alias assertions: {len(self.alias_checks)}")
        if self.inline_asm:
            out.append(f"inline asm calls (not modelled): {self.inline_asm}")
        if self.loaded_code_lookups:
            out.append(f"dlsym calls into code loaded at run time (modelled as unknown code): "
                       f"{self.loaded_code_lookups}")
        for op, n in sorted(self.unknown_instructions.items()):
            out.append(f"unknown instruction (not modelled): {op} x{n}")
        items = sorted(self.unmodelled_calls.items(), key=lambda kv: (-kv[1], kv[0]))
        out.append(f"unmodelled external functions: {len(items)} ({sum(self.unmodelled_calls.values())} calls)")
        shown = items if unmodelled_limit is None else items[:unmodelled_limit]
        for name, n in shown:
            out.append(f"  {name} x{n}")
        if len(shown) < len(items):
            out.append(f"  ... and {len(items) - len(shown)} more")
        if self.callbacks:
            cbs = sorted(self.callbacks.items(), key=lambda kv: (-kv[1], kv[0]))
            out.append(f"functions handed to unmodelled externals (may be called back): {len(cbs)}")
            shown = cbs if unmodelled_limit is None else cbs[:unmodelled_limit]
            for (ext, f), n in shown:
                out.append(f"  {ext} <- @{f} x{n}")
            if len(shown) < len(cbs):
                out.append(f"  ... and {len(cbs) - len(shown)} more")
        return out
