#!/usr/bin/env python3
"""Times the upstream rocm-kpack Python reader (PackedKernelArchive) on a tree.

Used by scripts/bench-vs-python.sh; the reader itself is not in this
repository: put the folder holding the upstream rocm_kpack package (with
kpack.py and compression.py) on PYTHONPATH.

  python_reader.py toc TREE        read every archive, list every TOC entry
  python_reader.py deep TREE       ... and get_kernel() every entry
  python_reader.py tocparse TREE   msgpack.unpackb of every archive's TOC bytes
  python_reader.py zstd TREE       zstandard decompress() of every zstd frame
                                   (the reader's decompressor), in memory

Prints one JSON line: what was done and the seconds it took inside Python
(after interpreter start and imports).
"""

import json
import os
import struct
import sys
import time
from pathlib import Path

import msgpack
from rocm_kpack.kpack import PackedKernelArchive


def archives(tree):
    out = []
    for root, dirs, files in os.walk(tree):
        dirs.sort()
        out += [Path(root, f) for f in sorted(files) if f.endswith(".kpack")]
    return out


def walk(tree, fetch):
    start = time.perf_counter()
    paths = archives(tree)
    entries = 0
    decompressed = 0
    for p in paths:
        a = PackedKernelArchive.read(p)
        for key, arches in a.toc.items():
            for arch in arches:
                entries += 1
                if fetch:
                    decompressed += len(a.get_kernel(key, arch))
    return {"archives": len(paths), "entries": entries, "decompressed": decompressed,
            "seconds": time.perf_counter() - start}


def tocparse(tree, rounds=5):
    """Best of rounds: msgpack.unpackb over every archive's TOC, in memory."""
    tocs = []
    for p in archives(tree):
        with p.open("rb") as f:
            (toc_offset,) = struct.unpack_from("<Q", f.read(16), 8)
            f.seek(toc_offset)
            tocs.append(f.read())
    best = None
    for _ in range(rounds):
        start = time.perf_counter()
        entries = 0
        for toc in tocs:
            parsed = msgpack.unpackb(toc, raw=False)
            entries += sum(len(v) for v in parsed["toc"].values())
        best = min(best or 1e9, time.perf_counter() - start)
    size = sum(len(t) for t in tocs)
    return {"archives": len(tocs), "toc_bytes": size, "entries": entries, "seconds": best,
            "mb_per_s": size / best / 1e6, "ns_per_entry": best / entries * 1e9}


# ZSTD_CAP bounds the compressed frame bytes zstd_frames takes: archives in
# order of their path relative to the tree until the cap is passed. The Go
# side (BenchmarkZstdFrames in internal/testutil/benchtree) takes the same frames.
ZSTD_CAP = 256 << 20


def zstd_frames(tree):
    """The frames of the first archives (by relative path) up to ZSTD_CAP."""
    frames = []
    size = 0
    for p in sorted(archives(tree), key=lambda p: str(p.relative_to(tree))):
        if size >= ZSTD_CAP:
            break
        data = p.read_bytes()
        (toc_offset,) = struct.unpack_from("<Q", data, 8)
        toc = msgpack.unpackb(data[toc_offset:], raw=False)
        if toc.get("compression_scheme") != "zstd-per-kernel":
            continue
        off = toc["zstd_offset"]
        (count,) = struct.unpack_from("<I", data, off)
        off += 4
        for _ in range(count):
            (n,) = struct.unpack_from("<I", data, off)
            frames.append(data[off + 4 : off + 4 + n])
            off += 4 + n
            size += n
    return frames, size


def zstd_decode(tree, rounds=3):
    """Best of rounds: the reader's ZstdDecompressor().decompress on every
    frame of zstd_frames, in memory (libzstd through python-zstandard)."""
    import zstandard

    frames, size = zstd_frames(tree)
    d = zstandard.ZstdDecompressor()
    best, out = None, 0
    for _ in range(rounds):
        start = time.perf_counter()
        out = 0
        for f in frames:
            out += len(d.decompress(f))
        best = min(best or 1e9, time.perf_counter() - start)
    return {"frames": len(frames), "compressed": size, "decompressed": out, "seconds": best,
            "mb_per_s": out / best / 1e6, "ns_per_frame": best / len(frames) * 1e9,
            "libzstd": ".".join(map(str, zstandard.ZSTD_VERSION))}


def main():
    modes = {"toc": lambda t: walk(t, False), "deep": lambda t: walk(t, True),
             "tocparse": tocparse, "zstd": zstd_decode}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    mode, arg = sys.argv[1], sys.argv[2]
    res = modes[mode](arg)
    res["mode"] = mode
    print(json.dumps(res, sort_keys=True))


if __name__ == "__main__":
    main()
