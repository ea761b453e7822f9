#!/usr/bin/env python3
"""Ground truth for the HIP fat binaries of a real host library, from LLVM's
own tools only (generate.sh runs it; CI never does).

For the host ELF ROOT/PATH: each .hipFatBinSegment wrapper (24 bytes: magic,
version, binary pointer, reserved; the pointer from its R_X86_64_RELATIVE
addend), the clang offload bundle a HIPF wrapper points at, its entry list
from `clang-offload-bundler --list --type=o --input=BUNDLE`, and per device
entry the code object from `clang-offload-bundler --unbundle` decoded by
`llvm-readelf -h --notes` (e_flags, ABI version, amdhsa.target) plus its size.
Writes one JSON object on stdout, one wrapper per line.

usage: gt.py ROOT PATH PACKAGE
"""
import hashlib, json, os, re, struct, subprocess, sys, tempfile

LLVM = os.environ.get("LLVM_BIN", "/usr/lib/llvm-15/bin")
BUNDLER = os.path.join(LLVM, "clang-offload-bundler")
READELF = os.path.join(LLVM, "llvm-readelf")


def sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = []
    for i in range(shnum):
        name, typ, flags, addr, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        secs.append([name, typ, addr, off, size])
    stro = secs[shstrndx][3]
    out = {}
    for s in secs:
        n = data[stro + s[0]:data.index(b"\0", stro + s[0])].decode()
        out[n] = dict(type=s[1], addr=s[2], off=s[3], size=s[4])
    return out


def relocs(data, secs):
    """R_X86_64_RELATIVE addends by offset (vaddr)."""
    r = {}
    s = secs.get(".rela.dyn")
    if not s:
        return r
    for i in range(s["size"] // 24):
        off, info, add = struct.unpack_from("<QQq", data, s["off"] + 24 * i)
        if info & 0xFFFFFFFF == 8:
            r[off] = add
    return r


def vaddr_to_off(data, va):
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        typ, flg, off, vaddr, paddr, filesz, memsz = struct.unpack_from("<IIQQQQQ", data, phoff + i * phentsize)
        if typ == 1 and vaddr <= va < vaddr + filesz:
            return off + va - vaddr
    return None


def bundle_end(data, start):
    if data[start:start + 24] != b"__CLANG_OFFLOAD_BUNDLE__":
        return None
    n, = struct.unpack_from("<Q", data, start + 24)
    p = end = start + 32
    for _ in range(n):
        o, sz, l = struct.unpack_from("<QQQ", data, p)
        p += 24 + l
        end = max(end, start + o + sz)
    return max(end, p)


def readelf(path):
    out = subprocess.run([READELF, "-h", "--notes", path], capture_output=True, text=True, check=True).stdout
    fl = re.search(r"Flags:\s+(0x[0-9a-fA-F]+)", out)
    tgt = re.search(r"amdhsa\.target:\s+'?([^'\s]+)'?", out)
    abiv = re.search(r"ABI Version:\s+(\d+)", out)
    return dict(e_flags=fl.group(1) if fl else None,
                abi_version=int(abiv.group(1)) if abiv else None,
                amdhsa_target=tgt.group(1) if tgt else None)


def wrapper(data, secs, rel, tmp, i):
    seg, fb = secs[".hipFatBinSegment"], secs.get(".hip_fatbin")
    magic, ver, ptr, _ = struct.unpack_from("<IIQQ", data, seg["off"] + 24 * i)
    ptr = rel.get(seg["addr"] + 24 * i + 8, ptr)
    w = dict(index=i, magic={0x48495046: "HIPF", 0x4B504948: "HIPK"}.get(magic, hex(magic)), version=ver)
    foff = vaddr_to_off(data, ptr) if ptr else None
    if fb and foff is not None:
        w["fatbin_offset"] = foff - fb["off"]
    if foff is None or w["magic"] != "HIPF":
        return w
    end = bundle_end(data, foff)
    if end is None:
        w["bundle_error"] = "no __CLANG_OFFLOAD_BUNDLE__ magic"
        return w
    bp = os.path.join(tmp, "b.o")
    with open(bp, "wb") as f:
        f.write(data[foff:end])
    p = subprocess.run([BUNDLER, "--list", "--type=o", "--input=" + bp], capture_output=True, text=True)
    if p.returncode:
        w["bundler_error"] = p.stderr.strip()
        return w
    w["entries"] = p.stdout.split()
    dev = [e for e in w["entries"] if not e.startswith("host-")]
    outs = [os.path.join(tmp, "co%d" % k) for k in range(len(dev))]
    if dev:
        subprocess.run([BUNDLER, "--unbundle", "--type=o", "--input=" + bp, "--targets=" + ",".join(dev)]
                       + ["--output=" + o for o in outs], capture_output=True, text=True, check=True)
        w["objects"] = {}
        for e, op in zip(dev, outs):
            info = readelf(op)
            info["size"] = os.path.getsize(op)
            w["objects"][e] = info
            os.unlink(op)
    os.unlink(bp)
    return w


def main():
    root, path, package = sys.argv[1:4]
    with open(os.path.join(root, path), "rb") as f:
        data = f.read()
    secs = sections(data)
    rel = relocs(data, secs)
    seg = secs.get(".hipFatBinSegment")
    tmp = tempfile.mkdtemp(prefix="gt-")
    ws = [wrapper(data, secs, rel, tmp, i) for i in range(seg["size"] // 24)] if seg else []
    os.rmdir(tmp)
    head = dict(package=package, binary=path, size=len(data), sha256=hashlib.sha256(data).hexdigest(),
                hip_fatbin_size=secs[".hip_fatbin"]["size"] if ".hip_fatbin" in secs else None)
    out = json.dumps(head, indent=1)[:-2] + ',\n "wrappers": [\n'
    out += ",\n".join("  " + json.dumps(w, sort_keys=True) for w in ws)
    sys.stdout.write(out + "\n ]\n}\n")


if __name__ == "__main__":
    main()
