#!/usr/bin/env python3
"""Turns one measured run of scripts/bench-vs-python.sh into a JSON line.

  record.py BASE TOOL FIELDS

BASE.wall holds bash's $EPOCHREALTIME before and after the command,
BASE.io the measuring bash's /proc/PID/io after reaping it, BASE.time the
output of /usr/bin/time -v (peak RSS, user + system CPU seconds), BASE.out the command's stdout (the Python
reader's JSON line). FIELDS is a JSON object copied into the record.
"""

import json
import re
import sys


def main():
    base, tool, fields = sys.argv[1:]
    start, end = map(float, open(base + ".wall").read().split())
    io = dict(line.split(": ") for line in open(base + ".io").read().splitlines())
    tv = open(base + ".time").read()
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", tv)
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", tv))
    rec = dict(json.loads(fields), tool=tool, seconds=end - start, cpu_seconds=cpu, rss_kb=int(rss.group(1)),
               read_bytes=int(io["read_bytes"]), rchar=int(io["rchar"]))
    if tool == "python":
        rec["inner"] = json.loads(open(base + ".out").read())["seconds"]
    print(json.dumps(rec, sort_keys=True))


if __name__ == "__main__":
    main()
