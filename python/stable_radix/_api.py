"""sort, argsort, sort_by_key and sort_records: NumPy-shaped functions over
the radix library. Every sort is stable. Host arrays sort on the CPU engine
(or the engine named), CUDA arrays on the CUDA engine, on the array's device
and the framework's current stream, without a host synchronisation.
"""
from __future__ import annotations

import operator

import numpy as np

from . import _core
from ._arrays import NumpyFramework, ingest, key_kind_of

__all__ = ["sort", "argsort", "sort_by_key", "sort_records", "engines"]

_ENGINES = ("auto", "cpu", "cuda", "opencl")
_FLOAT_ORDERS = ("numeric", "total")


def engines():
    """The engines this build has and that can run here, best first."""
    return [e for e in ("cuda", "cpu", "opencl") if _core.engine_available(e)]


# ---- arguments ----------------------------------------------------------------

class _Options:
    def __init__(self, engine, descending, float_order, begin_bit, end_bit, threads):
        if engine not in _ENGINES:
            raise ValueError(f"stable_radix: engine must be one of {_ENGINES}, not {engine!r}")
        if float_order not in _FLOAT_ORDERS:
            raise ValueError(f"stable_radix: float_order must be 'numeric' or 'total', not {float_order!r}")
        self.engine = engine
        self.descending = bool(descending)
        self.total_order = float_order == "total"
        self.begin_bit = operator.index(begin_bit)
        self.end_bit = -1 if end_bit is None else operator.index(end_bit)
        self.threads = operator.index(threads)
        if self.threads < 0:
            raise ValueError("stable_radix: threads must be >= 0 (0: all hardware threads)")

    @staticmethod
    def of(engine, descending, float_order, begin_bit, end_bit, threads):
        """The options of a call; the defaults' object is made once (calls on
        small arrays are many, and checking arguments costs a microsecond)."""
        if engine == "auto" and descending is False and float_order == "numeric" and begin_bit.__class__ is int \
                and begin_bit == 0 and end_bit is None and threads.__class__ is int and threads == 0:
            return _DEFAULT_OPTIONS
        return _Options(engine, descending, float_order, begin_bit, end_bit, threads)

    def engine_for(self, device):
        """The engine that sorts memory on `device` (None: host memory)."""
        if device is not None:
            if self.engine not in ("auto", "cuda"):
                raise ValueError(
                    f"stable_radix: the array is on CUDA device {device} but engine={self.engine!r} sorts host "
                    "memory; move it with .cpu() / .get() first (no silent copies to the host)")
            if not _core.has_cuda:
                raise RuntimeError("stable_radix: this build has no CUDA engine (nvcc was not found when it was "
                                   "built): reinstall on a machine with the CUDA toolkit to sort CUDA arrays")
            return "cuda"
        # Host data stays on the host unless a GPU engine is asked for by name.
        return "cpu" if self.engine == "auto" else self.engine


_DEFAULT_OPTIONS = _Options("auto", False, "numeric", 0, None, 0)


def _request(op, kind, n, opts, engine):
    # (Request's fields start as keys, no pointers, ascending, every bit,
    # engine 'auto', all threads: only the others are set, ~0.1 us each.)
    r = _core.Request()
    if op != "keys":
        r.op = op
    r.kind, r.key_bytes = kind
    r.n = n
    if opts.descending:
        r.descending = True
    if opts.total_order:
        r.total_order = True
    if opts.begin_bit:
        r.begin_bit = opts.begin_bit
    if opts.end_bit != -1:
        r.end_bit = opts.end_bit
    if engine != "auto":
        r.engine = engine
    if opts.threads:
        r.threads = opts.threads
    return r


def _run(fw, device, req):
    if device is None:
        _core.host_sort(req)
        return
    stream = fw.stream(device)
    # Small inputs sorted into other memory (sort with out=, argsort) need no
    # workspace: sorted in this one call, nothing allocated.
    need = _core.cuda_sort_without_workspace(req, device, stream)
    if not need:
        return
    # The workspace comes from the framework's allocator (torch's caching
    # allocator, CuPy's pool): freed after the enqueue, it is reused in stream
    # order, so no synchronisation is needed here.
    ws = fw.empty((need,), fw.mod.uint8, device)
    _core.cuda_sort(req, device, fw.pointer(ws), need, stream)
    del ws


def _axis_of(a, axis):
    """The sort axis under NumPy's rules, as a non-negative int (None: flatten)."""
    if axis is None:
        return None
    ndim = len(a.shape)
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"stable_radix: axis must be an integer or None, not {type(axis).__name__}") from None
    if ndim == 0:
        raise ValueError("stable_radix: axis given for a 0-d array; use axis=None")
    if not -ndim <= axis < ndim:
        raise ValueError(f"stable_radix: axis {axis} is out of bounds for an array of {ndim} dimensions")
    return axis % ndim


def _flat_input(fw, a, axis, ax=-1):
    """The 1-D array the sort reads, under NumPy's axis rules (1-d input, or
    axis=None); `ax`, where the caller has it, is _axis_of(a, axis)."""
    if ax == -1:
        ax = _axis_of(a, axis)
    if ax is None:
        return a.reshape(-1) if fw.is_contiguous(a) else fw.contiguous_flat(a)
    if len(a.shape) > 1:
        raise ValueError(f"stable_radix: this function sorts along an axis of 1-d arrays only (got {len(a.shape)}-d); "
                         "pass axis=None to flatten")
    return a


class _Rows:
    """An n-d array seen as rows along its sort axis: a C-contiguous copy with
    that axis last, whose rows are the segments of one batched sort."""

    def __init__(self, fw, a, axis):
        self.fw, self.axis, self.ndim = fw, axis, len(a.shape)
        self.moved = a if axis == self.ndim - 1 else fw.moveaxis(a, axis, -1)
        self.shape = tuple(int(x) for x in self.moved.shape)
        self.length = self.shape[-1]
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.count = self.size // self.length if self.length else 0

    def request(self, req):
        req.segment_count, req.segment_length = self.count, self.length
        return req

    def back(self, x):
        """A (moved-shaped) result with the sort axis back in its place, C-contiguous."""
        x = x.reshape(self.shape)
        return x if self.axis == self.ndim - 1 else self.fw.contiguous(self.fw.moveaxis(x, -1, self.axis))


def _sort_rows(fw, arr, to_user, axis, opts, out, return_indices, index_dtype):
    """sort along an axis of an n-d array: every row sorted on its own, in one batched sort."""
    rows = _Rows(fw, arr, axis)
    kind = key_kind_of(fw, arr.dtype)
    device = fw.device_of(arr)
    eng = opts.engine_for(device)
    work = rows.length > 1 or opts.begin_bit or opts.end_bit != -1
    if return_indices:
        idt = _index_dtype(index_dtype)
        as_fw = (lambda d: fw.index_dtype(d)) if hasattr(fw, "index_dtype") else (lambda d: np.dtype(d))
        if idt == np.int32 and rows.length > 2**31 - 1:
            raise ValueError(f"stable_radix: int32 indices cannot number rows of {rows.length}; use index_dtype=int64")
        direct = _direct_outs(fw, arr, rows, out, (arr.dtype, as_fw(idt)), device)
        res = direct[0] if direct else fw.empty(rows.shape, arr.dtype, device)
        if device is not None:
            # On the GPU an argsort writes the sorted rows as well, and the
            # positions in the asked width: one read of the input, no copy.
            src = rows.moved if fw.is_contiguous(rows.moved) else fw.contiguous(rows.moved)
            idx = direct[1] if direct else fw.empty(rows.shape, as_fw(idt), device)
            if rows.size:
                req = rows.request(_request("argsort", kind, rows.size, opts, eng))
                req.keys, req.sorted_keys = fw.pointer(src), fw.pointer(res)
                req.indices, req.index_bytes = fw.pointer(idx), idt.itemsize
                _run(fw, device, req)
            return tuple(out) if direct else _rows_out(fw, arr, to_user, rows, (res, idx), out, True, device)
        if rows.size:
            fw.copy_(res, rows.moved)
        carried = np.dtype(np.int32) if rows.length <= 2**31 - 1 else np.dtype(np.int64)
        idx = fw.row_positions(rows.count, rows.length, as_fw(carried), device)
        if rows.size and work:
            req = rows.request(_request("pairs", kind, rows.size, opts, eng))
            req.keys, req.values, req.value_bytes = fw.pointer(res), fw.pointer(idx), carried.itemsize
            _run(fw, device, req)
        if carried != idt:
            idx = fw.astype(idx, as_fw(idt))
        if direct:
            fw.copy_(direct[1], idx)
            return tuple(out)
        return _rows_out(fw, arr, to_user, rows, (res, idx), out, True, device)
    direct = _direct_outs(fw, arr, rows, out, (arr.dtype,), device, in_place=True)
    res = direct[0] if direct else fw.empty(rows.shape, arr.dtype, device)
    if rows.size and not (direct and fw.pointer(res) == fw.pointer(arr)):
        fw.copy_(res, rows.moved)
    if rows.size and work:
        req = rows.request(_request("keys", kind, rows.size, opts, eng))
        req.keys = fw.pointer(res)
        _run(fw, device, req)
    return out if direct else _rows_out(fw, arr, to_user, rows, (res,), out, False, device)


def _direct_outs(fw, arr, rows, out, dtypes, device, in_place=False):
    """The caller's outputs, checked, as arrays of the rows' shape that the
    sort can write directly (no copy afterwards), or None where it cannot:
    no `out`, a sort axis other than the last (the results are moved back),
    or an output overlapping the input (`in_place`: an output that is the
    input itself is direct, the keys then sorted where they are)."""
    if out is None or rows.axis != rows.ndim - 1:
        return None
    outs = tuple(out) if len(dtypes) > 1 else (out,)
    if len(outs) != len(dtypes):
        raise ValueError("stable_radix: with return_indices, out must be a pair (values, indices)")
    arrays = []
    for o, dtype, what in zip(outs, dtypes, ("out[0]", "out[1]") if len(dtypes) > 1 else ("out",)):
        o_arr = ingest(o)[1]
        _check_out(fw, o_arr, tuple(arr.shape), dtype, device, what)
        arrays.append(o_arr)
    if rows.size:
        if not fw.is_contiguous(arr):
            return None
        spans = [(fw.pointer(x), rows.size * fw.itemsize(x)) for x in [arr] + arrays]
        a = spans[0][0]
        for k, (p, nbytes) in enumerate(spans[1:]):
            if _spans_overlap(p, nbytes, *spans[0]) and not (in_place and p == a and nbytes == spans[0][1]):
                return None
            if any(_spans_overlap(p, nbytes, *other) for other in spans[k + 2:]):
                return None
    return [o_arr.reshape(rows.shape) for o_arr in arrays]


def _spans_overlap(a, a_bytes, b, b_bytes):
    """Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte."""
    return a < b + b_bytes and b < a + a_bytes


def _rows_out(fw, arr, to_user, rows, moved, out, return_indices, device):
    """The results of a rows sort (sort axis last) as the caller asked: new
    arrays, or copied into `out`."""
    result = tuple(rows.back(x) for x in moved)
    if out is None:
        return tuple(to_user(x) for x in result) if return_indices else to_user(result[0])
    outs = tuple(out) if return_indices else (out,)
    if return_indices and len(outs) != 2:
        raise ValueError("stable_radix: with return_indices, out must be a pair (values, indices)")
    for o, x, what in zip(outs, result, ("out[0]", "out[1]") if return_indices else ("out",)):
        o_arr = ingest(o)[1]
        _check_out(fw, o_arr, tuple(arr.shape), x.dtype, device, what)
        fw.copy_(o_arr, x)
    return out


def _check_out(fw, out, shape, dtype, device, what="out"):
    if not isinstance(out, fw.array_type):
        raise TypeError(f"stable_radix: {what} must be a {fw.name} array like the input, not {type(out).__name__}")
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"stable_radix: {what} has shape {tuple(out.shape)}, the result has {tuple(shape)}")
    if out.dtype != dtype:
        raise ValueError(f"stable_radix: {what} has dtype {out.dtype}, the result has {dtype}")
    if fw.device_of(out) != device:
        raise ValueError(f"stable_radix: {what} is on {_where(fw.device_of(out))}, the input on {_where(device)}")
    if not fw.is_contiguous(out):
        raise ValueError(f"stable_radix: {what} must be contiguous (a strided output would need a copy)")
    if isinstance(fw, NumpyFramework) and not out.flags.writeable:
        raise ValueError(f"stable_radix: {what} is read-only")


def _index_dtype(d):
    """int64 or int32, given as a NumPy dtype, a name or a torch dtype."""
    try:
        return _INDEX_DTYPES[d]
    except (KeyError, TypeError):  # (TypeError: not hashable)
        pass
    idt = _index_dtype_of(d)
    try:
        _INDEX_DTYPES[d] = idt
    except TypeError:
        pass
    return idt


_INDEX_DTYPES = {}  # what callers pass -> NumPy dtype: np.dtype() costs a microsecond a call


def _index_dtype_of(d):
    name = str(d).replace("torch.", "") if type(d).__module__.startswith("torch") else d
    try:
        idt = np.dtype(name)
    except TypeError:
        raise ValueError(f"stable_radix: index_dtype must be int64 or int32, not {d}") from None
    if idt not in (np.dtype(np.int64), np.dtype(np.int32)):
        raise ValueError(f"stable_radix: index_dtype must be int64 or int32, not {d}")
    return idt


def _where(device):
    return "the host" if device is None else f"CUDA device {device}"


# ---- the functions ------------------------------------------------------------

def sort(a, axis=-1, *, engine="auto", descending=False, out=None, float_order="numeric", begin_bit=0,
         end_bit=None, threads=0, return_indices=False, index_dtype=np.int64):
    """A sorted copy of `a` (stable), like numpy.sort; with
    return_indices=True, (sorted copy, indices) like torch.sort.

    a: a NumPy, PyTorch, CuPy or JAX array, or any object with __dlpack__,
       __cuda_array_interface__ or the buffer protocol; the result has its
       type and device. Structured NumPy arrays sort by their fields in order
       (as sort_records with every field).
    axis: the axis to sort along (default the last; None flattens). Every
       row along it is sorted on its own, all in one batched sort.
    engine: 'auto' (host arrays: the CPU engine; CUDA arrays: the CUDA
       engine), 'cpu', 'cuda' (host arrays too, through the GPU), 'opencl'.
    descending: largest first; equal keys stay in input order.
    out: an array of the result's shape, dtype and device to write into;
       `out=a` sorts in place without a copy.
    float_order: 'numeric' (default, as NumPy and PyTorch: NaNs last when
       ascending, first when descending; -0.0 == +0.0) or 'total' (IEEE 754
       totalOrder: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN).
    begin_bit, end_bit: sort by these bits of the ordered key only.
    threads: CPU engine threads (0: all).
    return_indices: also return the stable sorting permutation (as argsort
       would, of index_dtype int64 or int32); `out` is then a pair
       (values, indices). One sort, which carries 4-byte positions where
       they fit and widens them once.
    """
    fw, arr, to_user = ingest(a)
    ax = _axis_of(arr, axis)
    if ax is not None and len(arr.shape) > 1 and not getattr(arr.dtype, "names", None):
        return _sort_rows(fw, arr, to_user, ax, _Options.of(engine, descending, float_order, begin_bit, end_bit, threads),
                          out, return_indices, index_dtype)
    if return_indices:
        return _sort_with_indices(fw, arr, to_user, axis, index_dtype, out,
                                  _Options.of(engine, descending, float_order, begin_bit, end_bit, threads))
    if getattr(arr.dtype, "names", None):  # NumPy's order for structured arrays: field by field
        flat = _flat_input(fw, arr, axis)
        return sort_records(flat, key=list(arr.dtype.names), engine=engine, descending=descending, out=out,
                            float_order=float_order, threads=threads)
    opts = _Options.of(engine, descending, float_order, begin_bit, end_bit, threads)
    kind = key_kind_of(fw, arr.dtype)
    src = _flat_input(fw, arr, axis, ax)
    if not fw.is_contiguous(src):
        src = fw.contiguous_flat(src)
    device = fw.device_of(arr)
    eng = opts.engine_for(device)
    n = int(src.shape[0])
    if out is None:
        res = fw.empty((n,), arr.dtype, device)
    else:
        _, out_arr, _ = ingest(out)
        _check_out(fw, out_arr, (n,), arr.dtype, device)
        res = out_arr
    if n or begin_bit or end_bit is not None:  # (an empty array still has its bit range checked)
        # Out of place: the input is only read (on the GPU by the first pass,
        # the last writing `res`: no copy); `out=a` sorts in place, and an
        # `out` that overlaps the input otherwise sorts a copy in place.
        req = _request("keys", kind, n, opts, eng)
        p_src, p_res = fw.pointer(src), fw.pointer(res)
        if n and _overlap(p_src, p_res, n * fw.itemsize(src)):
            fw.copy_(res, src)
            req.keys = req.sorted_keys = p_res
        else:
            req.keys, req.sorted_keys = p_src, p_res
        _run(fw, device, req)
    return out if out is not None else to_user(res)


def _overlap(a, b, nbytes):
    """Whether two ranges of nbytes at different addresses a and b overlap."""
    return a != b and a < b + nbytes and b < a + nbytes


def _sort_with_indices(fw, arr, to_user, axis, index_dtype, out, opts):
    idt = _index_dtype(index_dtype)
    kind = key_kind_of(fw, arr.dtype)
    src = _flat_input(fw, arr, axis)
    if not fw.is_contiguous(src):  # the GPU's argsort below reads it in place
        src = fw.contiguous_flat(src)
    device = fw.device_of(arr)
    eng = opts.engine_for(device)
    n = int(src.shape[0])
    if idt == np.int32 and n > 2**31 - 1:
        raise ValueError(f"stable_radix: int32 indices cannot address {n} elements; use index_dtype=int64")
    as_fw = (lambda d: fw.index_dtype(d)) if hasattr(fw, "index_dtype") else (lambda d: np.dtype(d))
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise ValueError("stable_radix: with return_indices, out must be a pair (values, indices)")
        res, out_i = ingest(out[0])[1], ingest(out[1])[1]
        _check_out(fw, res, (n,), arr.dtype, device, "out[0]")
        _check_out(fw, out_i, (n,), as_fw(idt), device, "out[1]")
    if device is not None and (out is None or fw.pointer(res) != fw.pointer(src)):
        # On the GPU an argsort writes the sorted keys as well (its last pass),
        # straight from the input: no copy, no positions to fill and move.
        if out is None:
            res, out_i = fw.empty((n,), arr.dtype, device), fw.empty((n,), as_fw(idt), device)
        if n:
            req = _request("argsort", kind, n, opts, eng)
            req.keys, req.sorted_keys = fw.pointer(src), fw.pointer(res)
            req.indices, req.index_bytes = fw.pointer(out_i), idt.itemsize
            _run(fw, device, req)
        return tuple(out) if out is not None else (to_user(res), to_user(out_i))
    if out is not None:
        if fw.pointer(res) != fw.pointer(src):
            fw.copy_(res, src)
    else:
        res = fw.empty((n,), arr.dtype, device)
        if n:
            fw.copy_(res, src)
    # Positions ride as 4-byte values where they fit (a third less traffic a
    # pass than 8-byte ones) and are widened once at the end.
    carried = np.dtype(np.int32) if n <= 2**31 - 1 else np.dtype(np.int64)
    idx = fw.arange(n, as_fw(carried), device)
    if n > 1 or opts.begin_bit or opts.end_bit != -1:
        req = _request("pairs", kind, n, opts, eng)
        req.keys, req.values, req.value_bytes = fw.pointer(res), fw.pointer(idx), carried.itemsize
        _run(fw, device, req)
    if out is not None:
        fw.copy_(out_i, fw.astype(idx, as_fw(idt)) if carried != idt else idx)
        return tuple(out)
    if carried != idt:
        idx = fw.astype(idx, as_fw(idt))
    return to_user(res), to_user(idx)


def argsort(a, axis=-1, *, index_dtype=np.int64, engine="auto", descending=False, out=None,
            float_order="numeric", begin_bit=0, end_bit=None, threads=0):
    """The stable sorting permutation of `a`, like numpy.argsort(kind='stable'):
    a[result] is sorted. index_dtype is int64 (default) or int32 (needs
    len(a) <= 2^31 - 1). Along an axis of an n-d array, each row's indices
    number positions along that axis (numpy.take_along_axis(a, result, axis)
    is sorted). Other arguments as for sort; `out` receives the indices."""
    fw, arr, to_user = ingest(a)
    idt = _index_dtype(index_dtype)
    opts = _Options.of(engine, descending, float_order, begin_bit, end_bit, threads)
    kind = key_kind_of(fw, arr.dtype)
    ax = _axis_of(arr, axis)
    if ax is not None and len(arr.shape) > 1:
        return _argsort_rows(fw, arr, to_user, ax, idt, opts, out)
    src = _flat_input(fw, arr, axis)
    if not fw.is_contiguous(src):
        src = fw.contiguous_flat(src)
    device = fw.device_of(arr)
    eng = opts.engine_for(device)
    n = int(src.shape[0])
    if idt == np.int32 and n > 2**31 - 1:
        raise ValueError(f"stable_radix: int32 indices cannot address {n} elements; use index_dtype=int64")
    fw_idt = fw.index_dtype(idt) if hasattr(fw, "index_dtype") else idt
    if out is None:
        res = fw.empty((n,), fw_idt, device)
    else:
        _, res, _ = ingest(out)
        _check_out(fw, res, (n,), fw_idt, device)
    req = _request("argsort", kind, n, opts, eng)
    req.keys, req.indices, req.index_bytes = fw.pointer(src), fw.pointer(res), idt.itemsize
    _run(fw, device, req)
    return out if out is not None else to_user(res)


def _argsort_rows(fw, arr, to_user, axis, idt, opts, out):
    rows = _Rows(fw, arr, axis)
    if idt == np.int32 and rows.length > 2**31 - 1:
        raise ValueError(f"stable_radix: int32 indices cannot number rows of {rows.length}; use index_dtype=int64")
    kind = key_kind_of(fw, arr.dtype)
    device = fw.device_of(arr)
    eng = opts.engine_for(device)
    src = fw.contiguous(rows.moved)
    fw_idt = fw.index_dtype(idt) if hasattr(fw, "index_dtype") else idt
    direct = _direct_outs(fw, arr, rows, out, (fw_idt,), device)
    res = direct[0] if direct else fw.empty(rows.shape, fw_idt, device)
    if rows.size:
        req = rows.request(_request("argsort", kind, rows.size, opts, eng))
        req.keys, req.indices, req.index_bytes = fw.pointer(src), fw.pointer(res), idt.itemsize
        _run(fw, device, req)
    if direct:
        return out
    result = rows.back(res)
    if out is None:
        return to_user(result)
    o_arr = ingest(out)[1]
    _check_out(fw, o_arr, tuple(arr.shape), fw_idt, device)
    fw.copy_(o_arr, result)
    return out


def sort_by_key(keys, *values, engine="auto", descending=False, out=None, float_order="numeric", begin_bit=0,
                end_bit=None, threads=0):
    """Sorts `keys` (1-d) stably and applies the same permutation to each
    array of `values` along its first axis (rows of any shape and dtype move
    whole). Returns (sorted_keys, *sorted_values), new arrays of the inputs'
    types; with out=(k, v1, ...) the results go there, and passing the
    inputs themselves as `out` sorts them in place."""
    fw, k, to_user = ingest(keys)
    opts = _Options.of(engine, descending, float_order, begin_bit, end_bit, threads)
    kind = key_kind_of(fw, k.dtype)
    k = _flat_input(fw, k, 0)
    n = int(k.shape[0])
    device = fw.device_of(k)
    eng = opts.engine_for(device)
    vals = []
    for i, v in enumerate(values):
        vfw, va, _ = ingest(v)
        if vfw.name != fw.name:
            raise TypeError(f"stable_radix: values[{i}] is a {vfw.name} array, keys a {fw.name} array")
        if vfw.device_of(va) != device:
            raise ValueError(f"stable_radix: values[{i}] is on {_where(vfw.device_of(va))}, keys on {_where(device)}")
        if len(va.shape) == 0 or int(va.shape[0]) != n:
            raise ValueError(f"stable_radix: values[{i}] has shape {tuple(va.shape)}; its first axis must have "
                             f"the keys' length {n}")
        vals.append(va)
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 1 + len(vals):
            raise ValueError(f"stable_radix: out must be a tuple of {1 + len(vals)} arrays (keys, then values)")
        outs = [ingest(o)[1] for o in out]
        _check_out(fw, outs[0], (n,), k.dtype, device, "out[0]")
        for i, (o, v) in enumerate(zip(outs[1:], vals)):
            _check_out(fw, o, tuple(v.shape), v.dtype, device, f"out[{i + 1}]")
    else:
        outs = [fw.empty((n,), k.dtype, device)] + [fw.empty(tuple(v.shape), v.dtype, device) for v in vals]

    rk = outs[0]
    if fw.pointer(rk) != fw.pointer(k) and n:
        fw.copy_(rk, k)
    if len(vals) == 1:
        # One value array: its rows ride with the keys (the engines route odd
        # row sizes through an index themselves).
        rv, v = outs[1], vals[0]
        if not fw.is_contiguous(v):
            v = fw.contiguous_flat(v).reshape(tuple(v.shape))
        if fw.pointer(rv) != fw.pointer(v) and n:
            fw.copy_(rv, v)
        req = _request("pairs", kind, n, opts, eng)
        req.keys, req.values = fw.pointer(rk), fw.pointer(rv)
        req.value_bytes = int(np.prod(v.shape[1:], dtype=np.int64)) * fw.itemsize(v)
        if n > 1 and req.value_bytes:
            _run(fw, device, req)
        elif n > 1:
            req.op = "keys"
            _run(fw, device, req)
    elif vals:
        # Several value arrays: the keys carry their positions, then each
        # value array is gathered once.
        idt = np.int32 if n < 2**31 else np.int64
        perm = fw.arange(n, fw.index_dtype(idt) if hasattr(fw, "index_dtype") else idt, device)
        req = _request("pairs", kind, n, opts, eng)
        req.keys, req.values, req.value_bytes = fw.pointer(rk), fw.pointer(perm), np.dtype(idt).itemsize
        if n > 1:
            _run(fw, device, req)
        for o, v in zip(outs[1:], vals):
            fw.copy_(o, fw.take(v, perm if fw.name != "torch" else perm.long()))
    elif n > 1:
        req = _request("keys", kind, n, opts, eng)
        req.keys = fw.pointer(rk)
        _run(fw, device, req)
    if out is not None:
        return tuple(out)
    return tuple(to_user(o) for o in outs)


def sort_records(a, key, *, engine="auto", descending=False, out=None, float_order="numeric", threads=0):
    """A copy of the structured NumPy array `a` (1-d) with its records
    sorted stably by the field `key`, or by several fields in order (a list
    or tuple: the first decides, later ones break ties). Fields may be
    integers, floats of 2, 4 or 8 bytes, or byte strings ('S'), in either
    byte order. `out=a` sorts in place."""
    fw, arr, to_user = ingest(a)
    if not isinstance(fw, NumpyFramework) or arr.dtype.names is None:
        raise TypeError("stable_radix: sort_records takes a structured NumPy array (dtype with fields)")
    if len(arr.shape) != 1:
        raise ValueError(f"stable_radix: sort_records takes a 1-d array, not {len(arr.shape)}-d")
    fields = [key] if isinstance(key, str) else list(key)
    if not fields:
        raise ValueError("stable_radix: key names no field")
    layout = []
    for f in fields:
        if f not in arr.dtype.names:
            raise ValueError(f"stable_radix: no field {f!r} in {arr.dtype}")
        fdt, offset = arr.dtype.fields[f][:2]
        big = fdt.byteorder == ">" and fdt.itemsize > 1
        kind = key_kind_of(fw, fdt.newbyteorder("=") if big else fdt)
        if fdt.subdtype is not None:
            raise TypeError(f"stable_radix: field {f!r} is an array ({fdt}); sort by a scalar field")
        layout.append((offset, kind, big))
    opts = _Options(engine, descending, float_order, 0, None, threads)
    eng = opts.engine_for(None)
    n = int(arr.shape[0])
    if out is None:
        res = np.ascontiguousarray(arr).copy()
    else:
        res = ingest(out)[1]
        _check_out(fw, res, (n,), arr.dtype, None)
        if fw.pointer(res) != fw.pointer(arr):
            np.copyto(res, arr)
    # Least significant field first: each stable pass keeps the order of the
    # fields after it among equal keys.
    for offset, kind, big in reversed(layout):
        req = _request("keys", kind, n, opts, eng)
        if n > 1:
            _core.host_sort_records(fw.pointer(res), arr.dtype.itemsize, n, offset, kind[0], kind[1],
                                    big or kind[0] == "V", req)
    return out if out is not None else to_user(res)
