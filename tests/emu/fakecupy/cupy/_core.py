"""``cupy.ndarray`` on host memory, with CuPy's rules where they differ from NumPy's.

An array wraps a NumPy view of a device allocation (``_memory``). As in CuPy: a host array is
never converted implicitly (``numpy.asarray(a)``, mixing a ``numpy.ndarray`` into an
operation, or passing one to a ``cupy`` function raise TypeError; ``.get()``, ``cupy.asnumpy``
copy explicitly); indexing with integers gives a 0-d array (a view), not a scalar;
``.data.ptr`` is the address of the first element, inside its parent's allocation for a view;
``cupy.empty`` memory is not zeroed: it is filled with a poison byte, 0xA5, so that reading it
before writing shows (arrays up to ANDERSEN_GPU_EMULATOR_POISON_MAX bytes, 64 MiB by default,
the solver's initial pool included; filling larger ones would cost more than a small solve, and
they hold zeros).
"""

from __future__ import annotations

import numbers
import os

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from . import _memory

POISON = 0xA5
POISON_MAX = int(os.environ.get("ANDERSEN_GPU_EMULATOR_POISON_MAX", 64 << 20))


def _unwrap(x, what: str = "argument"):
    """The NumPy view of a cupy array; scalars pass; host arrays are refused as CuPy does."""
    if isinstance(x, ndarray):
        return x._a
    if isinstance(x, np.ndarray):
        raise TypeError(f"Unsupported type {type(x)} ({what}): a numpy.ndarray is host memory; "
                        "use cupy.asarray() to copy it to the device")
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v, what) for v in x)
    return x


def _index(key):
    """An index with cupy arrays replaced by their NumPy views (NumPy arrays are allowed as
    indices, as CuPy allows them)."""
    if isinstance(key, ndarray):
        return key._a
    if isinstance(key, tuple):
        return tuple(_index(k) for k in key)
    if isinstance(key, list):
        return [_index(k) for k in key]
    return key


def _wrap(a):
    """A cupy array for a NumPy result: counted as a fresh allocation unless it is a view of one."""
    if isinstance(a, np.ndarray):
        _memory.POOL.adopt(a)
        return ndarray._view(a)
    if isinstance(a, np.generic):
        arr = np.array(a)
        _memory.POOL.adopt(arr)
        return ndarray._view(arr)
    if isinstance(a, tuple):
        return tuple(_wrap(v) for v in a)
    if isinstance(a, list):
        return [_wrap(v) for v in a]
    return a


def new_array(shape, dtype, fill=None) -> "ndarray":
    """A fresh device array (uninitialised: poisoned, unless ``fill`` is given)."""
    dtype = np.dtype(dtype)
    shape = (int(shape),) if isinstance(shape, numbers.Integral) else tuple(int(s) for s in shape)
    count = 1
    for s in shape:
        if s < 0:
            raise ValueError(f"negative dimensions are not allowed: {shape}")
        count *= s
    buf = _memory.POOL.allocate(count * dtype.itemsize)
    if fill is None and buf.nbytes <= POISON_MAX:
        buf.fill(POISON)
    a = buf.view(dtype).reshape(shape) if count else buf[:0].view(dtype).reshape(shape)
    if fill is not None:
        a[...] = fill
    return ndarray._view(a)


def from_host(obj, dtype=None) -> "ndarray":
    """A device copy of host data (NumPy array, scalar, nested lists)."""
    host = np.asarray(obj, dtype=dtype)
    out = new_array(host.shape, host.dtype, fill=0 if host.size == 0 else None)
    out._a[...] = host
    return out


class _Flags:
    def __init__(self, a: np.ndarray):
        self.c_contiguous = a.flags.c_contiguous
        self.f_contiguous = a.flags.f_contiguous
        self.owndata = False

    def __getitem__(self, key: str):
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous,
                "OWNDATA": self.owndata}[key]


class ndarray(NDArrayOperatorsMixin):
    """A device array of the emulated GPU (see the module docstring)."""

    __slots__ = ("_a", "__weakref__")
    __array_priority__ = 100

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        if memptr is not None or strides is not None or order != "C":
            raise NotImplementedError("cupy.ndarray(shape, dtype) only (no memptr, strides, order)")
        self._a = new_array(shape, dtype)._a

    @classmethod
    def _view(cls, a: np.ndarray) -> "ndarray":
        obj = cls.__new__(cls)
        obj._a = a
        return obj

    # -- attributes
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    size = property(lambda self: int(self._a.size))
    ndim = property(lambda self: self._a.ndim)
    nbytes = property(lambda self: int(self._a.nbytes))
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: _Flags(self._a))
    T = property(lambda self: ndarray._view(self._a.T))

    @property
    def data(self) -> _memory.MemoryPointer:
        return _memory.MemoryPointer(self._a.ctypes.data)

    @property
    def device(self):
        from .cuda import Device
        return Device(0)

    @property
    def __cuda_array_interface__(self) -> dict:
        a = self._a
        return dict(shape=a.shape, typestr=a.dtype.str, data=(a.ctypes.data, False), version=3,
                    strides=None if a.flags.c_contiguous else a.strides)

    # -- no implicit host conversion
    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
                        "construct a NumPy array explicitly.")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        args = _unwrap(list(inputs), f"input of {ufunc.__name__}")
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_unwrap(o, "out") for o in out)
        r = getattr(ufunc, method)(*args, **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(r)

    def __array_function__(self, func, types, args, kwargs):
        import cupy
        impl = getattr(cupy, func.__name__, None)
        if impl is None or impl is func:
            raise TypeError(f"numpy.{func.__name__} is not supported on cupy arrays by the emulator")
        return impl(*args, **kwargs)

    # -- conversions that synchronise on a GPU
    def get(self, stream=None, order="C", out=None, blocking=True) -> np.ndarray:
        if out is not None:
            out[...] = self._a
            return out
        return np.array(self._a, copy=True, order=order)

    def set(self, arr, stream=None) -> None:
        arr = np.asarray(arr)
        if arr.shape != self._a.shape:
            raise ValueError(f"Shape mismatch. Old shape: {self._a.shape}, new shape: {arr.shape}")
        if arr.dtype != self._a.dtype:
            raise TypeError(f"{arr.dtype} array cannot be set to {self._a.dtype} array")
        self._a[...] = arr

    def item(self):
        return self._a.item()

    def tolist(self):
        return self._a.tolist()

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __bool__(self) -> bool:
        return bool(self._scalar("bool"))

    def _scalar(self, what: str):
        if self._a.size != 1:
            raise TypeError(f"only size-1 arrays can be converted to Python scalars ({what})")
        return self._a.reshape(()).item()

    def __len__(self) -> int:
        if self._a.ndim == 0:
            raise TypeError("len() of unsized object")
        return len(self._a)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        for i in range(len(self._a)):
            yield self[i]

    def __repr__(self) -> str:
        return "array(" + np.array2string(self._a, separator=", ") + (
            "" if self._a.dtype in (np.float64, np.int64, np.bool_) else f", dtype={self._a.dtype}") + ")"

    __str__ = __repr__

    def __getstate__(self):
        raise TypeError("cupy arrays of the emulator are not picklable")

    # -- indexing
    def __getitem__(self, key):
        a = self._a
        k = _index(key)
        if isinstance(k, numbers.Integral) or (isinstance(k, tuple) and all(
                isinstance(x, numbers.Integral) for x in k) and len(k) == a.ndim):
            kt = k if isinstance(k, tuple) else (k,)
            return ndarray._view(a[kt + (Ellipsis,)])   # a 0-d view, as CuPy returns
        return _wrap(a[k])

    def __setitem__(self, key, value):
        v = value._a if isinstance(value, ndarray) else value
        self._a[_index(key)] = v

    # -- methods
    def copy(self, order="C") -> "ndarray":
        out = new_array(self._a.shape, self._a.dtype)
        out._a[...] = self._a
        return out

    def astype(self, dtype, order="K", casting=None, subok=None, copy=True) -> "ndarray":
        dtype = np.dtype(dtype)
        if not copy and dtype == self._a.dtype:
            return self
        out = new_array(self._a.shape, dtype)
        out._a[...] = self._a.astype(dtype, casting=casting or "unsafe")
        return out

    def view(self, dtype=None) -> "ndarray":
        return ndarray._view(self._a.view(dtype) if dtype is not None else self._a.view())

    def reshape(self, *shape, order="C") -> "ndarray":
        r = self._a.reshape(*shape, order=order)
        if not np.shares_memory(r, self._a):
            return _wrap(r)
        return ndarray._view(r)

    def ravel(self, order="C") -> "ndarray":
        return self.reshape(-1) if self._a.flags.c_contiguous else _wrap(self._a.ravel(order))

    def flatten(self, order="C") -> "ndarray":
        return self.copy().reshape(-1)

    def squeeze(self, axis=None) -> "ndarray":
        return ndarray._view(self._a.squeeze(axis))

    def transpose(self, *axes) -> "ndarray":
        return ndarray._view(self._a.transpose(*axes))

    def swapaxes(self, a1, a2) -> "ndarray":
        return ndarray._view(self._a.swapaxes(a1, a2))

    def fill(self, value) -> None:
        self._a.fill(value)

    def sort(self, axis=-1, kind=None) -> None:
        self._a.sort(axis=axis, kind="stable")

    def argsort(self, axis=-1, kind=None) -> "ndarray":
        return _wrap(self._a.argsort(axis=axis, kind="stable"))

    def nonzero(self):
        import cupy   # the package: its record of the nonzero family's kernels
        cupy._note_nonzero(self._a)
        return _wrap(self._a.nonzero())

    def _reduce(name):   # noqa: N805 - a method factory
        def method(self, *args, **kwargs):
            if "out" in kwargs and kwargs["out"] is not None:
                out = kwargs["out"]
                kwargs["out"] = _unwrap(out, "out")
                getattr(self._a, name)(*args, **kwargs)
                return out
            return _wrap(getattr(self._a, name)(*_unwrap(list(args)), **kwargs))
        method.__name__ = name
        return method

    sum = _reduce("sum")
    prod = _reduce("prod")
    min = _reduce("min")
    max = _reduce("max")
    argmin = _reduce("argmin")
    argmax = _reduce("argmax")
    mean = _reduce("mean")
    var = _reduce("var")
    std = _reduce("std")
    any = _reduce("any")
    all = _reduce("all")
    cumsum = _reduce("cumsum")
    cumprod = _reduce("cumprod")
    clip = _reduce("clip")
    round = _reduce("round")
    repeat = _reduce("repeat")
    take = _reduce("take")
    dot = _reduce("dot")
    del _reduce

    def __dlpack__(self, *a, **k):
        raise TypeError("DLPack export is not supported by the emulator")
