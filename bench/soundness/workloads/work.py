import collections, json, re, itertools, functools, io, weakref, time  # the interpreter's built-in modules only
d = {f"k{i}": i * i for i in range(20000)}
print(sum(d.values()), len(d))
words = "the quick brown fox jumps over the lazy dog the end".split()
print(collections.Counter(words).most_common(2))
print(json.loads(json.dumps({"a": [1, 2, {"b": None}], "c": 1.5})))
print(re.sub(r"(\w)(\w*)", lambda m: m.group(1).upper() + m.group(2), "hello big world"))
print(list(itertools.islice(itertools.permutations("abcd"), 3)))
@functools.lru_cache(None)
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(80))
class P:
    __slots__ = ("x", "y")
    def __init__(self, x, y): self.x, self.y = x, y
    def __repr__(self): return f"P({self.x}, {self.y})"
print(sorted([P(3, 1), P(1, 2), P(2, 0)], key=lambda p: p.y))
def gen(n):
    for i in range(n):
        yield i * i
print(sum(gen(1000)), sorted(range(100), reverse=True)[:3])
try:
    {}["missing"]
except KeyError as e:
    print("caught", e)
buf = io.StringIO(); print("to buffer", file=buf); print(buf.getvalue().strip())
r = weakref.ref(P(1, 1)) if False else None
print(int.from_bytes((70000).to_bytes(4, "little"), "little"), "%x" % hash("fixed") if False else "ok", time.gmtime(0).tm_year)
print(sorted({3, 1, 2} | {5}), tuple(zip("ab", [1, 2])), bytes(range(5)).hex(), "%05.1f" % 2.25)
s = set()
for i in range(50000):
    s.add(i % 1000)
print(len(s), str(1 << 100), divmod(-7, 2), round(2.675, 2), int("ff", 16))
