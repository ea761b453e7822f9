#!/usr/bin/env python3
"""Checks an HTML report of kpack-lint, as a browser rendered it, against
the JSON report of the same run.

usage: check-html.py DOM.html REPORT.json

DOM.html is the page after its script ran (chromium --headless --dump-dom).
The check fails unless:
- the script ran (body data-ready="1") and the page names no external
  resource (src=, <link>, an <a href> outside the rules' documentation);
- the matrix has one cell per kpack group x agent: for every cell of the
  JSON "matrix" (group, target, agents, loads, failed) exactly `agents`
  cells with that group and target, each with the same loads and failed;
- every cell's level is the worst level of the JSON report's open
  findings (not waived, not absent) about that group on that agent: a
  finding names the agent, or names no agent but one of the targets the
  agent stands for, or names neither (then it is about every agent whose
  processor its archives are tagged with, or every agent);
- the findings the filter shows number as the script says ("N shown"),
  and the page lists every finding of the JSON report;
- the machines table has one row per machine of the JSON "checked"
  (same HIP release and number of devices) with the binaries, clean and
  failing of its "machineVerdicts" entry, and every finding on a machine
  or judged by a HIP release names that machine and release.
Prints one line per check and exits 1 on the first failure.
"""
import html.parser
import json
import re
import sys

RANK = {"error": 3, "warning": 2, "note": 1, "ok": 0}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self.articles, self.machines, self.external = [], [], [], []
        self.ready = None
        self.shown = None
        self._in_shown = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.ready = a.get("data-ready")
        if tag == "td" and "data-group" in a:
            self.cells.append(a)
        if tag == "article":
            self.articles.append(a)
        if tag == "tr" and "data-machine" in a:
            self.machines.append(a)
        if tag == "span" and a.get("id") == "shown":
            self._in_shown = True
        if "src" in a or tag == "link" or (tag == "a" and not a.get("href", "").startswith("https://github.com/rocm-tools/kpack-lint/")):
            self.external.append((tag, a))

    def handle_data(self, data):
        if self._in_shown:
            self.shown = data.strip()
            self._in_shown = False


def fail(msg):
    print("check-html: FAIL " + msg)
    sys.exit(1)


def processor(t):
    return t.split(":")[0]


def archive_processors(f):
    out = set()
    for loc in [f["location"]] + f.get("related", []):
        m = re.search(r"_([^_/]+)\.kpack$", loc["path"])
        if m:
            out.add(processor(m.group(1)))
    return out


def concerns(f, agent, agent_targets):
    if f.get("agents"):
        return agent in f["agents"]
    if f.get("targets"):
        return bool(set(f["targets"]) & set(agent_targets))
    procs = archive_processors(f)
    # A generic archive ("gfx9-4-generic") covers member processors; the
    # example has none, so a processor match is the whole rule here.
    return not procs or processor(agent) in procs


def main():
    dom_path, json_path = sys.argv[1], sys.argv[2]
    page = Page()
    with open(dom_path, encoding="utf-8") as f:
        page.feed(f.read())
    with open(json_path, encoding="utf-8") as f:
        rep = json.load(f)

    if page.ready != "1":
        fail("the page's script did not run (body data-ready=%r)" % page.ready)
    print("check-html: ok   the script ran")
    if page.external:
        fail("external resources: %r" % page.external[:3])
    print("check-html: ok   nothing external")

    matrix = rep.get("matrix", [])
    for cell in matrix:
        dom = [c for c in page.cells if c["data-group"] == cell["group"] and c["data-target"] == cell["target"]]
        if len(dom) != cell["agents"]:
            fail("%s x %s: %d cells on the page, the JSON matrix has %d agents" % (cell["group"], cell["target"], len(dom), cell["agents"]))
        for c in dom:
            if int(c["data-loads"]) != cell["loads"] or int(c["data-failed"]) != cell["failed"]:
                fail("%s x %s on %s: loads %s/%s failed, JSON %d/%d" % (cell["group"], cell["target"], c["data-agent"],
                                                                        c["data-loads"], c["data-failed"], cell["loads"], cell["failed"]))
    groups = {c["group"] for c in matrix}
    if {c["data-group"] for c in page.cells} != groups:
        fail("matrix rows %s, JSON groups %s" % (sorted({c["data-group"] for c in page.cells}), sorted(groups)))
    print("check-html: ok   %d matrix cells match the JSON matrix (%d group x target cells)" % (len(page.cells), len(matrix)))

    open_findings = [f for f in rep["findings"]
                     if f.get("baselineState") != "absent" and not (f.get("suppression") and not f["suppression"].get("expired"))]
    targets_of = {}
    for c in page.cells:
        targets_of.setdefault(c["data-agent"], set()).add(c["data-target"])
    for c in page.cells:
        g, agent = c["data-group"], c["data-agent"]
        worst = "ok"
        for f in open_findings:
            if (f.get("group") or f["location"]["path"]) == g and concerns(f, agent, targets_of[agent]) and RANK[f["level"]] > RANK[worst]:
                worst = f["level"]
        if c["data-level"] != worst:
            fail("%s on %s: cell level %s, the JSON findings' worst %s" % (g, agent, c["data-level"], worst))
    print("check-html: ok   every cell's colour is the worst open finding about it (%d open findings)" % len(open_findings))

    if len(page.articles) != len(rep["findings"]):
        fail("%d findings on the page, %d in the JSON report" % (len(page.articles), len(rep["findings"])))
    visible = [a for a in page.articles if "hidden" not in a]
    if page.shown != str(len(visible)):
        fail("the filter says %r shown, %d are visible" % (page.shown, len(visible)))
    print("check-html: ok   %d findings listed, %d shown by the filter" % (len(page.articles), len(visible)))

    machines = rep.get("checked", {}).get("machines", [])
    verdicts = {v["machine"]: v for v in rep.get("machineVerdicts", [])}
    if len(page.machines) != len(machines):
        fail("%d machine rows on the page, %d machines in the JSON report" % (len(page.machines), len(machines)))
    for m in machines:
        rows = [r for r in page.machines if r["data-machine"] == m["name"]]
        if len(rows) != 1:
            fail("machine %s: %d rows on the page" % (m["name"], len(rows)))
        row = rows[0]
        if row.get("data-hip") != m["hip"] or row.get("data-devices") != str(len(m["devices"])):
            fail("machine %s: HIP %s, %s devices on the page; JSON HIP %s, %d devices" % (m["name"], row.get("data-hip"), row.get("data-devices"),
                                                                                        m["hip"], len(m["devices"])))
        v = verdicts.get(m["name"])
        want = None if v is None else (str(v["binaries"]), str(v["clean"]), str(v["binaries"] - v["clean"]))
        got = None if "data-binaries" not in row else (row["data-binaries"], row["data-clean"], row["data-failing"])
        if got != want:
            fail("machine %s: binaries/clean/failing %s on the page, JSON verdict %s" % (m["name"], got, want))
    by_fp = {}
    for a in page.articles:
        by_fp.setdefault(a.get("data-fingerprint"), []).append(a)
    on = 0
    for f in rep["findings"]:
        if not f.get("hipRelease"):
            continue
        arts = by_fp.get(f.get("fingerprint"), [])
        if not any(a.get("data-machine", "") == f.get("machine", "") and a.get("data-hip") == f["hipRelease"] for a in arts):
            fail("finding %s %s (machine %r, HIP %s) is not on the page with its machine and release" % (f["ruleId"], f.get("fingerprint"),
                                                                                                        f.get("machine", ""), f["hipRelease"]))
        on += 1
    print("check-html: ok   %d machine rows match the JSON machines and verdicts; %d findings name their machine and release" % (len(machines), on))


if __name__ == "__main__":
    main()
