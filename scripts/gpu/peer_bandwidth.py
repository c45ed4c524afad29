#!/usr/bin/env python3
# Run on a machine with two GPUs (kind nvidia-h100-x2): python3 scripts/gpu/peer_bandwidth.py
# Copy-engine bandwidth between two GPUs of one process (a contiguous torch copy_ between
# devices is a memcpy that the copy engines carry), one direction and both at once, 2 GiB each way.
import time, torch
n = 1 << 29  # 2 GiB of int32
a0 = torch.ones(n, dtype=torch.int32, device="cuda:0"); b1 = torch.empty(n, dtype=torch.int32, device="cuda:1")
a1 = torch.ones(n, dtype=torch.int32, device="cuda:1"); b0 = torch.empty(n, dtype=torch.int32, device="cuda:0")
s0 = torch.cuda.Stream(device="cuda:0"); s1 = torch.cuda.Stream(device="cuda:1")
def sync():
    torch.cuda.synchronize("cuda:0"); torch.cuda.synchronize("cuda:1")
def one():
    with torch.cuda.stream(s0): b1.copy_(a0, non_blocking=True)
def both():
    with torch.cuda.stream(s0): b1.copy_(a0, non_blocking=True)
    with torch.cuda.stream(s1): b0.copy_(a1, non_blocking=True)
for name, f in (("one direction", one), ("both directions", both)):
    f(); sync()
    ts = []
    for _ in range(5):
        t = time.perf_counter(); f(); sync(); ts.append(time.perf_counter() - t)
    ts.sort(); med = ts[2]
    print(f"{name}: median {med*1e3:.2f} ms for 2 GiB each way, {2**31/med/1e9:.0f} GB/s per direction")
print(torch.__version__, torch.cuda.get_device_name(0), "peer access", torch.cuda.can_device_access_peer(0, 1))
