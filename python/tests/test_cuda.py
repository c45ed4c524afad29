"""stable_radix on CUDA arrays of PyTorch, CuPy, JAX and Numba: results
checked element by element against the host reference, on the array's
device and the framework's current stream. Skipped, saying why, where there
is no GPU, no CUDA engine in the build, or no such framework."""
import os

# JAX would take most of the GPU's memory at its first use otherwise.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import stable_radix as sr  # noqa: E402

from test_numpy import SIZES, make, ref_argsort, rng, same_bits

if not sr.has_cuda:
    pytest.skip("this build of stable_radix has no CUDA engine (built without nvcc)", allow_module_level=True)


def _torch_cuda():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return torch


def _cupy():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("CuPy sees no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("CuPy sees no CUDA device")
    return cupy


def _bits(torch, t):
    """The tensor's bit patterns as integers of its width (NaN == NaN, -0.0 != +0.0)."""
    return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


TORCH_TYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "bool"]


@pytest.mark.parametrize("name", TORCH_TYPES)
def test_torch_matches_torch_sort(name):
    torch = _torch_cuda()
    dt = getattr(torch, name)
    for n in SIZES + [1 << 20, (1 << 22) + 1]:
        for dist in ["random", "few", "special"]:
            g = rng("torch", name, n, dist)
            host = make(np.float32 if name == "bfloat16" else (np.bool_ if name == "bool" else np.dtype(name)),
                        n, dist, g)
            x = torch.from_numpy(host).to(dt).cuda()
            for desc in (False, True):
                if dist == "special" and x.is_floating_point():
                    # NaNs of every sign and payload, -0.0, infinities: torch.sort
                    # orders NaNs among themselves by their bits (and, below 32
                    # elements, puts negative NaNs first), so the reference here
                    # is NumPy's stable order, which the contract follows
                    ref = ref_argsort(x.double().cpu().numpy(), desc)
                    want_i = torch.from_numpy(ref).cuda()
                    want_v = x[want_i]
                else:
                    want_v, want_i = torch.sort(x, stable=True, descending=desc)
                got_v = sr.sort(x, descending=desc)
                got_i = sr.argsort(x, descending=desc)
                assert got_v.device == x.device and got_v.dtype == x.dtype and got_i.dtype == torch.int64
                assert torch.equal(got_i, want_i), (name, n, dist, desc)
                # bitwise: -0.0 and NaN payloads stay where the stable order puts them
                assert torch.equal(_bits(torch, got_v), _bits(torch, want_v)), (name, n, dist, desc)


@pytest.mark.parametrize("name", ["int32", "float32", "bfloat16", "int64", "uint8"])
def test_torch_sort_with_indices(name):
    torch = _torch_cuda()
    dt = getattr(torch, name)
    for n in [0, 1, 31, 4097, 1 << 20, (1 << 21) + 7]:
        host = make(np.float32 if name == "bfloat16" else np.dtype(name), n, "few", rng("with-idx", name, n))
        x = torch.from_numpy(host).to(dt).cuda()
        for desc in (False, True):
            want_v, want_i = torch.sort(x, stable=True, descending=desc)
            got_v, got_i = sr.sort(x, descending=desc, return_indices=True)
            assert got_i.dtype == torch.int64 and got_i.device == x.device
            assert torch.equal(got_i, want_i) and torch.equal(_bits(torch, got_v), _bits(torch, want_v)), (name, n)
            # into the caller's buffers, with int32 indices
            v, i = torch.empty_like(x), torch.empty(n, dtype=torch.int32, device="cuda")
            sr.sort(x, descending=desc, return_indices=True, index_dtype=torch.int32, out=(v, i))
            assert torch.equal(i.long(), want_i) and torch.equal(_bits(torch, v), _bits(torch, want_v)), (name, n)


def test_torch_inputs_untouched_and_strided():
    # sort reads its input and writes a new tensor (out of place on the GPU);
    # a strided 1-d view is read through a contiguous copy
    torch = _torch_cuda()
    for n in [1, 4097, (1 << 20) + 3]:
        x = torch.from_numpy(make(np.int32, n, "random", rng("untouched", n))).cuda()
        before = x.clone()
        assert torch.equal(sr.sort(x), torch.sort(x, stable=True).values) and torch.equal(x, before), n
        y = x[::3]
        want_v, want_i = torch.sort(y, stable=True)
        assert torch.equal(sr.sort(y), want_v), n
        got_v, got_i = sr.sort(y, return_indices=True)
        assert torch.equal(got_v, want_v) and torch.equal(got_i, want_i), n
        assert torch.equal(x, before), n
    cupy = _cupy()
    c = cupy.asarray(make(np.float32, 100003, "special", rng("untouched-cupy")))
    before = c.copy()
    same_bits(cupy.asnumpy(sr.sort(c[1::2])), np.sort(cupy.asnumpy(c[1::2]), kind="stable"))
    assert bool((c.view(cupy.uint32) == before.view(cupy.uint32)).all())


def test_torch_pairs_out_and_streams():
    torch = _torch_cuda()
    n = 3_000_017
    g = rng("torch-pairs")
    k = torch.from_numpy(make(np.int32, n, "few", g)).cuda()
    idx = torch.arange(n, device="cuda")
    rows = torch.randn(n, 3, device="cuda")
    want_v, want_i = torch.sort(k, stable=True)
    sk, si, sr_rows = sr.sort_by_key(k, idx, rows)
    assert torch.equal(sk, want_v) and torch.equal(si, want_i) and torch.equal(sr_rows, rows[want_i])
    # on a side stream: ordered after the work before it, visible after a sync of that stream only
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        y = k * 3 + 1
        out = torch.empty_like(y)
        sr.sort(y, out=out)
        i32 = sr.argsort(y, index_dtype=np.int32)
    s.synchronize()
    assert torch.equal(out, torch.sort(k * 3 + 1, stable=True).values)
    assert i32.dtype == torch.int32 and torch.equal(i32.long(), torch.sort(k * 3 + 1, stable=True).indices)
    # in place
    z = k.clone()
    assert sr.sort(z, out=z) is z and torch.equal(z, want_v)


def test_torch_graph_capture():
    # A sort captured in a CUDA graph: proof that it neither synchronises
    # with the host nor allocates outside the framework's allocator.
    torch = _torch_cuda()
    x = torch.randint(0, 2**31 - 1, (1 << 20,), device="cuda", dtype=torch.int32)
    out = torch.empty_like(x)
    small = torch.randint(0, 2**31 - 1, (1000,), device="cuda", dtype=torch.int32)  # no workspace: one call
    small_out = torch.empty_like(small)
    sr.sort(x, out=out)  # warm up (the engine's one-time set-up is not capturable)
    sr.sort(small, out=small_out)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        with torch.cuda.graph(graph, stream=s):
            sr.sort(x, out=out)
            sr.sort(small, out=small_out)
    x.copy_(torch.randint(0, 2**31 - 1, (1 << 20,), device="cuda", dtype=torch.int32))
    small.copy_(torch.randint(0, 2**31 - 1, (1000,), device="cuda", dtype=torch.int32))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, torch.sort(x).values)
    assert torch.equal(small_out, torch.sort(small).values)


def test_torch_errors():
    torch = _torch_cuda()
    x = torch.arange(10, device="cuda", dtype=torch.int32)
    with pytest.raises(ValueError, match="host memory"):
        sr.sort(x, engine="cpu")
    with pytest.raises(ValueError, match="host"):
        sr.sort_by_key(x, torch.arange(10))
    with pytest.raises(TypeError, match="torch dtype"):
        sr.sort(torch.zeros(3, dtype=torch.complex64, device="cuda"))
    with pytest.raises(ValueError, match="out of bounds"):
        sr.sort(torch.zeros(3, 4, device="cuda"), axis=2)
    with pytest.raises(ValueError, match="on"):
        sr.sort(x, out=torch.empty(10, dtype=torch.int32))
    if torch.cuda.device_count() > 1:
        with pytest.raises(ValueError, match="device"):
            sr.sort_by_key(x, torch.arange(10, device="cuda:1"))


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    x = torch.from_numpy(make(np.float32, 100_003, "special", rng("torch-cpu")))
    got = sr.sort(x)
    assert isinstance(got, torch.Tensor) and got.device.type == "cpu"
    assert torch.equal(got.view(torch.int32), torch.sort(x, stable=True).values.view(torch.int32))


@pytest.mark.parametrize("dtype", [np.uint32, np.int64, np.float32, np.float64, np.uint8, np.float16])
def test_cupy(dtype):
    cupy = _cupy()
    for n in SIZES + [1 << 21]:
        host = make(dtype, n, "special" if n % 2 else "random", rng("cupy", dtype, n))
        x = cupy.asarray(host)
        got = sr.sort(x)
        assert isinstance(got, cupy.ndarray)
        same_bits(cupy.asnumpy(got), host[ref_argsort(host)])
        np.testing.assert_array_equal(cupy.asnumpy(sr.argsort(x, descending=True)), ref_argsort(host, True))
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        y = cupy.asarray(host) + 1
        r = sr.sort(y)
    s.synchronize()
    same_bits(cupy.asnumpy(r), np.sort(host + 1, kind="stable"))


def test_jax():
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        gpus = []
    if not gpus:
        pytest.skip("JAX sees no GPU")
    import jax.numpy as jnp

    host = make(np.float32, 1 << 18, "special", rng("jax"))
    x = jax.device_put(jnp.asarray(host), gpus[0])
    got = sr.sort(x)
    assert isinstance(got, jax.Array) and next(iter(got.devices())).platform == "gpu"
    same_bits(np.asarray(got), host[ref_argsort(host)])
    np.testing.assert_array_equal(np.asarray(sr.argsort(x)), ref_argsort(host))


def test_numba():
    numba_cuda = pytest.importorskip("numba.cuda", reason="Numba is not installed")
    _cupy()
    if not numba_cuda.is_available():
        pytest.skip("Numba sees no GPU")
    host = make(np.int32, 100_001, "few", rng("numba"))
    d = numba_cuda.to_device(host)
    got = sr.sort(d)
    assert hasattr(got, "__cuda_array_interface__")
    np.testing.assert_array_equal(got.copy_to_host() if hasattr(got, "copy_to_host") else np.asarray(got),
                                  np.sort(host, kind="stable"))


@pytest.mark.parametrize("shape", [(1000, 16), (64, 1000), (16, 5000), (9, 20000), (300, 9000), (2, 3, 40)])
@pytest.mark.parametrize("name", ["float32", "int32", "int64", "bfloat16"])
def test_torch_sort_along_dim(shape, name):
    """sort(x, axis) against torch.sort(x, dim, stable=True): every route of
    the batched sort (tiny rows, rows in shared memory, long rows)."""
    torch = _torch_cuda()
    dt = getattr(torch, name)
    g = torch.Generator(device="cuda").manual_seed(7)
    x = (torch.randn(shape, device="cuda", generator=g) * 50).to(dt)
    for dim in range(len(shape)):
        for descending in (False, True):
            want = torch.sort(x, dim=dim, descending=descending, stable=True)
            v, i = sr.sort(x, axis=dim, descending=descending, return_indices=True)
            assert v.is_cuda and v.shape == x.shape
            assert torch.equal(_bits(torch, v), _bits(torch, want.values))
            assert torch.equal(i, want.indices)
            assert torch.equal(sr.argsort(x, axis=dim, descending=descending), want.indices)


@pytest.mark.parametrize("shape", [(300, 1024), (140, 20000)])
def test_torch_rows_into_out(shape):
    """Rows of torch.randn (the bin sort; from 16385 keys and 132 rows, the
    split route) into the caller's outputs, written there directly: values
    and indices against torch.sort(stable=True), and the keys alone into an
    output and into the input itself."""
    torch = _torch_cuda()
    g = torch.Generator(device="cuda").manual_seed(11)
    x = torch.randn(shape, device="cuda", generator=g)
    want = torch.sort(x, dim=-1, stable=True)
    v, i = torch.full_like(x, float("nan")), torch.full(shape, -1, dtype=torch.int64, device="cuda")
    got = sr.sort(x, axis=-1, return_indices=True, out=(v, i))
    assert got[0] is v and got[1] is i
    assert torch.equal(_bits(torch, v), _bits(torch, want.values))
    assert torch.equal(i, want.indices)
    o = torch.full_like(x, float("nan"))
    assert sr.sort(x, axis=-1, out=o) is o
    assert torch.equal(_bits(torch, o), _bits(torch, want.values))
    y = x.clone()
    sr.sort(y, axis=-1, out=y)
    assert torch.equal(_bits(torch, y), _bits(torch, want.values))


def test_cupy_sort_along_axis():
    cupy = _cupy()
    a = cupy.asarray(rng("cupy axis").integers(-100, 100, size=(50, 300)).astype(np.int32))
    for axis in (0, 1):
        assert cupy.array_equal(sr.sort(a, axis=axis), cupy.sort(a, axis=axis))
        assert cupy.array_equal(sr.argsort(a, axis=axis), cupy.argsort(a, axis=axis))  # few ties: stable or not
