"""Arrays from NumPy, PyTorch, CuPy, JAX and any DLPack, CUDA-array-interface
or buffer-protocol producer, seen through one small interface.

A `Framework` knows how to allocate, copy and find the stream of arrays of
one library; `ingest` turns what the user passed into that library's array
(zero copy) plus a function that turns results back into the user's type.
The sort itself (`_api.py`) then only sees pointers.
"""
from __future__ import annotations

import importlib
import sys

import numpy as np

from . import _core

__all__ = ["Framework", "ingest", "key_kind_of"]


def _module(name):
    """The module if the user's program already imported it (never imports
    a framework the user does not use: importing torch takes seconds)."""
    return sys.modules.get(name)


# ---- dtypes -------------------------------------------------------------------

_NUMPY_KINDS = {"u": "u", "i": "i", "f": "f", "b": "u"}  # bool sorts as uint8 (False < True)


def key_kind_of(fw, dtype):
    """(kind letter, bytes) of a key dtype for the extension, or TypeError.
    Kinds: 'u' unsigned, 'i' signed, 'f' IEEE float, 'b' bfloat16,
    'V' byte string compared as memcmp (NumPy 'S' and unstructured 'V')."""
    if fw.name == "torch":
        table = _torch_kinds(fw.mod)
        if dtype in table:
            return table[dtype]
        raise TypeError(f"stable_radix: cannot sort torch dtype {dtype}")
    kind = _KIND_CACHE.get(dtype)
    if kind is None:
        kind = _numpy_key_kind(np.dtype(dtype))
        _KIND_CACHE[dtype] = kind
    return kind


_KIND_CACHE = {}  # dtype -> kind: a dtype's name is slow to ask for, and calls are many
_TORCH_KINDS = {}


def _torch_kinds(torch):
    if not _TORCH_KINDS:
        _TORCH_KINDS.update({
            torch.bool: ("u", 1), torch.uint8: ("u", 1), torch.int8: ("i", 1), torch.int16: ("i", 2),
            torch.int32: ("i", 4), torch.int64: ("i", 8), torch.float16: ("f", 2),
            torch.bfloat16: ("b", 2), torch.float32: ("f", 4), torch.float64: ("f", 8),
        })
        for name, kind in (("uint16", ("u", 2)), ("uint32", ("u", 4)), ("uint64", ("u", 8))):
            if hasattr(torch, name):
                _TORCH_KINDS[getattr(torch, name)] = kind
    return _TORCH_KINDS


def _numpy_key_kind(dt):
    if dt.name == "bfloat16":  # ml_dtypes' bfloat16, which JAX uses
        return ("b", 2)
    if dt.kind in _NUMPY_KINDS and dt.itemsize in (1, 2, 4, 8):
        if dt.kind == "f" and dt.itemsize == 1:
            raise TypeError(f"stable_radix: cannot sort dtype {dt}")
        if dt.byteorder == ">" and dt.itemsize > 1:
            raise TypeError(f"stable_radix: big-endian dtype {dt}: convert with .astype('{dt.newbyteorder('=')}') first")
        return (_NUMPY_KINDS[dt.kind], dt.itemsize)
    if dt.kind == "S" or (dt.kind == "V" and dt.names is None and dt.subdtype is None):
        if not 1 <= dt.itemsize <= 255:
            raise TypeError(f"stable_radix: byte-string keys are 1..255 bytes, not {dt.itemsize}")
        return ("V", dt.itemsize)
    hint = ""
    if dt.kind in "mM":
        hint = " (datetime/timedelta: sort a.view('int64') when there is no NaT)"
    elif dt.kind == "U":
        hint = " (unicode strings: encode to fixed-width bytes, dtype 'S', to sort in byte order)"
    elif dt.names is not None:
        hint = " (structured dtype: use sort_records)"
    raise TypeError(f"stable_radix: cannot sort dtype {dt}{hint}")


# ---- frameworks ---------------------------------------------------------------

class Framework:
    """Allocation, copies and streams of one array library. `device` is None
    for host memory, else the CUDA device ordinal."""

    name = "?"

    def __init__(self, mod):
        self.mod = mod

    def device_of(self, a):
        raise NotImplementedError

    def pointer(self, a):
        raise NotImplementedError

    def is_contiguous(self, a):
        raise NotImplementedError

    def contiguous_flat(self, a):
        """A contiguous 1-D view, or a contiguous copy on the same device."""
        raise NotImplementedError

    def empty(self, shape, dtype, device):
        raise NotImplementedError

    def copy_(self, dst, src):
        raise NotImplementedError

    def stream(self, device):
        return 0

    def arange(self, n, dtype, device):
        raise NotImplementedError

    def take(self, a, perm):
        """a[perm] along the first axis, on a's device."""
        return a[perm]

    def astype(self, a, dtype):
        """a converted to dtype, on a's device."""
        return a.astype(dtype)

    def itemsize(self, a):
        return a.dtype.itemsize

    def shares_memory(self, a, b):
        return self.pointer(a) == self.pointer(b)

    def moveaxis(self, a, src, dst):
        return self.mod.moveaxis(a, src, dst)

    def contiguous(self, a):
        """A C-contiguous array of a's shape: a itself, or a copy on its device."""
        return self.mod.ascontiguousarray(a)

    def row_positions(self, rows, length, dtype, device):
        """A (rows, length) array whose every row is 0, 1, ..., length - 1."""
        return self.contiguous(self.mod.broadcast_to(self.arange(length, dtype, device), (rows, length)))


class NumpyFramework(Framework):
    name = "numpy"
    array_type = np.ndarray

    def __init__(self):
        super().__init__(np)

    def device_of(self, a):
        return None

    def pointer(self, a):
        return _core.address(a)

    def is_contiguous(self, a):
        return a.flags.c_contiguous

    def contiguous_flat(self, a):
        return np.ascontiguousarray(a).reshape(-1)

    def empty(self, shape, dtype, device):
        return np.empty(shape, dtype=dtype)

    def copy_(self, dst, src):
        np.copyto(dst, src.reshape(dst.shape), casting="no")

    def arange(self, n, dtype, device):
        return np.arange(n, dtype=dtype)

    def shares_memory(self, a, b):
        return np.shares_memory(a, b)


class TorchFramework(Framework):
    name = "torch"

    @property
    def array_type(self):
        return self.mod.Tensor

    def itemsize(self, a):
        return a.element_size()

    def device_of(self, a):
        if a.is_cuda:
            return a.get_device()  # (an int, without building a torch.device)
        if a.device.type == "cpu":
            return None
        raise ValueError(f"stable_radix: tensors on {a.device} are not supported (CPU and CUDA only)")

    def pointer(self, a):
        return a.data_ptr()

    def is_contiguous(self, a):
        return a.is_contiguous()

    def contiguous_flat(self, a):
        return a.contiguous().reshape(-1)

    def _device(self, device):
        return self.mod.device("cpu") if device is None else self.mod.device("cuda", device)

    def empty(self, shape, dtype, device):
        # (a CUDA ordinal as it is: building a torch.device costs a microsecond)
        return self.mod.empty(shape, dtype=dtype, device="cpu" if device is None else device)

    def copy_(self, dst, src):
        dst.copy_(src.reshape(dst.shape))

    def stream(self, device):
        # The caller's current stream: the sort is ordered after the work that
        # made its input, and what follows on that stream sees the result.
        # (torch's raw getter skips building a Stream object: 2 us a call.)
        raw = getattr(self.mod._C, "_cuda_getCurrentRawStream", None)
        return raw(device) if raw is not None else self.mod.cuda.current_stream(device).cuda_stream

    def arange(self, n, dtype, device):
        return self.mod.arange(n, dtype=dtype, device=self._device(device))

    def astype(self, a, dtype):
        return a.to(dtype)

    def index_dtype(self, np_dtype):
        return {np.dtype(np.int64): self.mod.int64, np.dtype(np.int32): self.mod.int32}[np.dtype(np_dtype)]

    def moveaxis(self, a, src, dst):
        return a.movedim(src, dst)

    def contiguous(self, a):
        return a.contiguous()

    def row_positions(self, rows, length, dtype, device):
        return self.arange(length, dtype, device).expand(rows, length).contiguous()

    def shares_memory(self, a, b):
        return a.data_ptr() == b.data_ptr()


class CupyFramework(Framework):
    name = "cupy"

    @property
    def array_type(self):
        return self.mod.ndarray

    def device_of(self, a):
        return a.device.id

    def pointer(self, a):
        return a.data.ptr

    def is_contiguous(self, a):
        return a.flags.c_contiguous

    def contiguous_flat(self, a):
        with self.mod.cuda.Device(a.device.id):
            return self.mod.ascontiguousarray(a).reshape(-1)

    def empty(self, shape, dtype, device):
        with self.mod.cuda.Device(device):
            return self.mod.empty(shape, dtype=dtype)

    def copy_(self, dst, src):
        with self.mod.cuda.Device(dst.device.id):
            self.mod.copyto(dst, src.reshape(dst.shape))

    def stream(self, device):
        try:
            return self.mod.cuda.get_current_stream(device).ptr  # CuPy 13+: no device switch
        except TypeError:
            with self.mod.cuda.Device(device):
                return self.mod.cuda.get_current_stream().ptr

    def arange(self, n, dtype, device):
        with self.mod.cuda.Device(device):
            return self.mod.arange(n, dtype=dtype)

    def take(self, a, perm):
        with self.mod.cuda.Device(a.device.id):
            return a[perm]

    def astype(self, a, dtype):
        with self.mod.cuda.Device(a.device.id):
            return a.astype(dtype)

    def contiguous(self, a):
        with self.mod.cuda.Device(a.device.id):
            return self.mod.ascontiguousarray(a)

    def row_positions(self, rows, length, dtype, device):
        with self.mod.cuda.Device(device):
            return self.mod.ascontiguousarray(self.mod.broadcast_to(self.mod.arange(length, dtype=dtype),
                                                                    (rows, length)))



def _same(x):
    return x


def _numba_out(a):
    return _module("numba.cuda").as_cuda_array(a) if _module("numba.cuda") else a


def ingest(obj):
    """(framework, array, to_user): the user's object as an array of a
    framework the sort knows, with no copy, and how to hand a result back in
    the user's type (a torch tensor in, a torch tensor out)."""
    torch = _module("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return TorchFramework(torch), obj, _same
    cupy = _module("cupy")
    if cupy is not None and isinstance(obj, cupy.ndarray):
        return CupyFramework(cupy), obj, _same
    if isinstance(obj, np.ndarray):
        return NumpyFramework(), obj, _same
    jax = _module("jax")
    if jax is not None and isinstance(obj, jax.Array):
        return _ingest_jax(obj)
    if hasattr(obj, "__cuda_array_interface__"):
        if cupy is None:
            cupy = importlib.import_module("cupy")  # the carrier for CUDA arrays of other libraries
        return CupyFramework(cupy), cupy.asarray(obj), _numba_out if type(obj).__module__.startswith("numba") else _same
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        dev_type, _ = obj.__dlpack_device__()
        if dev_type == 1:  # kDLCPU
            return NumpyFramework(), np.from_dlpack(obj), _same
        if dev_type == 2:  # kDLCUDA
            return _cuda_carrier(obj)
        raise ValueError(f"stable_radix: DLPack device type {dev_type} is not supported (CPU and CUDA only)")
    try:
        view = memoryview(obj)
    except TypeError:
        raise TypeError(
            f"stable_radix: cannot sort a {type(obj).__name__}: pass a NumPy, PyTorch, CuPy or JAX array, "
            "or an object with __dlpack__, __cuda_array_interface__ or the buffer protocol") from None
    return NumpyFramework(), np.asarray(view), _same


def _cuda_carrier(obj):
    cupy = _module("cupy")
    torch = _module("torch")
    if cupy is None and torch is None:
        try:
            cupy = importlib.import_module("cupy")
        except ImportError:
            torch = importlib.import_module("torch")
    if cupy is not None:
        return CupyFramework(cupy), cupy.from_dlpack(obj), _same
    return TorchFramework(torch), torch.from_dlpack(obj), _same


def _ingest_jax(x):
    import jax.numpy as jnp

    platform = next(iter(x.devices())).platform
    if platform == "cpu":
        fw, a = NumpyFramework(), np.from_dlpack(x)
    elif platform == "gpu":
        fw, a, _ = _cuda_carrier(x)
    else:
        raise ValueError(f"stable_radix: JAX arrays on {platform} are not supported (CPU and CUDA only)")
    # JAX arrays are immutable: results come back as new JAX arrays (zero copy).
    return fw, a, lambda r: jnp.from_dlpack(r)
