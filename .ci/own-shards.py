#!/usr/bin/python3
# own-shards.py SHARD.json...: gives each finding of each shard report (check --shard I/N, as a recipe's
# make.py writes them) a file name of the shard's own slice, as check --shard reports only the findings
# of its own kpack groups (a file without a group by its path: 1 + FNV-1a-32("path:" + path) mod N == I);
# merge refuses a finding of another shard's slice. Names are f<j>.kpack, one per shard, the first j
# that falls in it; the fingerprints stay distinct.
import json, sys

def fnv(s):
    h = 0x811c9dc5
    for b in s.encode():
        h = ((h ^ b) * 0x01000193) & 0xffffffff
    return h

docs = [(p, json.load(open(p))) for p in sys.argv[1:]]
n = int(docs[0][1]["checked"]["shard"].split("/")[1])
names, j = {}, 0
while len(names) < n:
    name = f"f{j}.kpack"
    names.setdefault(fnv("path:" + name) % n + 1, name)
    j += 1
for p, d in docs:
    i = int(d["checked"]["shard"].split("/")[0])
    for k, f in enumerate(d.get("findings", [])):
        if f.get("location", {}).get("input", 0) != 0 or f.get("group"):
            continue
        name = names[i] if k == 0 else f"{names[i]}.{k}"
        f["location"]["path"] = name
        f["message"] = name + " does not open"
    json.dump(d, open(p, "w"), indent=2)
