"""The cpu backend's set table (hash-consed sets, ``_cpu_sets``) against Python sets."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from andersen_gpu.backends import _cpu_sets as sets

UNIVERSE = 300          # ids 0..299: several 64-id words


def _words(ids) -> tuple[np.ndarray, int]:
    """The sparse bit-set of ``ids`` as (words, elements)."""
    out = []
    for x in sorted(set(ids)):
        base, bit = x >> 6, 1 << (x & 63)
        if out and out[-2] == base:
            out[-1] |= bit
        else:
            out += [base, bit]
    return np.array(out, np.uint64), len(out) // 2


def _contents(t, s) -> frozenset:
    w = sets.words(t, s)
    assert len(w) == 2 * sets.length(t, s)
    got = set()
    for i in range(sets.length(t, s)):
        base, bits = int(w[2 * i]), int(w[2 * i + 1])
        assert bits != 0 and (i == 0 or base > int(w[2 * i - 2]))
        got |= {64 * base + b for b in range(64) if bits >> b & 1}
    return frozenset(got)


class Model:
    """A table and the contents each held id must have; every id held once here."""

    def __init__(self):
        self.t = sets.new_table(UNIVERSE)
        self.held: dict[int, frozenset] = {}     # id -> contents
        self.refs: dict[int, int] = {}

    def hold(self, s: int, want: frozenset) -> None:
        assert _contents(self.t, s) == want
        for other, c in self.held.items():        # interning: equal sets have equal ids
            assert (other == s) == (c == want)
        sets.incref(self.t, s)
        self.held[s] = want
        self.refs[s] = self.refs.get(s, 0) + 1

    def drop(self, s: int) -> None:
        sets.decref(self.t, s)
        self.refs[s] -= 1
        if self.refs[s] == 0:
            del self.refs[s]
            del self.held[s]

    def check(self) -> None:
        for s, c in self.held.items():
            assert _contents(self.t, s) == c


ids = st.lists(st.integers(0, UNIVERSE - 1), max_size=40)
ops = st.lists(st.tuples(st.sampled_from(["intern", "union", "join", "diff", "inter", "words", "drop"]),
                         ids, st.integers(0, 10 ** 6), st.integers(0, 10 ** 6)), min_size=1, max_size=80)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops)
def test_operations_match_python_sets(program):
    m = Model()
    for op, xs, i, j in program:
        held = sorted(m.held)
        a = held[i % len(held)] if held else sets.EMPTY
        b = held[j % len(held)] if held else sets.EMPTY
        ca, cb = m.held.get(a, frozenset()), m.held.get(b, frozenset())
        if op == "intern":
            w, k = _words(xs)
            m.hold(sets.intern(m.t, w, k), frozenset(xs))
        elif op == "union":
            m.hold(sets.union(m.t, a, b), ca | cb)
        elif op == "join":
            # join(a, c, d) needs c − d ⊆ a: c = (part of a) ∪ d
            part = frozenset(list(sorted(ca))[: len(xs)])
            w, k = _words(part)
            p = sets.intern(m.t, w, k)
            m.hold(p, part)
            c = sets.union(m.t, p, b)
            m.hold(c, part | cb)
            m.hold(sets.join(m.t, a, c, b), ca | part | cb)
        elif op == "diff":
            m.hold(sets.diff(m.t, a, b), ca - cb)
        elif op == "inter":
            m.hold(sets.intersect(m.t, a, b), ca & cb)
        elif op == "words":
            w, k = _words(xs)
            m.hold(sets.union_words(m.t, a, w, k), ca | frozenset(xs))
        elif op == "drop" and held:
            m.drop(a)
        m.check()
    while m.held:
        m.drop(next(iter(m.held)))
    st_ = dict(zip(sets.STAT_NAMES, sets.stats(m.t)))
    assert st_["sets made"] == st_["sets freed"]       # nothing held: everything was reclaimed


def test_ids_are_reused_and_stale_cache_entries_never_answer():
    # a ∪ b is cached, then its result is freed and its id reused by another set:
    # asking a ∪ b again must compute it afresh, not return the new occupant of the id
    t = sets.new_table(UNIVERSE)
    a = sets.intern(t, *_words([1, 2]))
    b = sets.intern(t, *_words([70]))
    sets.incref(t, a)
    sets.incref(t, b)
    c = sets.union(t, a, b)
    sets.release(t, c)                      # nobody held it: freed
    d = sets.intern(t, *_words([5, 200]))
    assert d == c                           # the freed id came back
    sets.incref(t, d)
    again = sets.union(t, a, b)
    assert again != d and _contents(t, again) == {1, 2, 70}
    assert _contents(t, d) == {5, 200}


def test_many_live_sets_grow_the_table_and_stay_exact():
    # past the initial capacities: ids (64), index slots (256), pool words (1024), cache entries
    t = sets.new_table(4096)
    rng = np.random.default_rng(7)
    held = {}
    for _ in range(3000):
        xs = frozenset(rng.integers(0, 4096, rng.integers(1, 30)).tolist())
        s = sets.intern(t, *_words(xs))
        if s not in held:
            sets.incref(t, s)
            held[s] = xs
    keys = sorted(held)
    for i in range(0, len(keys) - 1, 2):     # unions of neighbours, half of them freed again
        u = sets.union(t, keys[i], keys[i + 1])
        assert _contents(t, u) == held[keys[i]] | held[keys[i + 1]]
        sets.release(t, u)
    for s in keys[::3]:
        sets.decref(t, s)
        del held[s]
    for s, xs in held.items():
        assert _contents(t, s) == xs
        assert sets.intern(t, *_words(xs)) == s
    st_ = dict(zip(sets.STAT_NAMES, sets.stats(t)))
    assert st_["repacks"] > 0 and st_["live sets (peak)"] >= len(held)


def test_diff_and_union_of_long_sets_with_shared_runs():
    # b is a with a few ids removed and a few added: long runs of equal elements (compared
    # several at a time) broken by the differences, at the ends and in the middle
    t = sets.new_table(1 << 16)
    rng = np.random.default_rng(3)
    for trial in range(40):
        a = set(rng.choice(1 << 16, 3000, replace=False).tolist())
        drop = set(rng.choice(sorted(a), trial % 7, replace=False).tolist())
        extra = set(rng.integers(0, 1 << 16, trial % 5).tolist())
        if trial % 3 == 0:
            drop |= {min(a), max(a)}
        b = (a - drop) | extra
        ia = sets.intern(t, *_words(a))
        sets.incref(t, ia)
        ib = sets.intern(t, *_words(b))
        sets.incref(t, ib)
        assert _contents(t, sets.diff(t, ia, ib)) == a - b
        assert _contents(t, sets.diff(t, ib, ia)) == b - a
        assert _contents(t, sets.union(t, ia, ib)) == a | b
        assert _contents(t, sets.intersect(t, ia, ib)) == a & b
