"""Growing lists of nodes and constraints, turned into a ConstraintSet at the end."""

from __future__ import annotations

import numpy as np

from ..model import ConstraintSet, NodeKind

VALUE, OBJECT, FIELD, FUNCTION = (int(k) for k in NodeKind)


class Builder:
    """Append-only node table and constraint columns.

    Objects get consecutive ids: the object (field 0) then fields ``1..k-1``;
    field ``j`` has size ``k - j`` so that gep offsets stay relative.
    """

    def __init__(self):
        self.names: list[str] = []
        self.kind: list[int] = []
        self.size: list[int] = []
        self.loc: list = []  # !dbg id (int >= 0), -1 - IR line index, a "file:line" string, or None
        self.addr_d: list[int] = []
        self.addr_s: list[int] = []
        self.copy_d: list[int] = []
        self.copy_s: list[int] = []
        self.load_d: list[int] = []
        self.load_s: list[int] = []
        self.store_d: list[int] = []
        self.store_s: list[int] = []
        self.gep_d: list[int] = []
        self.gep_s: list[int] = []
        self.gep_o: list[int] = []

    def node(self, name: str, kind: int = VALUE, loc=None) -> int:
        self.names.append(name)
        self.kind.append(kind)
        self.size.append(0)
        self.loc.append(loc)
        return len(self.names) - 1

    def obj(self, name: str, n_slots: int, kind: int = OBJECT, loc=None, field_names=None,
            reach: int | None = None) -> int:
        """A memory object of ``max(n_slots, 1)`` slots; returns the id of slot 0.

        ``reach`` (None: all slots) splits the slots into the declared type's first ``reach``
        and a tail reached only by a gep from slot 0 (a field of a wider struct type read
        through the object's address, see ``ModuleExtractor.object_layout``): slot ``j <
        reach`` has bound ``reach - j``, so offsets from inside the declared type (a smear's
        ``+1`` steps, byte arithmetic) never enter the tail; a tail slot ``j`` has bound
        ``k - j``, except slot 1 when ``reach`` is 1 (bound 1: slot 0's ``+1`` goes no further).
        """
        k = max(n_slots, 1)
        r = k if reach is None else max(1, min(reach, k))
        base = len(self.names)
        self.names.append(name)
        self.kind.append(kind)
        self.size.append(k)
        self.loc.append(loc)
        for j in range(1, k):
            self.names.append(field_names[j] if field_names else f"{name}#{j}")
            self.kind.append(FIELD)
            self.size.append(r - j if j < r else (1 if j == 1 else k - j))
            self.loc.append(loc)
        return base

    def addr(self, x: int, y: int) -> None:
        """``x = &y``."""
        self.addr_d.append(x)
        self.addr_s.append(y)

    def copy(self, x: int, y: int) -> None:
        """``x = y``."""
        if x != y:
            self.copy_d.append(x)
            self.copy_s.append(y)

    def load(self, x: int, y: int) -> None:
        """``x = *y``."""
        self.load_d.append(x)
        self.load_s.append(y)

    def store(self, x: int, y: int) -> None:
        """``*x = y``."""
        self.store_d.append(x)
        self.store_s.append(y)

    def gep(self, x: int, y: int, o: int) -> None:
        """``x = y + o``."""
        self.gep_d.append(x)
        self.gep_s.append(y)
        self.gep_o.append(o)

    def offset(self, y: int, o: int, name: str) -> int:
        """A node for ``y + o`` (``y`` itself when ``o == 0``)."""
        if o == 0:
            return y
        t = self.node(name)
        self.gep(t, y, o)
        return t

    def smear(self, y: int, name: str) -> int:
        """A node pointing to every slot at or after every slot ``y`` points to.

        ``t = y; u = t + 1; t = u``: the sound model of an unknown offset.
        """
        t = self.node(name)
        u = self.node(name + "+1")
        self.copy(t, y)
        self.gep(u, t, 1)
        self.copy(t, u)
        return t

    def build(self, locations: list[str] | None, int_to_pointer: int) -> ConstraintSet:
        i32 = np.int32
        return ConstraintSet(
            len(self.names), np.asarray(self.size, np.int64), np.asarray(self.kind, np.int8),
            np.asarray(self.addr_d, i32), np.asarray(self.addr_s, i32),
            np.asarray(self.copy_d, i32), np.asarray(self.copy_s, i32),
            np.asarray(self.load_d, i32), np.asarray(self.load_s, i32),
            np.asarray(self.store_d, i32), np.asarray(self.store_s, i32),
            np.asarray(self.gep_d, i32), np.asarray(self.gep_s, i32), np.asarray(self.gep_o, i32),
            int_to_pointer=int_to_pointer, names=tuple(self.names),
            locations=tuple(locations) if locations is not None else None)
