"""Scoped-noalias metadata that says exactly "disjoint location sets do not alias".

LLVM's ScopedNoAliasAA (``llvm/lib/Analysis/ScopedNoAliasAA.cpp``) answers
NoAlias for accesses A and B when, for some scope domain D, A's
``!alias.scope`` scopes in D are non-empty and all among B's ``!noalias``
scopes in D, or the same with A and B swapped. We give each function one
domain and need, for every two accesses of the function with location sets
``L_a`` and ``L_b``::

    NoAlias(a, b)  <=>  L_a ∩ L_b = ∅

Two exact encodings over the distinct sets ``L_1..L_m`` of a function; the
smaller (in metadata operands) is used:

``set``
    one scope ``s_k`` per distinct set; ``!alias.scope = {s_k}``,
    ``!noalias = {s_j : L_j ∩ L_k = ∅}``. Then ``{s_a} ⊆ noalias(b)`` iff
    ``L_a ∩ L_b = ∅``.
``class``
    one scope per alias class (the locations touched by exactly the same sets:
    the atoms of the family); ``!alias.scope`` = the classes inside ``L_k``,
    ``!noalias`` = the classes of the sets disjoint from ``L_k``. Classes
    inside ``L_a`` all lie outside ``L_b`` iff the sets are disjoint, and every
    class of such an ``L_a`` is listed in ``noalias(b)``.

A set that is disjoint from no other set of its function gets neither list:
it could only ever be MayAlias. Unknown accesses get nothing (the caller
leaves them out), so they stay MayAlias with everything.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class ScopePlan:
    """Scope lists for the distinct location sets of one function.

    Attributes
    ----------
    encoding : ``"set"`` or ``"class"`` (module docstring)
    n_scopes : scopes in the function's domain, numbered ``0..n_scopes-1``
    scopes : per set, the tuple of its ``!alias.scope`` scopes (empty: no metadata)
    noalias : per set, the tuple of its ``!noalias`` scopes
    """

    encoding: str
    n_scopes: int
    scopes: list[tuple[int, ...]]
    noalias: list[tuple[int, ...]]

    @property
    def operands(self) -> int:
        """Metadata operands the plan needs (one list node per distinct list)."""
        lists = {x for x in self.scopes if x} | {x for x in self.noalias if x}
        return sum(len(x) for x in lists) + 2 * self.n_scopes


def plan_scopes(intersects: np.ndarray, members: list[np.ndarray] | None = None) -> ScopePlan:
    """The smaller exact encoding for one function's distinct location sets.

    Parameters
    ----------
    intersects : bool[m, m], whether sets ``i`` and ``j`` share a location
        (the diagonal is True: sets are non-empty)
    members : the sets' locations (sorted int arrays); needed for the
        ``class`` encoding, which is skipped when absent

    Returns
    -------
    ScopePlan
    """
    intersects = np.asarray(intersects, bool)
    best = _by_set(intersects)
    if members is not None:
        other = _by_class(intersects, members)
        if other.operands < best.operands:
            best = other
    return best


def _by_set(intersects: np.ndarray) -> ScopePlan:
    m = intersects.shape[0]
    disjoint = ~intersects
    active = np.flatnonzero(disjoint.any(axis=1))
    scope_of = {int(k): s for s, k in enumerate(active)}
    scopes: list[tuple[int, ...]] = [()] * m
    noalias: list[tuple[int, ...]] = [()] * m
    for k in active:
        scopes[k] = (scope_of[int(k)],)
        noalias[k] = tuple(scope_of[int(j)] for j in np.flatnonzero(disjoint[k]))
    return ScopePlan("set", len(active), scopes, noalias)


def _by_class(intersects: np.ndarray, members: list[np.ndarray]) -> ScopePlan:
    m = intersects.shape[0]
    disjoint = ~intersects
    active = np.flatnonzero(disjoint.any(axis=1))
    signature: dict[int, list[int]] = {}
    for k in active.tolist():
        for z in np.asarray(members[k]).tolist():
            signature.setdefault(z, []).append(k)
    classes: dict[tuple, int] = {}
    of_set: dict[int, list[int]] = {int(k): [] for k in active}
    for sig in signature.values():
        key = tuple(sig)
        if key not in classes:
            c = classes[key] = len(classes)
            for k in key:
                of_set[k].append(c)
    scopes: list[tuple[int, ...]] = [()] * m
    noalias: list[tuple[int, ...]] = [()] * m
    for k in active.tolist():
        scopes[k] = tuple(of_set[k])
        noalias[k] = tuple(sorted({c for j in np.flatnonzero(disjoint[k]).tolist() for c in of_set[j]}))
    return ScopePlan("class", len(classes), scopes, noalias)


def scoped_noalias(scopes_a: tuple[int, ...], noalias_a: tuple[int, ...],
                   scopes_b: tuple[int, ...], noalias_b: tuple[int, ...]) -> bool:
    """ScopedNoAliasAA's verdict for two accesses of one domain: True means NoAlias.

    A transcription of ``ScopedNoAliasAAResult::alias`` for a single domain,
    used to check plans without LLVM.
    """
    def no_alias_in_scopes(scopes, noalias):
        return bool(scopes) and bool(noalias) and set(scopes) <= set(noalias)
    return no_alias_in_scopes(scopes_a, noalias_b) or no_alias_in_scopes(scopes_b, noalias_a)
