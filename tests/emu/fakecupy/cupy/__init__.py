"""A stand-in for CuPy that runs on the CPU: NumPy-backed arrays and a SIMT emulator for
RawModule kernels (tests/emu/README.md).

It covers what the GPU backend uses, with CuPy's semantics where they differ from NumPy's
(no implicit host/device conversion, 0-d arrays from integer indexing, uninitialised
``empty``). Streams run their work at once, in the order it is issued: a legal CUDA schedule.
Importing it as ``cupy`` is done by ``tests.emu.install()`` (or ``emulated()``).
"""

from __future__ import annotations

import functools

import numpy as np

from . import _memory, cuda  # noqa: F401  (cupy.cuda.*)
from ._core import _unwrap, _wrap, from_host, ndarray, new_array
from ._kernels import RawKernel, RawModule  # noqa: F401
from ._memory import get_default_memory_pool, get_default_pinned_memory_pool  # noqa: F401

__version__ = "13.0.0+simt"
__simt_emulator__ = True

# dtypes and type objects are NumPy's, as in CuPy
for _name in ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp", "dtype",
              "generic", "number", "integer", "signedinteger", "unsignedinteger", "floating",
              "iinfo", "finfo", "result_type", "promote_types", "can_cast", "newaxis", "inf", "nan",
              "pi", "e", "byte", "ubyte", "short", "ushort", "intc", "uintc", "longlong",
              "ulonglong", "half", "single", "double", "float_"):
    if hasattr(np, _name):
        globals()[_name] = getattr(np, _name)
del _name


# -- creation --------------------------------------------------------------------------------

def empty(shape, dtype=np.float64, order="C") -> ndarray:
    return new_array(shape, dtype)


def zeros(shape, dtype=np.float64, order="C") -> ndarray:
    return new_array(shape, dtype, fill=0)


def ones(shape, dtype=np.float64, order="C") -> ndarray:
    return new_array(shape, dtype, fill=1)


def full(shape, fill_value, dtype=None, order="C") -> ndarray:
    if dtype is None:
        dtype = fill_value.dtype if isinstance(fill_value, (np.generic, ndarray)) else np.array(fill_value).dtype
    if isinstance(fill_value, ndarray):
        fill_value = fill_value._a
    return new_array(shape, dtype, fill=fill_value)


def empty_like(a, dtype=None, order="K", subok=None, shape=None) -> ndarray:
    return new_array(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def zeros_like(a, dtype=None, order="K", subok=None, shape=None) -> ndarray:
    return new_array(a.shape if shape is None else shape, a.dtype if dtype is None else dtype, fill=0)


def ones_like(a, dtype=None, order="K", subok=None, shape=None) -> ndarray:
    return new_array(a.shape if shape is None else shape, a.dtype if dtype is None else dtype, fill=1)


def full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None) -> ndarray:
    return new_array(a.shape if shape is None else shape, a.dtype if dtype is None else dtype, fill=fill_value)


def asarray(a, dtype=None, order=None, blocking=False) -> ndarray:
    """A device array of ``a``: ``a`` itself when it is one of the right dtype, else a copy."""
    if isinstance(a, ndarray):
        return a if dtype is None or np.dtype(dtype) == a.dtype else a.astype(dtype)
    return from_host(a, dtype)


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, blocking=False) -> ndarray:
    if isinstance(obj, ndarray):
        return obj.astype(dtype or obj.dtype) if copy or (dtype and np.dtype(dtype) != obj.dtype) else obj
    return from_host(np.array(obj, dtype=dtype, ndmin=ndmin))


def ascontiguousarray(a, dtype=None) -> ndarray:
    a = asarray(a, dtype)
    return a if a._a.flags.c_contiguous else a.copy()


def asnumpy(a, stream=None, order="C", out=None, blocking=True) -> np.ndarray:
    if isinstance(a, ndarray):
        return a.get(out=out)
    return np.asarray(a, order=order)


def get_array_module(*args):
    return __import__("cupy") if any(isinstance(a, ndarray) for a in args) else np


# -- NumPy functions on device arrays ---------------------------------------------------------

def _device_function(np_func, name: str | None = None):
    """``np_func`` over device arrays: inputs must be cupy arrays or scalars (a numpy.ndarray
    is refused, as CuPy refuses it); array results become device arrays."""
    @functools.wraps(np_func)
    def f(*args, **kwargs):
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = _unwrap(out, "out")
        args = _unwrap(list(args), f"input of cupy.{name or np_func.__name__}")
        kwargs = {k: (_unwrap(v, k) if k != "out" else v) for k, v in kwargs.items()}
        r = np_func(*args, **kwargs)
        return out if out is not None else _wrap(r)
    f.__name__ = name or np_func.__name__
    return f


def _stable(np_func):
    def f(a, axis=-1, kind=None, **kw):
        return _wrap(np_func(_unwrap(a, "input"), axis=axis, kind="stable"))
    f.__name__ = np_func.__name__
    return f


sort = _stable(np.sort)
argsort = _stable(np.argsort)

for _name in ("cumsum", "cumprod", "searchsorted", "unique", "concatenate", "stack", "hstack",
              "vstack", "count_nonzero", "sum", "prod", "amin", "amax", "min",
              "max", "argmin", "argmax", "mean", "any", "all", "diff", "bincount", "repeat", "take",
              "lexsort", "clip", "isin", "in1d", "arange", "linspace", "cumsum", "copyto", "reshape",
              "ravel", "tile", "roll", "flip", "histogram", "digitize", "intersect1d",
              "union1d", "setdiff1d", "dot", "outer", "array_equal", "allclose", "isclose", "maximum",
              "minimum", "add", "subtract", "multiply", "divide", "floor_divide", "true_divide", "mod",
              "remainder", "power", "negative", "abs", "absolute", "sqrt", "exp", "log", "log2",
              "floor", "ceil", "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_not",
              "left_shift", "right_shift", "equal", "not_equal", "less", "less_equal", "greater",
              "greater_equal", "logical_and", "logical_or", "logical_not", "logical_xor", "isnan",
              "isinf", "isfinite", "sign", "square", "broadcast_to", "expand_dims", "squeeze",
              "transpose", "swapaxes", "zeros_like", "partition", "argpartition", "median",
              "percentile", "cumulative_sum", "trim_zeros", "pad", "split", "array_split", "meshgrid",
              "indices", "put", "place", "select", "piecewise", "popcount"):
    if hasattr(np, _name) and _name not in globals():
        globals()[_name] = _device_function(getattr(np, _name), _name)
del _name


#: The kernels of CuPy's nonzero family (``flatnonzero``, ``nonzero``, ``argwhere``, ``where`` with
#: one argument, ``ndarray.nonzero``) depend on the input's size as well as its dtype: up to
#: NONZERO_SMALL elements one kernel, above it another (an "incomplete scan"), and none when nothing
#: is nonzero (CuPy 14, ``_ndarray_nonzero``). Each such call with a nonzero element adds
#: ("nonzero", dtype, "small" or "large") here: the kernels a real CuPy compiles beyond one per line
#: and dtype (tests/test_warmup.py compares the warm-up's with real solves').
KERNEL_CLASSES: set[tuple[str, str, str]] = set()
NONZERO_SMALL = 512


def _note_nonzero(a: np.ndarray) -> None:
    if np.count_nonzero(a):
        KERNEL_CLASSES.add(("nonzero", a.dtype.str, "small" if a.size <= NONZERO_SMALL else "large"))


def _nonzero_family(np_func, name: str):
    f = _device_function(np_func, name)

    @functools.wraps(f)
    def g(a, *args, **kwargs):
        if name != "where" or not args:   # where(c, x, y) is an elementwise kernel
            _note_nonzero(_unwrap(a, f"input of cupy.{name}"))
        return f(a, *args, **kwargs)
    return g


for _name in ("flatnonzero", "nonzero", "argwhere", "where"):
    globals()[_name] = _nonzero_family(getattr(np, _name), _name)
del _name


def arange(start, stop=None, step=None, dtype=None) -> ndarray:  # noqa: F811 - keeps the device array fresh
    return from_host(np.arange(start, stop, step, dtype=dtype) if stop is not None else
                     np.arange(start, dtype=dtype) if step is None else np.arange(0, start, step, dtype=dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):  # noqa: F811
    return from_host(np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype, axis=axis))


_MEMOS: list[dict] = []


def memoize(for_each_device: bool = False):
    """``cupy.memoize``: cache a function's results by its (hashable) arguments (one device);
    ``clear_memo()`` empties every such cache."""
    def decorator(f):
        cache: dict = {}
        _MEMOS.append(cache)

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            key = (args, tuple(sorted(kwargs.items())))
            if key not in cache:
                cache[key] = f(*args, **kwargs)
            return cache[key]
        return wrapper
    return decorator


def clear_memo() -> None:
    for cache in _MEMOS:
        cache.clear()


def is_available() -> bool:
    return True


def show_config() -> None:
    print("CuPy stand-in of the SIMT emulator (tests/emu): NumPy", np.__version__)
