#!/usr/bin/env python3
"""stable_radix against the sorts Python users have: torch.sort / argsort,
cupy.sort / argsort on the GPU, numpy.sort on the CPU. Same process, same
input, alternating calls; GPU times from CUDA events on the current stream,
median of --reps. Prints a Markdown table (time in ms, ratio = peer time /
stable_radix time: above 1 means stable_radix is faster).

  python3 bench/python/bench_frameworks.py [--log2 28] [--reps 10] [--cpu-log2 24]
"""
import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import numpy as np  # noqa: E402

import stable_radix as sr  # noqa: E402


def gpu_time(fn, reps, torch):
    times = []
    for _ in range(reps + 1):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times[1:])  # the first call warms up


def cpu_time(fn, reps):
    times = []
    for _ in range(reps + 1):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times[1:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--log2", type=int, default=28, help="GPU array size, log2 (default 28)")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--cpu-log2", type=int, default=24, help="CPU array size, log2 (default 24)")
    ap.add_argument("--no-gpu", action="store_true")
    ap.add_argument("--types", default="int32,float32,bfloat16,int64", help="GPU key types (comma-separated)")
    ap.add_argument("--no-cpu", action="store_true")
    args = ap.parse_args()
    rows = []
    print(f"stable_radix {sr.__version__}, engines {sr.engines()}, numpy {np.__version__}, "
          f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs")

    torch = None
    if not args.no_gpu and sr.has_cuda:
        try:
            import torch
            if not torch.cuda.is_available():
                torch = None
        except ImportError:
            torch = None
    if torch is not None:
        print(f"torch {torch.__version__}, GPU {torch.cuda.get_device_name()}")
        n = 1 << args.log2
        g = torch.Generator(device="cuda").manual_seed(1)
        cases = [
            ("int32", torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=g)),
            ("float32", torch.randn(n, device="cuda", generator=g)),
            ("bfloat16", torch.randn(n, device="cuda", generator=g).to(torch.bfloat16)),
            ("int64", torch.randint(-2**62, 2**62, (n // 2,), device="cuda", dtype=torch.int64, generator=g)),
        ]
        for name, x in cases:
            if name not in args.types.split(","):
                continue
            m = x.numel()
            iota = torch.arange(m, device="cuda")
            out_v, out_i = torch.empty_like(x), torch.empty_like(iota)
            t_torch = gpu_time(lambda: torch.sort(x, stable=True), args.reps, torch)
            t_pairs = gpu_time(lambda: sr.sort_by_key(x, iota, out=(out_v, out_i)), args.reps, torch)
            rows.append((f"{name} 2^{m.bit_length() - 1}", "values + int64 indices", "torch.sort(stable=True)",
                         t_torch, "sort_by_key(x, arange) (incl. copies in)", t_pairs))
            t_with = gpu_time(lambda: sr.sort(x, return_indices=True, out=(out_v, out_i)), args.reps, torch)
            rows.append((f"{name} 2^{m.bit_length() - 1}", "values + int64 indices", "torch.sort(stable=True)",
                         t_torch, "sort(x, return_indices=True)", t_with))
            t_torch = gpu_time(lambda: torch.argsort(x, stable=True), args.reps, torch)
            t_arg = gpu_time(lambda: sr.argsort(x), args.reps, torch)
            rows.append((f"{name} 2^{m.bit_length() - 1}", "int64 indices", "torch.argsort(stable=True)", t_torch,
                         "argsort", t_arg))
            t_torch = gpu_time(lambda: torch.sort(x, stable=True).values, args.reps, torch)
            t_keys = gpu_time(lambda: sr.sort(x), args.reps, torch)
            rows.append((f"{name} 2^{m.bit_length() - 1}", "values", "torch.sort(stable=True).values", t_torch,
                         "sort", t_keys))
            del iota, out_v, out_i
        try:
            import cupy
            with cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
                xc = cupy.random.default_rng(2).integers(0, 2**32, size=n, dtype=cupy.uint32)
                t_cupy = gpu_time(lambda: cupy.sort(xc), args.reps, torch)
                t_keys = gpu_time(lambda: sr.sort(xc), args.reps, torch)
                rows.append((f"uint32 2^{args.log2}", "values", "cupy.sort", t_cupy, "sort", t_keys))
                t_cupy = gpu_time(lambda: cupy.argsort(xc), args.reps, torch)
                t_arg = gpu_time(lambda: sr.argsort(xc), args.reps, torch)
                rows.append((f"uint32 2^{args.log2}", "int64 indices", "cupy.argsort", t_cupy, "argsort", t_arg))
                del xc
        except ImportError:
            print("cupy: not installed, skipped")
    else:
        print("GPU rows skipped: " + ("--no-gpu" if args.no_gpu else "no CUDA engine or no GPU visible to torch"))

    n = 1 << args.cpu_log2
    rng = np.random.default_rng(3)
    for name, a in [] if args.no_cpu else [("uint32", rng.integers(0, 2**32, size=n, dtype=np.uint32)),
                    ("float32", rng.standard_normal(n).astype(np.float32)),
                    ("int64", rng.integers(-2**62, 2**62, size=n, dtype=np.int64))]:
        t_np = cpu_time(lambda: np.sort(a), args.reps)
        t_sr = cpu_time(lambda: sr.sort(a), args.reps)
        rows.append((f"{name} 2^{args.cpu_log2} (host)", "values", "numpy.sort (default, unstable)", t_np,
                     "sort (cpu engine)", t_sr))
        t_np = cpu_time(lambda: np.argsort(a, kind="stable"), args.reps)
        t_sr = cpu_time(lambda: sr.argsort(a), args.reps)
        rows.append((f"{name} 2^{args.cpu_log2} (host)", "int64 indices", "numpy.argsort(kind='stable')", t_np,
                     "argsort (cpu engine)", t_sr))

    print()
    print("| input | result | peer | peer ms | stable_radix | stable_radix ms | ratio |")
    print("|---|---|---|---|---|---|---|")
    for inp, res, peer, tp, ours, to in rows:
        print(f"| {inp} | {res} | {peer} | {tp:.3f} | {ours} | {to:.3f} | {tp / to:.2f} |")


if __name__ == "__main__":
    main()
