"""stable_radix against the sorts Python users already have: numpy.sort on
the host, torch.sort / torch.argsort and cupy.sort / cupy.argsort on the
GPU, for whichever are installed. Same process, same input, alternating
calls, median of --reps after a warm-up; GPU times from CUDA events on the
current stream around the whole Python call (the package's overhead
included). Prints Markdown tables of throughput (million keys per second)
over n and the ratio peer time / stable_radix time (above 1: stable_radix
is faster); with matplotlib installed, --plot FILE writes a PNG of
throughput over n.

Rows (--rows, --host-rows): sort along the last axis of a matrix, each row
on its own (the batched sort), against torch.sort(dim=-1) with its int64
indices, cupy.sort(axis=-1) and numpy.sort(axis=-1).

Launch overhead (GPU; --no-overhead skips it): the host time of one call on
1000 elements, from Python until the sort is enqueued.

    python -m stable_radix.bench                       # host up to 2^24, GPU up to 2^28
    python -m stable_radix.bench --gpu-log2 16,20,24,28 --cpu-log2 20,24 --plot bench.png
    python -m stable_radix.bench --rows 262144x1024,1024x262144 --no-cpu
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import numpy as np  # noqa: E402

import stable_radix as sr  # noqa: E402


def _sizes(text):
    return [int(x) for x in text.split(",") if x]


def _cpu_time(fn, reps):
    times = []
    for _ in range(reps + 1):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times[1:])  # the first call warms up


def _gpu_time(fn, reps, torch):
    times = []
    for _ in range(reps + 1):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times[1:])


def _size_text(n):
    """A 1-d size as 2^k, a matrix shape as ROWS x LENGTH."""
    return f"{n[0]} x {n[1]}" if isinstance(n, tuple) else f"2^{n.bit_length() - 1}"


def _elements(n):
    return n[0] * n[1] if isinstance(n, tuple) else n


class Results:
    """Rows of (series, n or (rows, length), peer name, peer ms, ours name, ours ms)."""

    def __init__(self):
        self.rows = []

    def add(self, series, n, peer, t_peer, ours, t_ours):
        self.rows.append((series, n, peer, t_peer, ours, t_ours))
        print(f"  {series} {_size_text(n)}: {peer} {t_peer:.3f} ms, {ours} {t_ours:.3f} ms, "
              f"ratio {t_peer / t_ours:.2f}", file=sys.stderr)

    def print_tables(self):
        for series in dict.fromkeys(r[0] for r in self.rows):
            rows = [r for r in self.rows if r[0] == series]
            peer, ours = rows[0][2], rows[0][4]
            what = "rows x length" if isinstance(rows[0][1], tuple) else "n"
            print(f"\n### {series}\n")
            print(f"| {what} | {peer} ms | {ours} ms | {peer} Mkeys/s | {ours} Mkeys/s | ratio |")
            print("|---|---|---|---|---|---|")
            for _, n, _, tp, _, to in rows:
                m = _elements(n)
                print(f"| {_size_text(n)} | {tp:.3f} | {to:.3f} | {m / tp / 1e3:.0f} | {m / to / 1e3:.0f} | "
                      f"{tp / to:.2f} |")

    def plot(self, path):
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print(f"--plot {path}: matplotlib is not installed, no plot written", file=sys.stderr)
            return
        series = list(dict.fromkeys(r[0] for r in self.rows))
        if not series:  # (--gpu-log2= and --no-cpu: the shapes only, no sizes to draw)
            print(f"--plot {path}: no sizes were measured, no plot written", file=sys.stderr)
            return
        fig, axes = plt.subplots(len(series), 1, figsize=(7, 3.2 * len(series)), squeeze=False)
        for ax, s in zip(axes[:, 0], series):
            rows = [r for r in self.rows if r[0] == s]
            ns = [r[1] for r in rows]
            ax.plot(ns, [n / r[3] / 1e3 for n, r in zip(ns, rows)], "o-", label=rows[0][2])
            ax.plot(ns, [n / r[5] / 1e3 for n, r in zip(ns, rows)], "s-", label="stable_radix " + rows[0][4])
            ax.set_xscale("log", base=2)
            ax.set_ylabel("Mkeys/s")
            ax.set_title(s, fontsize=9)
            ax.legend(fontsize=8)
        axes[-1, 0].set_xlabel("n")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        print(f"plot written to {path}", file=sys.stderr)


def bench_host(res, sizes, reps):
    rng = np.random.default_rng(3)
    for lg in sizes:
        n = 1 << lg
        for name, a in [("uint32", rng.integers(0, 2**32, size=n, dtype=np.uint32)),
                        ("float32", rng.random(n, dtype=np.float32))]:
            res.add(f"host {name}: numpy.sort (default kind) vs sort", n, "numpy.sort", _cpu_time(lambda: np.sort(a), reps),
                    "sort", _cpu_time(lambda: sr.sort(a), reps))
            if lg <= 22:  # NumPy's stable sort of 32-bit keys is a merge sort: seconds above this
                res.add(f"host {name}: numpy.sort(kind='stable') vs sort", n, "numpy stable",
                        _cpu_time(lambda: np.sort(a, kind="stable"), reps), "sort", _cpu_time(lambda: sr.sort(a), reps))


def bench_torch(res, sizes, reps, torch):
    g = torch.Generator(device="cuda").manual_seed(1)
    for lg in sizes:
        n = 1 << lg
        x = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=g)
        out_v, out_i = torch.empty_like(x), torch.empty(n, dtype=torch.int64, device="cuda")
        res.add("torch int32: torch.sort (values + int64 indices) vs sort(return_indices=True)", n, "torch.sort",
                _gpu_time(lambda: torch.sort(x, stable=True), reps, torch), "sort(return_indices=True)",
                _gpu_time(lambda: sr.sort(x, return_indices=True, out=(out_v, out_i)), reps, torch))
        res.add("torch int32: torch.sort vs sort (values only)", n, "torch.sort",
                _gpu_time(lambda: torch.sort(x, stable=True), reps, torch), "sort",
                _gpu_time(lambda: sr.sort(x, out=out_v), reps, torch))
        i32 = torch.empty(n, dtype=torch.int32, device="cuda")
        res.add("torch int32: torch.argsort vs argsort(index_dtype=int32)", n, "torch.argsort",
                _gpu_time(lambda: torch.argsort(x, stable=True), reps, torch), "argsort int32",
                _gpu_time(lambda: sr.argsort(x, index_dtype=np.int32, out=i32), reps, torch))
        b = torch.randn(n, device="cuda", generator=g).to(torch.bfloat16)
        out_b = torch.empty_like(b)
        res.add("torch bfloat16: torch.sort vs sort", n, "torch.sort",
                _gpu_time(lambda: torch.sort(b, stable=True), reps, torch), "sort",
                _gpu_time(lambda: sr.sort(b, out=out_b), reps, torch))
        del x, out_v, out_i, i32, b, out_b


def bench_cupy(res, sizes, reps, torch, cupy):
    # CuPy runs on torch's current stream here, so that one set of CUDA events times both
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # ExternalStream, deprecated in CuPy 14 but still there
        stream = cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
    with stream:
        for lg in sizes:
            n = 1 << lg
            x = cupy.random.default_rng(2).integers(0, 2**32, size=n, dtype=cupy.uint32)
            out = cupy.empty_like(x)
            res.add("cupy uint32: cupy.sort vs sort", n, "cupy.sort", _gpu_time(lambda: cupy.sort(x), reps, torch),
                    "sort", _gpu_time(lambda: sr.sort(x, out=out), reps, torch))
            del x, out


def bench_overhead(torch, cupy, n=1000, calls=500):
    """Host time of one call on a small CUDA array, from Python until the work
    is enqueued (the GPU is synchronised between calls, outside the timing):
    what a call costs a program that sorts many small arrays."""
    def host_us(fn):
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t) * 1e6)
            torch.cuda.synchronize()
        return statistics.median(times)

    x = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32)
    v, i64, i32 = torch.empty_like(x), torch.empty(n, dtype=torch.int64, device="cuda"), \
        torch.empty(n, dtype=torch.int32, device="cuda")
    rows = [("torch.sort(x, stable=True) (reference)", host_us(lambda: torch.sort(x, stable=True))),
            ("sort(x, out=v)", host_us(lambda: sr.sort(x, out=v))),
            ("sort(x)", host_us(lambda: sr.sort(x))),
            ("argsort(x, index_dtype=int32, out=i)", host_us(lambda: sr.argsort(x, index_dtype=np.int32, out=i32))),
            ("sort(x, return_indices=True, out=(v, i))", host_us(lambda: sr.sort(x, return_indices=True, out=(v, i64))))]
    if cupy is not None:
        c = cupy.asarray(x)
        co = cupy.empty_like(c)
        rows.append(("cupy: sort(c, out=o)", host_us(lambda: sr.sort(c, out=co))))
    print(f"\n### launch overhead: host time of one call on {n} int32 elements on the GPU (median of {calls})\n")
    print("| call | us |")
    print("|---|---|")
    for name, us in rows:
        print(f"| {name} | {us:.1f} |")


def _shapes(text):
    return [tuple(int(x) for x in item.split("x")) for item in text.split(",") if item]


def bench_rows_host(res, shapes, reps):
    rng = np.random.default_rng(5)
    for r, c in shapes:
        m = rng.random((r, c), dtype=np.float32)
        res.add("host float32 rows: numpy.sort(axis=-1) (default kind) vs sort(axis=-1)", (r, c), "numpy.sort",
                _cpu_time(lambda: np.sort(m, axis=-1), reps), "sort", _cpu_time(lambda: sr.sort(m, axis=-1), reps))


def bench_rows_gpu(res, shapes, reps, torch, cupy):
    g = torch.Generator(device="cuda").manual_seed(4)
    for r, c in shapes:
        x = torch.randn((r, c), device="cuda", generator=g)
        v, i = torch.empty_like(x), torch.empty((r, c), dtype=torch.int64, device="cuda")
        res.add("torch float32 rows: torch.sort(dim=-1) (values + int64 indices) vs sort(axis=-1, return_indices=True)",
                (r, c), "torch.sort", _gpu_time(lambda: torch.sort(x, dim=-1), reps, torch), "sort",
                _gpu_time(lambda: sr.sort(x, axis=-1, return_indices=True, out=(v, i)), reps, torch))
        res.add("torch float32 rows: torch.sort(dim=-1, stable=True) vs sort(axis=-1, return_indices=True)",
                (r, c), "torch.sort stable", _gpu_time(lambda: torch.sort(x, dim=-1, stable=True), reps, torch),
                "sort", _gpu_time(lambda: sr.sort(x, axis=-1, return_indices=True, out=(v, i)), reps, torch))
        del v, i
        if cupy is not None:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                stream = cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
            with stream:
                y = cupy.from_dlpack(x)
                out = cupy.empty_like(y)
                res.add("cupy float32 rows: cupy.sort(axis=-1) vs sort(axis=-1)", (r, c), "cupy.sort",
                        _gpu_time(lambda: cupy.sort(y, axis=-1), reps, torch), "sort",
                        _gpu_time(lambda: sr.sort(y, axis=-1, out=out), reps, torch))
                del y, out
        del x


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m stable_radix.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpu-log2", default="16,20,24", help="host sizes, log2, comma-separated (default 16,20,24)")
    ap.add_argument("--gpu-log2", default="16,20,24,28", help="GPU sizes, log2 (default 16,20,24,28)")
    ap.add_argument("--reps", type=int, default=10, help="timed calls a cell, after one warm-up (default 10)")
    ap.add_argument("--no-gpu", action="store_true", help="host rows only")
    ap.add_argument("--no-cpu", action="store_true", help="GPU rows only")
    ap.add_argument("--plot", metavar="FILE", help="write a PNG of throughput over n (needs matplotlib)")
    ap.add_argument("--rows", default="262144x1024,16384x16384,16777216x16,1024x262144",
                    help="GPU matrices ROWSxLENGTH sorted along the last axis ('' for none; default: the four "
                         "shapes of 2^28 elements)")
    ap.add_argument("--no-overhead", action="store_true", help="skip the launch-overhead table (GPU)")
    ap.add_argument("--host-rows", default="4096x1024,65536x16,16x65536",
                    help="host matrices sorted along the last axis ('' for none)")
    args = ap.parse_args(argv)

    print(f"stable_radix {sr.__version__}, engines {sr.engines()}, numpy {np.__version__}, "
          f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs")
    res = Results()
    rows = Results()
    if not args.no_cpu:
        bench_host(res, _sizes(args.cpu_log2), args.reps)
        bench_rows_host(rows, _shapes(args.host_rows), args.reps)
    torch = None
    if args.no_gpu:
        print("GPU rows: skipped (--no-gpu)")
    elif not sr.has_cuda:
        print("GPU rows: skipped (this build of stable_radix has no CUDA engine)")
    else:
        try:
            import torch
        except ImportError:
            torch = None
        if torch is None or not torch.cuda.is_available():
            print("GPU rows: skipped (they are timed through PyTorch's CUDA events: PyTorch with a GPU is needed)")
            torch = None
    if torch is not None:
        print(f"torch {torch.__version__}, GPU {torch.cuda.get_device_name()}")
        bench_torch(res, _sizes(args.gpu_log2), args.reps, torch)
        try:
            import cupy
        except ImportError:
            cupy = None
            print("cupy rows: skipped (CuPy is not installed)")
        else:
            print(f"cupy {cupy.__version__}")
            bench_cupy(res, _sizes(args.gpu_log2), args.reps, torch, cupy)
        bench_rows_gpu(rows, _shapes(args.rows), args.reps, torch, cupy)
    res.print_tables()
    rows.print_tables()
    if torch is not None and not args.no_overhead:
        bench_overhead(torch, cupy)
    if args.plot:
        res.plot(args.plot)


if __name__ == "__main__":
    main()
