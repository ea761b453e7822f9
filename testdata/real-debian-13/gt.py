#!/usr/bin/env python3
"""Ground truth for one real Debian 13 ROCm package, from LLVM 19's own tools
and, for rocBLAS's kernel database, from rocBLAS 5.5.1's source with Debian's
patches (generate.sh runs it; CI never does). Nothing of kpack-lint is used.

usage: gt.py ROOT PACKAGE VERSION > PACKAGE.gt.json

ROOT is the package extracted by dpkg-deb -x. Written, one JSON object:

- targets, agents: the matrix the CI step checks: every target the package
  names (its bundle entry IDs, its rocBLAS code-object file names), then
  EXTRA; agents are those targets expanded over the xnack and sramecc
  settings a processor has (LLVM's AMDGPU processor table).
- binaries: every ELF file with a .hipFatBinSegment section: path, size,
  sha256 and per wrapper its index, magic, offset in .hip_fatbin, the
  entry IDs `clang-offload-bundler --list` prints for its bundle, and per
  device entry the code object `--unbundle` writes decoded by
  `llvm-readobj --file-headers`: e_flags and the target they give
  (EF_AMDGPU_MACH_* and the XNACK/SRAMECC ON/OFF flags). The wrapper's
  pointer is resolved as the dynamic loader sets it: R_X86_64_RELATIVE
  (B + A) and R_X86_64_64 (S + A, S the .dynsym symbol's value; Debian 13's
  librccl points at its own __hip_fatbin that way).
- rocblas (librocblas0 only): per agent what rocBLAS 5.5.1+dfsg-7 does when
  it first initialises Tensile on that GPU, by rocblas_verdict below.
"""
import fnmatch, hashlib, json, os, re, struct, subprocess, sys, tempfile

LLVM = os.environ.get("LLVM_BIN", "/usr/lib/llvm-19/bin")
BUNDLER = os.path.join(LLVM, "clang-offload-bundler")
READOBJ = os.path.join(LLVM, "llvm-readobj")

# The targets every package is also checked on (the CI step's matrix).
EXTRA = ["gfx1100", "gfx1151", "gfx942", "gfx950", "gfx90a:xnack+", "gfx1200"]

# Processors with the xnack and the sramecc target feature, among those the
# matrices name (LLVM llvm/lib/TargetParser/TargetParser.cpp AMDGCNGPUs,
# FEATURE_XNACK / FEATURE_SRAMECC, llvmorg-19.1.7; AMDGPUUsage "Processors").
XNACK = {"gfx801", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909",
         "gfx90a", "gfx90c", "gfx940", "gfx941", "gfx942", "gfx950",
         "gfx1010", "gfx1011", "gfx1012", "gfx1013"}
SRAMECC = {"gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950"}


def parse(t):
    p, *fs = t.split(":")
    return p, {f[:-1]: f[-1] for f in fs}


def agents_of(target):
    """The agent ISAs a target ID stands for: each feature it leaves unset,
    on and off (sramecc before xnack, as LLVM orders target IDs)."""
    p, fs = parse(target)
    out = [""]
    for feat, table in (("sramecc", SRAMECC), ("xnack", XNACK)):
        if p not in table:
            continue
        vals = [fs[feat]] if feat in fs else ["+", "-"]
        out = [o + ":" + feat + v for o in out for v in vals]
    return [p + o for o in out]


def compatible(co, agent):
    """LLVM clang/lib/Basic/TargetID.cpp isCompatibleTargetID."""
    cp, cf = parse(co)
    ap, af = parse(agent)
    return cp == ap and all(af.get(k) == v for k, v in cf.items())


# --- ELF -------------------------------------------------------------------------

def sections(f):
    f.seek(0)
    h = f.read(64)
    shoff, = struct.unpack_from("<Q", h, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", h, 0x3A)
    f.seek(shoff)
    raw = f.read(shentsize * shnum)
    secs = [struct.unpack_from("<IIQQQQII", raw, i * shentsize) for i in range(shnum)]
    f.seek(secs[shstrndx][4])
    names = f.read(secs[shstrndx][5])
    out = {}
    for i, s in enumerate(secs):
        n = names[s[0]:names.index(b"\0", s[0])].decode()
        out.setdefault(n, dict(index=i, type=s[1], addr=s[3], off=s[4], size=s[5], link=s[6]))
    return out, secs


def load_offset(f, va):
    """The file offset of virtual address va (a PT_LOAD segment's bytes)."""
    f.seek(0)
    h = f.read(64)
    phoff, = struct.unpack_from("<Q", h, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", h, 0x36)
    f.seek(phoff)
    raw = f.read(phentsize * phnum)
    for i in range(phnum):
        typ, _, off, vaddr, _, filesz, _ = struct.unpack_from("<IIQQQQQ", raw, i * phentsize)
        if typ == 1 and vaddr <= va < vaddr + filesz:
            return off + va - vaddr
    return None


def pointer_relocs(f, secs, raw_secs):
    """What the dynamic loader writes, by address: R_X86_64_RELATIVE (8) is
    B + A, R_X86_64_64 (1) S + A (x86-64 psABI), S from the table's linked
    symbol table; the load base B is 0 in the file's own addresses."""
    out = {}
    for s in raw_secs:
        if s[1] != 4:  # SHT_RELA
            continue
        f.seek(s[4])
        raw = f.read(s[5])
        symtab = raw_secs[s[6]]
        f.seek(symtab[4])
        syms = f.read(symtab[5])
        for i in range(len(raw) // 24):
            off, info, add = struct.unpack_from("<QQq", raw, 24 * i)
            typ, sym = info & 0xFFFFFFFF, info >> 32
            if typ == 8:
                out[off] = add
            elif typ == 1:
                shndx, value = struct.unpack_from("<HQ", syms, 24 * sym + 6)
                out[off] = value + add if shndx else None  # undefined: not in this file
    return out


def bundle_size(f, start):
    f.seek(start)
    h = f.read(32)
    if h[:24] != b"__CLANG_OFFLOAD_BUNDLE__":
        return None
    n, = struct.unpack_from("<Q", h, 24)
    p = end = start + 32
    for _ in range(n):
        f.seek(p)
        o, sz, ln = struct.unpack("<QQQ", f.read(24))
        p += 24 + ln
        end = max(end, start + o + sz)
    return max(end, p) - start


def readobj(paths):
    """e_flags and target of AMDGPU code objects, by llvm-readobj --file-headers."""
    res = {p: {} for p in paths}
    if not paths:
        return res
    out = subprocess.run([READOBJ, "--file-headers"] + paths, capture_output=True, text=True).stdout
    for block in re.split(r"\n(?=File: )", out):
        m = re.match(r"File: (.*)", block)
        if not m or m.group(1) not in res:
            continue
        fl = re.search(r"Flags \[ \((0x[0-9A-Fa-f]+)\)(.*?)\]", block, re.S)
        if not fl:
            continue
        names = re.findall(r"EF_AMDGPU_\w+", fl.group(2))
        mach = [n[len("EF_AMDGPU_MACH_AMDGCN_"):].lower().replace("_", "-") for n in names if n.startswith("EF_AMDGPU_MACH_AMDGCN_")]
        feats = sorted("%s%s" % (m2.group(1).lower(), "+" if m2.group(2) == "ON" else "-")
                       for m2 in (re.match(r"EF_AMDGPU_FEATURE_(XNACK|SRAMECC)_(ON|OFF)_V[45]", n) for n in names) if m2)
        res[m.group(1)] = dict(e_flags=fl.group(1), target=mach[0] + "".join(":" + x for x in feats) if mach else None)
    return res


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def host_binary(root, rel, package, tmp):
    path = os.path.join(root, rel)
    with open(path, "rb") as f:
        secs, raw_secs = sections(f)
        fb, seg = secs.get(".hip_fatbin"), secs[".hipFatBinSegment"]
        relocs = pointer_relocs(f, secs, raw_secs)
        f.seek(seg["off"])
        raw = f.read(seg["size"])
        ws = []
        for i in range(seg["size"] // 24):
            magic, _, ptr, _ = struct.unpack_from("<IIQQ", raw, 24 * i)
            ptr = relocs.get(seg["addr"] + 24 * i + 8, ptr)
            w = dict(index=i, magic={0x48495046: "HIPF", 0x4B504948: "HIPK"}.get(magic, hex(magic)))
            foff = load_offset(f, ptr) if ptr else None
            if foff is None or w["magic"] != "HIPF" or not fb:
                w["bundle_error"] = "the wrapper's pointer is not in the file"
                ws.append(w)
                continue
            w["fatbin_offset"] = foff - fb["off"]
            size = bundle_size(f, foff)
            if size is None:
                w["bundle_error"] = "no __CLANG_OFFLOAD_BUNDLE__ magic"
                ws.append(w)
                continue
            bp = os.path.join(tmp, "b.o")
            f.seek(foff)
            with open(bp, "wb") as o:
                o.write(f.read(size))
            p = subprocess.run([BUNDLER, "--list", "--type=o", "--input=" + bp], capture_output=True, text=True)
            if p.returncode:
                w["bundler_error"] = p.stderr.strip()[:300]
                ws.append(w)
                continue
            w["entries"] = p.stdout.split()
            dev = [e for e in w["entries"] if not e.startswith("host-")]
            outs = [os.path.join(tmp, "co%d" % k) for k in range(len(dev))]
            if dev:
                subprocess.run([BUNDLER, "--unbundle", "--type=o", "--input=" + bp, "--targets=" + ",".join(dev)]
                               + ["--output=" + o for o in outs], capture_output=True, text=True, check=True)
                info = readobj(outs)
                w["objects"] = {e: info[o] for e, o in zip(dev, outs)}
                for o in outs:
                    os.unlink(o)
            os.unlink(bp)
            ws.append(w)
    return dict(package=package, binary=rel, size=os.path.getsize(path), sha256=sha256(path), wrappers=ws)


# --- rocBLAS 5.5.1+dfsg-7's Tensile lookup ---------------------------------------

ROCBLAS_VERSION = "2.47.0"  # CMakeLists.txt:103 VERSION_STRING @rocm-5.5.1
# Debian 0012-expand-isa-compatibility: rocBLAS reports these gcnArch as the listed one.
COERCE = {"gfx902": "gfx900", "gfx909": "gfx900", "gfx912": "gfx900",
          "gfx1011": "gfx1010", "gfx1012": "gfx1010", "gfx1013": "gfx1010",
          **{"gfx103%d" % i: "gfx1030" for i in range(1, 7)}}


def rocblas_verdict(exists, listdir, targets, libdir, agent):
    """What rocBLAS 5.5.1+dfsg-7 (ROCBLAS_TENSILE_LIBPATH unset) does on a
    GPU of ISA agent, from upstream library/src/tensile_host.cpp@rocm-5.5.1
    (commit cdd561f0) lines 555-705 with Debian's patches
    0006-move-tensile-library-into-versioned-subdir and
    0012-expand-isa-compatibility:

    processor: gcnArchName up to ':' (rocblas_auxiliary.cpp:1186-1194
      ArchName), after 0012's coercion;
    path: the folder of librocblas.so (dl_iterate_phdr), then the first of
      /rocblas/2.47.0/library (0006), /../../Tensile/library, "library" (sic:
      tested without a slash, appended as /library), else /rocblas/library;
      then /<processor> when that exists (lines 596-604);
    index: TensileLibrary_lazy_<processor>.dat (lazy loading), else
      TensileLibrary_<processor>.dat, else TensileLibrary.dat, none of them:
      "rocBLAS error: Cannot read ..." and rocblas_abort() (lines 608-633);
    not lazy: glob(path + "/*" + processor + "*co") and loadCodeObjectFile on
      each match, its result not checked; no match: "rocBLAS warning: No
      paths matched ...", and Tensile has no kernels on that GPU (lines
      652-703); a matched code object counts when hipModuleLoad would load it
      there (its target, by llvm-readobj, compatible with the agent).

    Returns (verdict, facts): "abort", "lazy" (not modelled here), "no-kernels"
    (no match, or no matched code object loads), "ok". rocblas_truth adds the
    --deep verdict: "broken-co" when a matched code object is built for
    another processor (its kernels are missing there; gt.py's readobj)."""
    proc = parse(agent)[0]
    proc = COERCE.get(proc, proc)
    if exists(libdir + "/rocblas/" + ROCBLAS_VERSION + "/library"):
        base = libdir + "/rocblas/" + ROCBLAS_VERSION + "/library"
    elif exists(libdir + "/../../Tensile/library"):
        base = libdir + "/../../Tensile/library"
    elif exists(libdir + "library"):
        base = libdir + "/library"
    else:
        base = libdir + "/rocblas/library"
    path = base + "/" + proc if exists(base + "/" + proc) else base
    names = listdir(path)
    index = next((n for n in ("TensileLibrary_lazy_%s.dat" % proc, "TensileLibrary_%s.dat" % proc, "TensileLibrary.dat")
                  if n in names), None)
    facts = dict(processor=proc, folder=os.path.normpath(path), index=index)
    if index is None:
        return "abort", facts
    if index.startswith("TensileLibrary_lazy_"):
        return "lazy", facts
    matched = sorted(n for n in names if fnmatch.fnmatchcase(n, "*%s*co" % proc) and not n.startswith("."))
    target = lambda n: targets.get(os.path.normpath(path + "/" + n))
    loads = [n for n in matched if target(n) and compatible(target(n), agent)]
    # matched by name, built for another processor (or not a code object):
    # loadCodeObjectFile fails and rocBLAS goes on (--deep reads them)
    broken = [n for n in matched if not target(n) or parse(target(n))[0] != parse(agent)[0]]
    facts.update(matched=matched, loads=loads, broken=broken)
    return ("ok" if loads else "no-kernels"), facts


def rocblas_truth(root, lib, agents):
    """Every agent's verdict for the rocBLAS library at lib (relative to root)."""
    libdir = os.path.dirname(lib)
    exists = lambda p: os.path.exists(os.path.join(root, os.path.normpath(p)))
    listdir = lambda p: set(os.listdir(os.path.join(root, os.path.normpath(p)))) if exists(p) else set()
    base = os.path.normpath(libdir + "/rocblas/" + ROCBLAS_VERSION + "/library")
    cos = sorted(os.path.join(base, n) for n in listdir(base) if n.endswith("co"))
    info = readobj([os.path.join(root, c) for c in cos])
    targets = {c: info[os.path.join(root, c)].get("target") for c in cos}
    out = {}
    for a in agents:
        v, facts = rocblas_verdict(exists, listdir, targets, libdir, a)
        deep = "broken-co" if v == "ok" and facts["broken"] else v
        out[a] = dict(facts, verdict=v, deepVerdict=deep)
    return dict(library=lib, release="rocBLAS 5.5.1 (Debian 5.5.1+dfsg-7)", codeObjects=targets, agents=out)


def matrix(binaries, root):
    ts = []
    for b in binaries:
        for w in b["wrappers"]:
            ts += [e.split("--", 1)[1] for e in w.get("entries", []) if e.startswith("hip")]
    for d, _, files in os.walk(root):
        for n in files:
            m = re.search(r"(gfx[0-9a-f]+)(-xnack[+-])?\.(co|hsaco)$", n)
            if m:
                ts.append(m.group(1) + (":" + m.group(2)[1:] if m.group(2) else ""))
    out = []
    for t in sorted(set(ts), key=lambda t: (len(parse(t)[0]), t)) + EXTRA:
        if t not in out:
            out.append(t)
    agents = []
    for t in out:
        agents += [a for a in agents_of(t) if a not in agents]
    return out, agents


def main():
    root, package, version = sys.argv[1:4]
    tmp = tempfile.mkdtemp(prefix="gt-")
    binaries = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for n in sorted(files):
            p = os.path.join(d, n)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            with open(p, "rb") as f:
                h = f.read(64)
                if h[:4] != b"\x7fELF" or struct.unpack_from("<H", h, 18)[0] == 224:
                    continue
                if ".hipFatBinSegment" in sections(f)[0]:
                    binaries.append(host_binary(root, os.path.relpath(p, root), package, tmp))
    os.rmdir(tmp)
    targets, agents = matrix(binaries, root)
    out = dict(package=package, version=version, llvm=subprocess.run([BUNDLER, "--version"], capture_output=True, text=True).stdout.split("\n")[0],
               targets=targets, agents=agents)
    rocblas = [b["binary"] for b in binaries if os.path.basename(b["binary"]).startswith("librocblas.so")]
    if rocblas:
        out["rocblas"] = rocblas_truth(root, rocblas[0], agents)
    # One agent or wrapper per line: the file stays diffable.
    lines = ["{"] + [" %s: %s," % (json.dumps(k), json.dumps(out[k])) for k in ("package", "version", "llvm", "targets", "agents")]
    if rocblas:
        r = out["rocblas"]
        lines.append(' "rocblas": {' + ", ".join("%s: %s" % (json.dumps(k), json.dumps(r[k])) for k in ("library", "release", "codeObjects")) + ', "agents": {')
        lines.append(",\n".join("  %s: %s" % (json.dumps(a), json.dumps(v, sort_keys=True)) for a, v in r["agents"].items()))
        lines.append(" }},")
    lines.append(' "binaries": [')
    parts = []
    for b in binaries:
        head = json.dumps({k: v for k, v in b.items() if k != "wrappers"}, sort_keys=True)[:-1]
        parts.append("  " + head + ', "wrappers": [\n' + ",\n".join("   " + json.dumps(w, sort_keys=True) for w in b["wrappers"]) + "\n  ]}")
    lines += [",\n".join(parts), " ]", "}"]
    sys.stdout.write("\n".join(lines) + "\n")

if __name__ == "__main__":
    main()
