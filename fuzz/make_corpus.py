#!/usr/bin/env python3
"""Writes the seed corpora fuzz/corpus/api and fuzz/corpus/cli_args.

Deterministic (a fixed random seed), so rerunning it gives the same files
(named by their SHA-1, as libFuzzer names its own; other files are kept);
the input layouts are described at the top of fuzz_api.cpp and
fuzz_cli_args.cpp. Run from anywhere: python3 fuzz/make_corpus.py
"""
import hashlib
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261122)

# fuzz_api.cpp: key types in the order of rt::all_kts, with their sizes.
KEY_SIZES = [1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8]  # u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64
F16, BF16, F32, F64 = 8, 9, 10, 11


def api(t, op=0, desc=0, total=0, two=0, entry=0, rng_mode=0, digit=0, null=0, b3=0, b4=0,
        vsel=2, mis=0, expand=None, records=None, keys=b""):
    # records: (record size, offset byte, big-endian); op is then ignored
    b1 = (records[2] if records else op) | desc << 2 | total << 3 | two << 4 | entry << 5
    b2 = rng_mode | digit << 2 | null << 7
    b5 = vsel | mis << 3 | (1 << 6 if expand else 0) | (1 << 7 if records else 0)
    head = bytes([t, b1, b2, b3, b4, b5])
    if expand:
        n, low = expand
        head += struct.pack("<H", n - 1) + bytes([low, 0])
    if records:
        head += bytes([records[0] - 1, records[1]])
    return head + keys


def rand_keys(t, n):
    return bytes(rng.getrandbits(8) for _ in range(n * KEY_SIZES[t]))


def floats(t, values):
    fmt = {F32: "<f", F64: "<d"}[t]
    return b"".join(struct.pack(fmt, v) for v in values)


def api_seeds():
    s = []
    # Every key type twice, every operation on every width, options spread over the cases.
    for t in range(12):
        for op in (t % 4, (t + 2) % 4):
            i = t * 4 + op
            s.append(api(t, op=op, desc=i % 2, total=(i // 2) % 2, two=(i // 3) % 2, entry=i % 3,
                         vsel=i % 8, mis=i % 3, keys=rand_keys(t, 8 + i % 13)))
    # Float specials: NaNs, -0.0, infinities, denormals, in both float orders.
    specials = [float("nan"), -0.0, 0.0, float("inf"), float("-inf"), 5e-324, -1.5, 1.5, -float("nan"), 2.0]
    s.append(api(F64, op=1, keys=floats(F64, specials * 3)))
    s.append(api(F32, op=2, total=1, desc=1, keys=floats(F32, specials * 3)))
    s.append(api(F16, op=0, keys=bytes.fromhex("007c00fc01fe0080000000fc0002ff7f" * 3)))
    s.append(api(BF16, op=3, total=1, keys=bytes.fromhex("807f80ff01ff008000000100c07f" * 3)))
    # Bit ranges: valid ones, the empty range, and raw (invalid) values.
    s.append(api(2, op=0, rng_mode=1, b3=3, b4=14, keys=rand_keys(2, 40)))
    s.append(api(7, op=1, rng_mode=1, b3=60, b4=4, desc=1, keys=rand_keys(7, 40)))
    s.append(api(5, op=2, rng_mode=1, b3=5, b4=0, keys=rand_keys(5, 40)))
    s.append(api(3, op=0, rng_mode=3, keys=rand_keys(3, 30)))
    s.append(api(2, op=0, rng_mode=2, b3=0xFF, b4=0x10, keys=rand_keys(2, 10)))   # begin_bit -1
    s.append(api(0, op=1, rng_mode=2, b3=2, b4=9, entry=1, keys=rand_keys(0, 10)))  # end_bit 9 > 8
    s.append(api(1, op=3, rng_mode=2, b3=9, b4=4, entry=2, keys=rand_keys(1, 10)))  # begin > end
    # digit_bits 1..16 and the invalid 17 / -1.
    s.append(api(2, op=0, digit=1, keys=rand_keys(2, 64)))
    s.append(api(6, op=1, digit=11, keys=rand_keys(6, 64)))
    s.append(api(3, op=2, digit=16, keys=rand_keys(3, 64)))
    s.append(api(2, op=0, digit=17, keys=rand_keys(2, 8)))
    s.append(api(2, op=0, digit=18, entry=2, keys=rand_keys(2, 8)))
    # Null buffers: empty input (fine) and a non-empty one through run() (invalid).
    s.append(api(2, op=1, null=1, entry=1))
    s.append(api(2, op=2, null=1, entry=1, keys=rand_keys(2, 3)))
    # Caller workspaces: exact, and one byte short (out_of_memory).
    s.append(api(3, op=1, entry=2, vsel=5, mis=3, keys=rand_keys(3, 50)))
    s.append(api(2, op=3, entry=3, keys=rand_keys(2, 50)))
    # Expanded inputs: two threads, the hybrid route, skewed floats (fine window).
    s.append(api(2, op=0, two=1, expand=(6000, 32), keys=rand_keys(2, 4)))
    s.append(api(0, op=1, two=1, expand=(20000, 8), vsel=3, keys=rand_keys(0, 3)))
    s.append(api(F32, op=0, expand=(20000, 14), keys=floats(F32, [1.0, 1.25, -3.0, 1e-3])))
    s.append(api(F64, op=2, two=1, expand=(40000, 30), keys=floats(F64, [100.0, 101.0])))
    s.append(api(3, op=1, two=1, expand=(9000, 64), vsel=6, mis=1, entry=2, keys=rand_keys(3, 1)))
    s.append(api(1, op=3, expand=(3000, 3), rng_mode=1, b3=1, b4=9, keys=rand_keys(1, 5)))
    # sort_records: odd sizes and offsets, both byte orders, a key that ends the
    # record, one that does not fit, and offsets that wrap offset + size around.
    s.append(api(2, records=(13, 5, 0), keys=rand_keys(2, 30)))
    s.append(api(F64, records=(8, 0, 1), desc=1, keys=floats(F64, specials * 2)))
    s.append(api(1, records=(7, 5, 1), two=1, expand=(5000, 16), keys=rand_keys(1, 3)))
    s.append(api(3, records=(12, 6, 0), keys=rand_keys(3, 4)))
    s.append(api(2, records=(8, 0x80, 0), keys=rand_keys(2, 8)))
    s.append(api(0, records=(4, 0x87, 1), keys=rand_keys(0, 8)))
    return s


def cli(mode, text):
    return bytes([mode]) + (text.encode() if isinstance(text, str) else text)


def cli_seeds():
    s = []
    for t in ["1000000", "16M", "2^24", "1e6", "1.5G", "8GiB", "4KB", "0", "18446744073709551615",
              "18446744073709551616", "2^64", "12x", ""]:
        s.append(cli(0, t))
    s.append(cli(1, struct.pack("<Q", 123456789) + b"\x00"))
    s.append(cli(1, struct.pack("<Q", (1 << 62) + 7) + b"\x01"))
    s.append(cli(1, struct.pack("<Q", 3 | 40 << 16) + b"\x02"))
    s.append(cli(1, struct.pack("<Q", 7 | 12 << 24) + b"\x03"))
    s.append(cli(2, struct.pack("<qq", -100, 100) + b"-42"))
    s.append(cli(2, struct.pack("<qq", -(1 << 63), (1 << 63) - 1) + b"-9223372036854775808"))
    s.append(cli(2, struct.pack("<qqq", 0, 255, 17) + b"+7"))
    for mx, t in [(32, "0:10"), (64, "3:17"), (8, "8:8"), (16, "10:3"), (128, "0:128"), (32, "a:b")]:
        s.append(cli(3, bytes([mx]) + t.encode()))
    for t in ["u32", "u32:be", "i64:le", "bytes:10", "bytes:255", "f16", "bf16", "u128", "i128:be", "float:xx",
              "bytes:0"]:
        s.append(cli(4, t))
    for t in ["uniform", "few-unique:5", "bits:10", "bits:99", "zipf", "nearly-sorted", "sorted:1"]:
        s.append(cli(5, b"\x02" + t.encode()))
    lines = [
        "--type\0u32",
        "-tf32\0--descending\0--float-order=total\0--bits\00:20",
        "--record-size\0100\0--key-type\0bytes:10",
        "--record-size=21\0--key-type=i128:be\0--key-offset=5\0--bits=3:100",
        "--record-size\08\0--key-type\0u64\0--key-offset\00",
        "-n\02^20\0-f\0in.bin\0--\0-x",
        "--type=bytes:7\0--bits\00:56\0--descending",
        "--key-type\0bf16\0--count=1.5K",
    ]
    for i, t in enumerate(lines):
        s.append(cli(6 + (i % 2) * 8, (b"\x01" if i % 3 else b"\x00") + t.encode()))
    return s


def write(folder, seeds):
    # Files already there (inputs of past findings, added by hand) stay.
    path = os.path.join(HERE, "corpus", folder)
    os.makedirs(path, exist_ok=True)
    for data in seeds:
        name = hashlib.sha1(data).hexdigest()  # libFuzzer's naming
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
    print(f"{path}: {len(seeds)} files, {sum(map(len, seeds))} bytes")


if __name__ == "__main__":
    write("api", api_seeds())
    write("cli_args", cli_seeds())
