#!/usr/bin/env python3
"""Writes the Markdown report of scripts/bench-vs-python.sh.

  report.py RUNS EXTRAS COMMIT EVICT_METHOD RESIDENT SCALE LOADAVG

RUNS holds one JSON line per measured run (record.py); EXTRAS holds the
--extras records and "gobench <go benchmark line>" lines. Cells show the
median of their runs.
"""

import json
import os
import platform
import re
import statistics
import subprocess
import sys

# Issue 9's goals: kpack-lint time / Python reader time.
GOALS = {("single", "toc"): 0.5, ("single", "deep"): 0.5, ("therock", "toc"): 1.5, ("therock", "deep"): 0.6}
WHAT = {"toc": ("check", "read + list every TOC entry"), "deep": ("check --deep", "get_kernel for every entry")}


def median_cell(runs, **match):
    rs = [r for r in runs if all(r.get(k) == v for k, v in match.items())]
    if not rs:
        return None
    return {k: statistics.median(r[k] for r in rs) for k, v in rs[0].items() if isinstance(v, (int, float))}


def mb(n):
    return f"{n / 1e6:,.1f} MB" if n >= 1e5 else f"{n / 1e3:,.1f} kB"


def machine(commit, evict, resident, scale, load):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    go = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()
    method = {"drop_caches": "echo 1 > /proc/sys/vm/drop_caches",
              "fadvise": "posix_fadvise(POSIX_FADV_DONTNEED) on every file (benchtree evict)"}.get(evict, evict)
    print(f"Machine: {os.cpu_count()} cores ({cpu}), Linux {platform.release()}, {go}, "
          f"Python {platform.python_version()}; upstream reader at {commit}; benchtree scale {scale}.")
    print(f"Cold cache: {method}; right after it the first tree had {resident}. "
          f"Load average (1, 5, 15 min) at start and end: {load}.\n")


def min_seconds(runs, **match):
    return min(r["seconds"] for r in runs if all(r.get(k) == v for k, v in match.items()))


def main_table(runs):
    cases = list(dict.fromkeys((r["case"], r["mode"]) for r in runs))
    print("| case | kpack-lint | Python reader | ratio | best-run ratio | CPU-time ratio | vs Python in-process | goal |")
    print("|---|---|---|---|---|---|---|---|")
    for case, mode in cases:
        m = dict(case=case, mode=mode, cache="warm")
        k, p = median_cell(runs, tool="kpack-lint", **m), median_cell(runs, tool="python", **m)
        best = min_seconds(runs, tool="kpack-lint", **m) / min_seconds(runs, tool="python", **m)
        goal = GOALS.get((case, mode))
        print(f"| {case}: `{WHAT[mode][0]}` | {k['seconds']:.3f} s | {p['seconds']:.3f} s ({WHAT[mode][1]}) "
              f"| {k['seconds'] / p['seconds']:.2f}x | {best:.2f}x | {k['cpu_seconds'] / p['cpu_seconds']:.2f}x "
              f"| {k['seconds'] / p['inner']:.2f}x ({p['inner']:.3f} s) | {f'<= {goal}x' if goal else ''} |")
    print("\nWarm page cache, medians. ratio = kpack-lint / Python wall time of the whole process; best-run "
          "ratio = the fastest runs' ratio; CPU-time ratio = user + system time (the steadiest figure when "
          "other jobs share the machine); the Python process includes interpreter start and imports, its "
          "in-process time does not.\n")
    print("| case | cache | kpack-lint | Python (in-process) | ratio | CPU s kpack-lint / Python (ratio) "
          "| RSS kpack-lint / Python | kpack-lint read: disk (% of archives) / rchar | Python read: disk / rchar |")
    print("|---|---|---|---|---|---|---|---|---|")
    for case, mode in cases:
        for cache in ("warm", "cold", "cold-archives"):
            k = median_cell(runs, case=case, mode=mode, cache=cache, tool="kpack-lint")
            p = median_cell(runs, case=case, mode=mode, cache=cache, tool="python")
            if not k or not p:
                continue
            print(f"| {case} `{WHAT[mode][0]}` | {cache} | {k['seconds']:.3f} s | {p['seconds']:.3f} s ({p['inner']:.3f} s) "
                  f"| {k['seconds'] / p['seconds']:.2f}x "
                  f"| {k['cpu_seconds']:.2f} / {p['cpu_seconds']:.2f} ({k['cpu_seconds'] / p['cpu_seconds']:.2f}x) "
                  f"| {k['rss_kb'] / 1024:.0f} / {p['rss_kb'] / 1024:.0f} MiB "
                  f"| {mb(k['read_bytes'])} ({100 * k['read_bytes'] / k['archive_bytes']:.0f}%) / {mb(k['rchar'])} "
                  f"| {mb(p['read_bytes'])} / {mb(p['rchar'])} |")
    n = max(len([r for r in runs if r["case"] == c and r["mode"] == m and r["cache"] == "warm" and r["tool"] == "python"])
            for c, m in cases)
    print(f"\nMedians of {n} runs per cell. disk = /proc/PID/io read_bytes (from the block device; "
          "with a cold cache kpack-lint also reads the host binaries, so cold-archives evicts only the "
          "archives: what check then reads from disk is archive bytes), rchar = bytes returned by read "
          "syscalls; % of the tree's archive bytes. CPU s = user + system time (/usr/bin/time), less "
          "sensitive than wall time to other load on the machine.")


def gobench(lines):
    """Parses Go benchmark lines into {name: {unit: value}}; a benchmark run
    several times (-count) gets each unit's median."""
    runs = {}
    for line in lines:
        f = line.split()
        name = re.sub(r"-\d+$", "", f[0])
        runs.setdefault(name, []).append({f[i + 1]: float(f[i]) for i in range(2, len(f) - 1, 2)})
    return {name: {unit: statistics.median(r[unit] for r in rs if unit in r) for unit in rs[0]}
            for name, rs in runs.items()}


def go_vs_python(recs, bench, extra, benchmark, title, header, row):
    """Prints a table pairing each Python record of kind extra with the Go
    benchmark benchmark/<case>: title, header (the columns) and row(python, go)."""
    rs = [r for r in recs if r.get("extra") == extra]
    if not rs:
        return
    print(f"\n{title}\n")
    print(header)
    print("|---" * header.count("|", 1) + "|")
    for r in rs:
        g = bench.get(f"{benchmark}/{r['case']}")
        if g:
            print(row(r, g))


def toc_parse(recs, bench):
    """TOC parsing in memory: kpack.Open against msgpack.unpackb."""
    go_vs_python(recs, bench, "tocparse", "BenchmarkTOCParse",
                 "TOC parse, in memory (Go: kpack.Open as check opens, header + TOC + zstd frame count, "
                 "BenchmarkTOCParse; Python: msgpack.unpackb):",
                 "| TOCs | Go | Python msgpack | Go speed / Python speed |",
                 lambda t, g: f"| {t['case']} ({t['archives']} archives, {mb(t['toc_bytes'])}) | {g['MB/s']:.1f} MB/s, "
                              f"{g['ns/entry']:.0f} ns/entry | {t['mb_per_s']:.1f} MB/s, {t['ns_per_entry']:.0f} ns/entry "
                              f"| {t['ns_per_entry'] / g['ns/entry']:.2f}x |")


def zstd_decoders(recs, bench):
    """The zstd decoders alone on the same frames: kpack-lint's (pure Go,
    klauspost/compress) against the Python reader's (libzstd)."""
    go_vs_python(recs, bench, "zstd", "BenchmarkZstdFrames",
                 "zstd decoding alone, in memory, one core, the same frames (Go: kpack.FrameDecoder over "
                 "klauspost/compress, as `check --deep` decodes, BenchmarkZstdFrames; Python: the reader's "
                 "zstandard.ZstdDecompressor, libzstd):",
                 "| frames | Go | Python (libzstd) | Go time / libzstd time |",
                 lambda z, g: f"| {z['case']} ({z['frames']} frames, {mb(z['compressed'])} -> {mb(z['decompressed'])}) "
                              f"| {g['MB/s']:.0f} MB/s, {g['ns/frame'] / 1e3:.1f} us/frame "
                              f"| {z['mb_per_s']:.0f} MB/s, {z['ns_per_frame'] / 1e3:.1f} us/frame (libzstd {z['libzstd']}) "
                              f"| {g['ns/frame'] / z['ns_per_frame']:.2f}x |")


def extras(ext):
    recs = [json.loads(l) for l in ext if l.startswith("{")]
    bench = gobench([l.split(None, 1)[1] for l in ext if l.startswith("gobench ")])
    toc_parse(recs, bench)
    zstd_decoders(recs, bench)
    sims = {k: v for k, v in bench.items() if k.startswith("BenchmarkSimulate")}
    if sims:
        print("\nResolver, therock tree, one core (BenchmarkSimulate -cpu 1; both loaders count):\n")
        what = {"check": "as check simulates (shared plans, one fetch per archive x target and kernel)",
                "plan.Load": "resolver.Plan.Load per kernel, agent and loader, plans built beforehand (explain's API)",
                "plans+loads": "a plan per binary x agent, then its loads", "loads": "loads, plans built beforehand"}
        for k, v in sims.items():
            name = k.split('/', 1)[1]
            cpu = f", {v['sims/cpu-s'] / 1e6:.2f} M per CPU second" if "sims/cpu-s" in v else ""
            print(f"- {name}: {v['sims/s'] / 1e6:.2f} M simulations/s{cpu} ({v['sims']:.0f} per run; {what.get(name, '')})")
    for prefix, label in (("BenchmarkGroupScaling", "one kpack group of N test binaries, 4 kernels each, 2 archives"),
                          ("BenchmarkArchiveOnly", "one archive-only group of N kernel names, 2 archives")):
        rows = [(k.split("=", 1)[1], v) for k, v in bench.items() if k.startswith(prefix)]
        if not rows:
            continue
        base = rows[0][1]["ns/entry"]
        cbase = rows[0][1].get("cpu-ns/entry")
        print(f"\n`check` per TOC entry, {label} ({prefix}):\n")
        print("| N | TOC entries | time | ns/entry | vs first | CPU ns/entry | vs first |")
        print("|---|---|---|---|---|---|---|")
        for n, v in rows:
            c = v.get("cpu-ns/entry")
            cpu = f"{c:.0f} | {c / cbase:.2f}x" if c and cbase else " | "
            print(f"| {n} | {v['entries']:.0f} | {v['ns/op'] / 1e9:.3f} s | {v['ns/entry']:.0f} | {v['ns/entry'] / base:.2f}x | {cpu} |")
    rule_scaling(bench)
    speedup(recs)
    rss = [r for r in recs if r.get("extra") == "rss"]
    if rss:
        print("\nPeak RSS against TOC entries (therock at 1/4, 1/2 and 1 x the scale; warm cache):\n")
        sizes = list(dict.fromkeys(r["entries"] for r in rss))
        print("| command | " + " | ".join(f"{n:,} entries" for n in sizes) + " | KiB per entry (slope) |")
        print("|---|" + "---|" * (len(sizes) + 1))
        for flags in dict.fromkeys(r["flags"] for r in rss):
            rs = [r for r in rss if r["flags"] == flags]
            slope = (rs[-1]["rss_kb"] - rs[0]["rss_kb"]) / (rs[-1]["entries"] - rs[0]["entries"])
            cells = " | ".join(f"{r['rss_kb'] / 1024:.0f} MiB ({r['seconds']:.2f} s)" for r in rs)
            label = f"check {flags}".strip()
            print(f"| `{label}` | {cells} | {slope:.2f} |")


def rule_scaling(bench):
    """Per-rule ns/entry of BenchmarkRuleScaling, smallest against largest N,
    in each mode: load (the tree read anew before each run, as a CLI run),
    steady (back to back)."""
    for small, large, label in (("group=100", "group=1600", "one group of 100 and 1,600 binaries"),
                                ("archive-only=1250", "archive-only=20000", "an archive-only group of 1,250 and 20,000 names")):
        cols = []
        for mode in ("load", "steady"):
            a, b = bench.get(f"BenchmarkRuleScaling/{small}/mode={mode}"), bench.get(f"BenchmarkRuleScaling/{large}/mode={mode}")
            if a and b:
                cols.append((mode, a, b))
        if not cols:
            continue
        print(f"\nPer rule, ns per TOC entry, {label} (BenchmarkRuleScaling, one worker; mode=load: the tree read "
              f"anew before each run, as a CLI run; steady: runs back to back; "
              f"rules under 1 ns/entry left out):\n")
        print("| rule | " + " | ".join(f"{m}: small | {m}: large | {m}: large / small" for m, _, _ in cols) + " |")
        print("|---|" + "---|---|---|" * len(cols))
        units = sorted({u for _, a, _ in cols for u in a if u.endswith("-ns/entry")})
        for unit in units:
            if max(max(a.get(unit, 0), b.get(unit, 0)) for _, a, b in cols) < 1:
                continue
            cells = []
            for _, a, b in cols:
                x, y = a.get(unit, 0), b.get(unit, 0)
                cells.append(f"{x:.1f} | {y:.1f} | {y / x if x else 0:.2f}x")
            print(f"| {unit[:-len('-ns/entry')]} | " + " | ".join(cells) + " |")


def speedup(recs):
    """check --deep with GOMAXPROCS=1 against all cores."""
    runs = [r for r in recs if r.get("extra") == "speedup"]
    if not runs:
        return
    print("\n`check --deep` on one core against all (GOMAXPROCS), medians:\n")
    print("| case | 1 core | all cores | speed-up (wall) | CPU s, 1 / all |")
    print("|---|---|---|---|---|")
    for case in dict.fromkeys(r["case"] for r in runs):
        one = median_cell(runs, case=case, procs=1)
        allp = max(r["procs"] for r in runs if r["case"] == case)
        many = median_cell(runs, case=case, procs=allp)
        print(f"| {case} | {one['seconds']:.3f} s | {many['seconds']:.3f} s ({allp}) | {one['seconds'] / many['seconds']:.2f}x "
              f"| {one['cpu_seconds']:.2f} / {many['cpu_seconds']:.2f} |")


def main():
    runs_path, extras_path, commit, evict, resident, scale, load = sys.argv[1:]
    runs = [json.loads(l) for l in open(runs_path)]
    machine(commit, evict, resident, scale, load)
    if runs:
        main_table(runs)
    extras(open(extras_path).read().splitlines())


if __name__ == "__main__":
    main()
