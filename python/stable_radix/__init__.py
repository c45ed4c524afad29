"""stable_radix: stable radix sorts of NumPy, PyTorch, CuPy and JAX arrays,
on the CPU and on NVIDIA GPUs, from the radix C++ library.

    import numpy as np, stable_radix as sr
    a = np.random.rand(1 << 20).astype(np.float32)
    s = sr.sort(a)                    # a sorted copy (stable; NaNs last)
    i = sr.argsort(a)                 # int64 permutation, a[i] == s
    k, v = sr.sort_by_key(a, np.arange(a.size))

CUDA arrays (torch, CuPy, JAX, Numba) sort on their device, on the
framework's current stream, with no host synchronisation.
"""
from ._api import argsort, engines, sort, sort_by_key, sort_records
from . import _core

__version__ = "0.1.0"
has_cuda = _core.has_cuda


def release_scratch_cache():
    """Frees the scratch memory kept between calls: the CPU engine's host
    buffers and the device memory the CUDA engine's pools keep."""
    _core.release_scratch_cache()


__all__ = ["sort", "argsort", "sort_by_key", "sort_records", "engines", "has_cuda", "release_scratch_cache"]
