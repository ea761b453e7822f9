#!/usr/bin/env python3
"""Times the upstream rocm-kpack Python reader (PackedKernelArchive) on a tree.

Used by scripts/bench-vs-python.sh; the reader itself is not in this
repository: put the folder holding the upstream rocm_kpack package (with
kpack.py and compression.py) on PYTHONPATH.

  python_reader.py toc TREE        read every archive, list every TOC entry
  python_reader.py deep TREE       ... and get_kernel() every entry
  python_reader.py tocparse TREE   msgpack.unpackb of every archive's TOC bytes

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


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("toc", "deep", "tocparse"):
        sys.exit(__doc__)
    mode, arg = sys.argv[1], sys.argv[2]
    res = tocparse(arg) if mode == "tocparse" else walk(arg, mode == "deep")
    res["mode"] = mode
    print(json.dumps(res, sort_keys=True))


if __name__ == "__main__":
    main()
