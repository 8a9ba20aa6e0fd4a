"""End-to-end tests of --profile (issue 16), run by ctest as profile_e2e.

1. real_cpu_profile_times_match_an_independent_sum: the committed real CPU
   profile (tests/profile/cpu/, recorded with record_cpu_profile.py, torch
   2.13, cpp.enable_kernel_profile) against sums computed here from the
   trace's events with their own nesting, to the nanosecond.
2. generated_gpu_profile_is_attributed_by_launch: a GPU-shaped profile built
   from the views' kernels (Triton cpu_op + cuLaunchKernel + GPU kernel with
   External id / correlation, extern aten::mm + cudaLaunchKernel + sgemm),
   forward and backward, and a second compile (1/0) with the same kernel
   names whose time must not leak into compile 0/0.
   The same trace with every GPU activity before its launch gives the same
   profiles.
2b. generated_gpu_profile_gives_the_same_times_in_any_order: gen_profile.py's
   GPU-shaped trace in Kineto's order (all GPU activities last), interleaved,
   and with each repetition's GPU activities before its launches.
3. hostile_profiles_give_a_diagnostic_and_the_rest_of_the_report: truncated
   JSON, script names, negative and overflowing durations, missing
   correlation, deep nesting: exit 0, a diagnostic naming the file, every
   page written.
Standard library only.
"""
import argparse
import glob
import html.parser
import gzip
import json
import os
import shutil
import subprocess
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
FAILS = []
sys.path.insert(0, HERE)
import gen_profile  # noqa: E402


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("  FAIL:", what)


def run(tlparse, log, out, profiles, expect_ok=True):
    if os.path.exists(out):
        shutil.rmtree(out)
    cmd = [tlparse, log, "-i", "-o", out, "--no-browser"]
    for p in profiles:
        cmd += ["--profile", p]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if expect_ok:
        check(r.returncode == 0, "tlparse exit %d: %s" % (r.returncode, r.stderr))
    return r


def views(out):
    res = {}
    for f in sorted(glob.glob(os.path.join(out, "provenance_tracking_*.json"))):
        res[os.path.basename(f)] = json.load(open(f))
    return res


def ns(x):
    """µs as written by Kineto ("123.456") -> integer ns."""
    s = repr(x) if isinstance(x, float) else str(x)
    if "e" in s or "E" in s:
        return round(x * 1000)
    whole, _, frac = s.partition(".")
    neg = whole.startswith("-")
    v = abs(int(whole)) * 1000 + int((frac + "000")[:3])
    return -v if neg else v


def close(a, b):
    return abs(a - b) < 0.0015  # µs: within rounding of one nanosecond


# ---- 1. the real CPU profile ----------------------------------------------
def independent_sums(trace):
    """Per graph key: total ns, and per direct child (name, k-th) its ns."""
    evs = [e for e in trace["traceEvents"] if e.get("ph") == "X"
           and e.get("cat") in ("cpu_op", "user_annotation")]
    by_tid = {}
    for e in evs:
        by_tid.setdefault(e["tid"], []).append(e)
    graphs = {}
    for tid, es in by_tid.items():
        es.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
        for i, g in enumerate(es):
            if not g["name"].startswith("## Call CompiledFxGraph "):
                continue
            key = g["name"][len("## Call CompiledFxGraph "):-3]
            start, end = ns(g["ts"]), ns(g["ts"]) + ns(g["dur"])
            info = graphs.setdefault(key, {"total": 0, "children": {}, "calls": [], "each": {}})
            info["total"] += ns(g["dur"])
            info["calls"].append(ns(g["dur"]))
            seen = {}
            covered_until = -1
            for c in es[i + 1:]:
                cs = ns(c["ts"])
                if cs >= end:
                    break
                if cs < covered_until:
                    continue  # nested in an earlier direct child
                covered_until = cs + ns(c["dur"])
                name = c["name"]
                if name.startswith("graph_"):
                    name = name.split("_", 2)[2]
                k = seen.get(name, 0)
                seen[name] = k + 1
                info["children"].setdefault((name, k), 0)
                info["children"][(name, k)] += ns(c["dur"])
                info["each"].setdefault((name, k), []).append(ns(c["dur"]))
    return graphs


def stats_of(each):
    """first, then median/min/max of the calls after it (all when one),
    and the calls more than 3x or under a third of that median."""
    rest = each[1:] if len(each) > 1 else each
    srt = sorted(rest)
    m = len(srt)
    med = srt[m // 2] if m % 2 else (srt[m // 2 - 1] + srt[m // 2]) / 2
    off = 1 if len(each) > 1 else 0
    far = [(i + off, x) for i, x in enumerate(rest) if x > 3 * med or 3 * x < med]
    return each[0], med, srt[0], srt[-1], far


def check_stats(o, each, what):
    first, med, lo, hi, far = stats_of(each)
    got = (o["first_us"], o["median_us"], o["min_us"], o["max_us"])
    want = (first / 1000, med / 1000, lo / 1000, hi / 1000)
    check(all(abs(a - b) <= 0.001 for a, b in zip(got, want)), "%s stats %s vs %s" % (what, got, want))
    check(o["far_count"] == len(far) and [c["call"] for c in o["far"]] == [i for i, _ in far][:10],
          "%s far calls %s vs %s" % (what, o["far"], far))


def test_real_cpu(tlparse, work):
    print("real_cpu_profile_times_match_an_independent_sum")
    d = os.path.join(work, "cpu")
    os.makedirs(d, exist_ok=True)
    log = os.path.join(d, "trace.log")
    with gzip.open(os.path.join(HERE, "cpu", "trace.log.gz"), "rb") as f:
        open(log, "wb").write(f.read())
    prof = os.path.join(HERE, "cpu", "profile.json.gz")
    out = os.path.join(d, "out")
    run(tlparse, log, out, [prof])
    with gzip.open(prof, "rt") as f:
        trace = json.load(f)
    sums = independent_sums(trace)
    steps = sum(1 for e in trace["traceEvents"]
                if e.get("name", "").startswith("ProfilerStep#"))
    matched = 0
    for name, v in views(out).items():
        p = v.get("profile")
        if not p or p["match"]["status"] != "matched":
            continue
        matched += 1
        s = sums[p["match"]["graph_key"]]
        check(p["steps"] == steps == 3, "steps %s" % p["steps"])
        reg = p["region"]
        check(close(reg["total_us"], s["total"] / 1000), "%s total" % name)
        ind = sum(t for (n, _), t in s["children"].items() if n.startswith("cpp_"))
        ext = sum(t for (n, _), t in s["children"].items() if n.startswith("aten::"))
        check(close(reg["inductor_us"], ind / 1000), "%s inductor %s vs %s" % (name, reg["inductor_us"], ind / 1000))
        check(close(reg["extern_us"], ext / 1000), "%s extern" % name)
        check(close(reg["unknown_us"], (s["total"] - ind - ext) / 1000), "%s unknown" % name)
        # every kernel: the k-th child of its trace name <-> its k-th call line
        kernels = v["kernels"]
        for k in kernels:
            tname = k["name"]
            if tname.startswith("extern_kernels."):
                tname = "aten::" + tname[len("extern_kernels."):]
            lines = sorted({c for kk in kernels if kk["name"] == k["name"] for c in kk["calls"]})
            expect = sum(s["children"].get((tname, lines.index(c)), 0) for c in k["calls"])
            got = p["kernels"].get(k["key"], {}).get("total_us", 0)
            check(close(got, expect / 1000), "%s kernel %s: %s vs %s" % (name, k["key"], got, expect / 1000))
            if k["key"] in p["kernels"] and len(k["calls"]) == 1:
                each = s["each"][(tname, lines.index(k["calls"][0]))]
                check_stats(p["kernels"][k["key"]], each, "%s kernel %s" % (name, k["key"]))
        check_stats(p["graph_calls"], s["calls"], "%s graph calls" % name)
        check(p["graph_calls"]["count"] == len(s["calls"]) == 3, "%s graph call count" % name)
        total_k = sum(x["total_us"] for x in p["kernels"].values())
        check(close(total_k, reg["inductor_us"] + reg["extern_us"]), "%s kernels add up" % name)
        post = sum(p["post_nodes"].values()) + p["without_post_node_us"]
        check(abs(post - total_k) < 0.05, "%s post nodes add up %s %s" % (name, post, total_k))
        # one rule: a model line has at least the time the pre-grad panel
        # shows on the lines under its `# File:` comment
        pre_text = open(os.path.join(out, v["artifacts"]["pre_grad_graph"])).read().split("\n")
        under, cur = {}, None
        for i, t in enumerate(pre_text, 1):
            if not t.strip():
                cur = None
            elif t.strip().startswith("# File: "):
                cur = int(t.split(" in ")[0].rsplit(":", 1)[1])
            if cur is not None:
                under[cur] = under.get(cur, 0) + p["lines"]["pre"].get(str(i), 0)
        for x in p["source_lines"]:
            check(x["total_us"] >= under.get(x["line"], 0) - 0.002,
                  "%s model line %s: %s below its pre-grad lines' %s" % (name, x["line"], x["total_us"], under.get(x["line"])))
        check(p["match"]["phase"] != "forward" or any(abs(x["total_us"] - under.get(x["line"], 0)) < 0.002 and x["total_us"] > 0
                                         for x in p["source_lines"]),
              "%s: a model line with exactly its pre-grad lines' time" % name)
        src = sum(x["total_us"] for x in p["source_lines"])
        check(abs(src - total_k) < 0.05, "%s source lines add up %s %s" % (name, src, total_k))
        phase = p["match"]["phase"]
        for x in p["source_lines"]:
            check((x["bwd_us"] if phase == "backward" else x["fwd_us"]) == x["total_us"], "phase split")
    check(matched == 2, "forward and backward views matched (%d)" % matched)
    check_index_rows(out)
    check_index_bars(out)


class TimeRows(html.parser.HTMLParser):
    """The rows of the index's table#time-per-compile: per row the cells'
    text and the links (href, text) in them."""

    def __init__(self):
        super().__init__()
        self.rows, self.inside, self.cell, self.href = [], False, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "time-per-compile":
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append({"cells": [], "links": []})
        elif self.inside and tag == "td":
            self.cell = ""
        elif self.inside and tag == "a":
            self.href = a.get("href")
            self.rows[-1]["links"].append([self.href, ""])

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag == "td":
            self.rows[-1]["cells"].append(self.cell)
            self.cell = None
        elif tag == "a":
            self.href = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.href is not None and self.inside:
            self.rows[-1]["links"][-1][1] += data


def fmt_us(v):
    """µs as the page and the index write them."""
    if v < 10:
        return "%.2f" % v
    if v < 1000:
        return "%.1f" % v
    return "{:,}".format(int(v + 0.5))


class Bars(html.parser.HTMLParser):
    """The bars of each <figure class="profile-bars">: per figure id, a list
    of (href or None, title, fill, width)."""

    def __init__(self):
        super().__init__()
        self.figs, self.fig, self.href, self.bar, self.in_title = {}, None, None, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure" and "profile-bars" in a.get("class", ""):
            self.fig = self.figs.setdefault(a.get("id"), [])
        elif self.fig is not None and tag == "a":
            self.href = a.get("href")
        elif self.fig is not None and tag == "g":
            self.bar = [self.href, "", None, None]
            self.fig.append(self.bar)
        elif self.bar is not None and tag == "title":
            self.in_title = True
        elif self.bar is not None and tag == "rect" and a.get("class") == "fill":
            self.bar[2], self.bar[3] = a.get("fill"), float(a.get("width"))

    def handle_endtag(self, tag):
        if tag == "figure":
            self.fig = None
        elif tag == "a":
            self.href = None
        elif tag == "g":
            self.bar = None
        elif tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.in_title and self.bar is not None:
            self.bar[1] += data


VIRIDIS = ['#440154', '#482878', '#3e4989', '#31688e', '#26828e',
           '#1f9e89', '#35b779', '#6ece58', '#b5de2b', '#fde725']


def check_index_bars(out):
    """The index's bar charts: the 10 hottest kernels over the matched views
    (each linked to its page with #kernel=) and the 10 hottest model lines,
    sized and coloured by their time as the page's scale does."""
    parser = Bars()
    with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
        parser.feed(f.read())
    kernels, lines = [], {}
    for name, v in views(out).items():
        p = v["profile"]
        if p["match"]["status"] != "matched":
            continue
        page = name[:-len(".json")] + ".html"
        for k, x in p["kernels"].items():
            kernels.append((x["total_us"], k, page))
        for x in p["source_lines"]:
            key = "%s:%d" % (x["file"], x["line"])
            lines[key] = lines.get(key, 0) + x["total_us"]
    kernels.sort(key=lambda t: -t[0])
    want = [(page + "#kernel=" + urllib.parse.quote(k, safe=":!*'()"), "%s: %s µs" % (k, fmt_us(t)))
            for t, k, page in kernels[:10]]
    got = [(b[0], b[1]) for b in parser.figs.get("kernel-bars", [])]
    check(got == want, "index kernel bars %s, views %s" % (got, want))
    top = sorted(lines.items(), key=lambda kv: -kv[1])[:10]
    got = [b[1] for b in parser.figs.get("line-bars", [])]
    check(got == ["%s: %s µs" % (k, fmt_us(t)) for k, t in top], "index line bars %s" % got)
    for fig in parser.figs.values():
        mx = max(b[3] for b in fig)
        check(abs(mx - 330) < 0.1 and fig[0][2] == VIRIDIS[9], "the longest bar is full and yellow")
        for b in fig:
            t = float(b[1].rsplit(": ", 1)[1].split()[0].replace(",", ""))
            frac = b[3] / 330
            step = min(9, int((frac ** 0.5) * 10)) if frac > 0 else 0
            check(b[2] == VIRIDIS[step] or abs(frac ** 0.5 * 10 - round(frac ** 0.5 * 10)) < 0.01,
                  "bar colour %s for %s" % (b[2], b[1]))


def check_index_rows(out):
    """index.html's "where the time goes": a row per profiled view with the
    view's compile id (linked to its page), its region split as the view's
    JSON has it, and its three hottest kernels, linked with #kernel=."""
    parser = TimeRows()
    with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
        parser.feed(f.read())
    rows = [r for r in parser.rows if r["cells"]]
    vs = views(out)
    check(len(rows) == len(vs), "index: %d time rows for %d views"
          % (len(rows), len(vs)))
    by_page = {r["links"][0][0]: r for r in rows if r["links"]}
    for name, v in vs.items():
        page = name[:-len(".json")] + ".html"
        r = by_page.get(page)
        check(r is not None, "index: no time row links %s" % page)
        if r is None:
            continue
        check(r["links"][0][1] == v["compile_id"], "index: %s row names %s"
              % (page, r["links"][0][1]))
        p = v["profile"]
        if p["match"]["status"] != "matched":
            words = {"ambiguous": "is ambiguous"}.get(p["match"]["status"], "does not match")
            check(r["cells"][1] == words + ": " + p["match"]["reason"],
                  "index: %s row says %r" % (page, r["cells"][1]))
            continue
        reg = p["region"]
        want = [fmt_us(reg[k]) for k in
                ("total_us", "inductor_us", "extern_us", "unknown_us")]
        check(r["cells"][2:6] == want, "index: %s split %s, view %s"
              % (page, r["cells"][2:6], want))
        gc = p["graph_calls"]
        calls = "%d (first %s%s µs%s)" % (gc["count"], fmt_us(gc["first_us"]),
                                          ", median " + fmt_us(gc["median_us"]) if gc["count"] > 1 else "",
                                          "; %d far from the median" % gc["far_count"] if gc["far_count"] else "")
        check(r["cells"][1] == calls, "index: %s calls %r, view %r" % (page, r["cells"][1], calls))
        top = sorted(p["kernels"].items(), key=lambda kv: -kv[1]["total_us"])
        want_links = [[page + "#kernel=" + urllib.parse.quote(k, safe=":!*'()"),
                       k] for k, _ in top[:3]]
        check(r["links"][1:] == want_links, "index: %s top kernels %s, view %s"
              % (page, r["links"][1:], want_links))


# ---- 2. generated GPU-shaped profile ----------------------------------------
class Gen:
    def __init__(self):
        self.cpu, self.gpu = [], []
        self.ext = 1000
        self.corr = 50000
        self.ts = 1000000  # ns
        self.gpu_ts = 1000000

    def x(self, name, start, dur, cat="cpu_op", args=None, pid=1, tid=7):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
             "ts": "%d.%03d" % divmod(start, 1000), "dur": "%d.%03d" % divmod(dur, 1000)}
        if args:
            e["args"] = args
        return e

    def launch(self, cpu_name, gpu_name, gpu_dur, launcher, link="both"):
        """cpu op enclosing a launch; returns nothing; GPU event appended."""
        self.ext += 1
        self.corr += 1
        start = self.ts
        self.cpu.append(self.x(cpu_name, start, 5000, args={"External id": self.ext}))
        self.cpu.append(self.x(launcher, start + 1000, 2000,
                               cat="cuda_driver" if launcher.startswith("cu") and "Launch" in launcher and not launcher.startswith("cuda") else "cuda_runtime",
                               args={"External id": self.ext, "correlation": self.corr}))
        args = {"correlation": self.corr, "External id": self.ext}
        if link == "corr":
            del args["External id"]
        elif link == "none":
            args = {}
        self.gpu.append(self.x(gpu_name, self.gpu_ts, gpu_dur, cat="kernel", args=args, pid=0, tid=7))
        self.gpu_ts += gpu_dur + 100
        self.ts += 6000

    def graph(self, key, kernels, gpu_dur):
        start = self.ts
        self.ts += 500
        for name, is_extern in kernels:
            if is_extern:
                self.launch(name, "sm80_xmma_gemm", gpu_dur(name), "cudaLaunchKernel")
            else:
                self.launch(name, name, gpu_dur(name), "cuLaunchKernel")
        self.ts += 500
        return self.x("## Call CompiledFxGraph %s ##" % key, start, self.ts - start)


def kernels_in_order(view):
    calls = []
    for k in view["kernels"]:
        n = k["name"]
        ext = n.startswith("extern_kernels.")
        tname = "aten::" + n[len("extern_kernels."):] if ext else n
        for c in k["calls"]:
            calls.append((c, tname, ext, k["key"]))
    calls.sort()
    return calls


def test_generated_gpu(tlparse, work):
    print("generated_gpu_profile_is_attributed_by_launch")
    d = os.path.join(work, "gpu")
    os.makedirs(d, exist_ok=True)
    log = os.path.join(work, "cpu", "trace.log")
    base = os.path.join(d, "base")
    run(tlparse, log, base, [])
    vs = views(base)
    fwd = next(v for v in vs.values() if any(k["name"].startswith("cpp_fused_mul_relu") for k in v["kernels"]))
    bwd = next(v for v in vs.values() if v is not fwd and v["kernels"])
    # the views' graph keys, as the real profile's run found them in the log
    real = views(os.path.join(work, "cpu", "out"))
    key_of = {}
    for v in real.values():
        key_of[json.dumps(v["kernels"])] = v["profile"]["match"]["view_graph_key"]
    fwd_key, bwd_key = key_of[json.dumps(fwd["kernels"])], key_of[json.dumps(bwd["kernels"])]
    check(fwd_key and bwd_key and fwd_key != bwd_key, "graph keys of the views read: %s %s" % (fwd_key, bwd_key))
    g = Gen()
    expect = {}
    per_call = {}  # phase -> each 0/0 call's GPU time
    # durations: distinct per kernel call, so a wrong match shows
    dur_of = {}

    def gpu_dur(name, _c=[0]):
        _c[0] += 1
        return 1000 * _c[0] + 7

    events = []
    for compile_id, scale in (("0/0", 1), ("1/0", 100)):
        for step in range(2):
            region_start = g.ts
            g.ts += 100
            cf_start = g.ts
            g.ts += 100
            calls = kernels_in_order(fwd)
            durs = []
            ge = g.graph(fwd_key, [(n, e) for _, n, e, _ in calls],
                         lambda n: (durs.append(1000 * scale * (len(durs) + 1) + 7), durs[-1])[1])
            if compile_id == "0/0":
                for (line, n, e, key), du in zip(calls, durs):
                    expect[("fwd", key)] = expect.get(("fwd", key), 0) + du
                per_call.setdefault("fwd", []).append(sum(durs))
            events += [g.x("Torch-Compiled Region: %s" % compile_id, region_start, g.ts + 200 - region_start),
                       g.x("CompiledFunction", cf_start, g.ts + 100 - cf_start,
                           args={"Sequence number": 10 + scale + step, "Fwd thread id": 0}), ge]
            g.ts += 1000
            # backward, outside the region, linked by sequence number
            cfb_start = g.ts
            g.ts += 100
            calls = kernels_in_order(bwd)
            durs = []
            ge = g.graph(bwd_key, [(n, e) for _, n, e, _ in calls],
                         lambda n: (durs.append(1000 * scale * (len(durs) + 1) + 3), durs[-1])[1])
            if compile_id == "0/0":
                for (line, n, e, key), du in zip(calls, durs):
                    expect[("bwd", key)] = expect.get(("bwd", key), 0) + du
                per_call.setdefault("bwd", []).append(sum(durs))
            events += [g.x("CompiledFunctionBackward", cfb_start, g.ts + 100 - cfb_start,
                           args={"Sequence number": 10 + scale + step, "Fwd thread id": 1}), ge]
            g.ts += 1000
    # one GPU kernel linked by correlation only, one with no link at all:
    # both launched from outside any graph (eager), so neither is attributed
    g.launch("aten::add", "elementwise_kernel", 999, "cudaLaunchKernel", link="corr")
    g.launch("aten::add", "elementwise_kernel", 999, "cudaLaunchKernel", link="none")
    cpu = sorted(events + g.cpu, key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
    trace = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "fake"}],
             "traceEvents": cpu + g.gpu, "traceName": "gen"}
    path = os.path.join(d, "gpu.pt.trace.json")
    json.dump(trace, open(path, "w"))
    out = os.path.join(d, "out")
    run(tlparse, log, out, [path])
    got = views(out)
    for phase, v0 in (("fwd", fwd), ("bwd", bwd)):
        v = next(x for x in got.values() if x["kernels"] == v0["kernels"])
        p = v["profile"]
        check(p["match"]["status"] == "matched", "%s matched: %s" % (phase, p["match"]))
        check(p["clock"] == "gpu", "gpu clock")
        check_stats(p["graph_calls"], per_call[phase], "%s graph calls on the GPU clock" % phase)
        check(p["match"]["compile_id"] == "0/0", "%s compile id %s" % (phase, p["match"].get("compile_id")))
        for k in v["kernels"]:
            want = expect.get((phase, k["key"]), 0) / 1000
            have = p["kernels"].get(k["key"], {}).get("total_us", 0)
            check(close(have, want), "%s %s: %s vs %s" % (phase, k["key"], have, want))
        reg = p["region"]
        want_total = sum(t for (ph, _), t in expect.items() if ph == phase) / 1000
        check(close(reg["total_us"], want_total), "%s region %s vs %s" % (phase, reg["total_us"], want_total))
        check(close(reg["inductor_us"] + reg["extern_us"] + reg["unknown_us"], reg["total_us"]), "split adds up")
    problems = {x["what"]: x for x in next(iter(got.values()))["profile"]["problems"]}
    check(any("no External id or correlation" in w for w in problems), "missing link counted: %s" % list(problems))
    # the second compile has the same names but other times: must stay apart
    check(all("1/0" not in json.dumps(x["profile"]["match"].get("compile_id")) for x in got.values()), "1/0 apart")
    check_index_rows(out)
    # GPU activities read before their launch are attributed all the same
    trace["traceEvents"] = g.gpu + cpu
    first = os.path.join(d, "gpu-first.pt.trace.json")
    json.dump(trace, open(first, "w"))
    out_first = os.path.join(d, "out-first")
    run(tlparse, log, out_first, [first])
    same_profiles(got, views(out_first), "GPU activities first")


def without_places(p):
    """A profile object without its file names and problem examples."""
    text = json.dumps(p, sort_keys=True)
    for f in p["files"]:
        text = text.replace(json.dumps(f)[1:-1], "FILE")
    p = json.loads(text)
    for pr in p["problems"]:
        pr.pop("first", None)
    return p


def same_profiles(a, b, what):
    """The views' profile objects are equal but for the file names."""
    check(sorted(a) == sorted(b), "%s: same views" % what)
    for name in a:
        pa, pb = a[name].get("profile"), b.get(name, {}).get("profile")
        if pa is None or pb is None:
            check(pa is pb, "%s: %s profile" % (what, name))
            continue
        check(without_places(pa) == without_places(pb),
              "%s: %s profile differs" % (what, name))


def test_generated_orders(tlparse, work):
    print("generated_gpu_profile_gives_the_same_times_in_any_order")
    d = os.path.join(work, "orders")
    os.makedirs(d, exist_ok=True)
    log = os.path.join(work, "cpu", "trace.log")
    gen = os.path.join(HERE, "gen_profile.py")
    got = {}
    for order in ("kineto", "interleaved", "gpu-first"):
        path = os.path.join(d, order + ".json")
        subprocess.run([sys.executable, gen, "--shape", "gpu", "--order", order,
                        "--size", "300000", path], check=True,
                       capture_output=True)
        out = os.path.join(d, "out-" + order)
        r = run(tlparse, log, out, [path])
        check("problem" not in r.stderr, "%s: no problems: %s" % (order, r.stderr))
        got[order] = views(out)
    fwd = [v["profile"] for v in got["kineto"].values()
           if v.get("profile", {}).get("match", {}).get("status") == "matched"]
    check(len(fwd) == 2 and all(p["clock"] == "gpu" and p["region"]["total_us"] > 0
                                for p in fwd), "kineto order: two graphs on the GPU clock")
    same_profiles(got["kineto"], got["interleaved"], "interleaved")
    same_profiles(got["kineto"], got["gpu-first"], "gpu-first")


# ---- 3. hostile profiles --------------------------------------------------
def test_hostile(tlparse, work):
    print("hostile_profiles_give_a_diagnostic_and_the_rest_of_the_report")
    d = os.path.join(work, "hostile")
    os.makedirs(d, exist_ok=True)
    log = os.path.join(work, "cpu", "trace.log")
    with gzip.open(os.path.join(HERE, "cpu", "profile.json.gz"), "rb") as f:
        real = f.read()
    cases = {}
    cases["truncated.json"] = real[: len(real) // 2]
    ev = lambda name, ts, dur, **kw: dict({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur}, **kw)
    script = "</script><script>alert(1)</script>"
    cases["script.json"] = json.dumps({"traceEvents": [
        ev("## Call CompiledFxGraph %s ##" % script, 0, 100),
        ev("triton_" + script, 1, 10),
        ev(script, 2, 3)]}).encode()
    cases["durations.json"] = json.dumps({"traceEvents": [
        ev("triton_poi_x", 0, -5), ev("triton_poi_y", 0, 1e300),
        ev("triton_poi_z", 0, 123456789012345678901234567890)]}).encode()
    cases["nocorr.json"] = json.dumps({"deviceProperties": [{"id": 0}], "traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_0", "pid": 0, "tid": 7, "ts": 5, "dur": 3}]}).encode()
    deep = "[" * 200000 + "]" * 200000
    nested = [ev("aten::x", i, 100000 - 2 * i) for i in range(6000)]
    cases["deep.json"] = ('{"traceEvents": [{"ph": "i", "args": {"a": %s}}, %s]}'
                          % (deep, json.dumps(nested)[1:-1])).encode()
    cases["notjson.json.gz"] = b"\x1f\x8b\x08\x00garbage"
    for name, data in cases.items():
        p = os.path.join(d, name)
        open(p, "wb").write(data)
        out = os.path.join(d, "out-" + name)
        r = run(tlparse, log, out, [p])
        check(r.returncode == 0, "%s: exit %d" % (name, r.returncode))
        if name != "script.json":  # valid, only hostile names: no diagnostic
            check(name in r.stderr, "%s: diagnostic names the file: %s" % (name, r.stderr))
        check(os.path.exists(os.path.join(out, "index.html")), "%s: index written" % name)
        vs = views(out)
        check(len(vs) >= 2 and all("profile" in v for v in vs.values()), "%s: views with profile" % name)
        for html in glob.glob(os.path.join(out, "provenance_tracking_*.html")):
            check("<script>alert(1)" not in open(html, encoding="utf-8", errors="replace").read(), "%s: script escaped" % name)
    # the truncated real profile still gives the steps before the cut
    vs = views(os.path.join(d, "out-truncated.json"))
    check(any(v["profile"]["calls"] > 0 for v in vs.values()), "truncated: events before the cut used")


# ---- 4. matching with evidence ----------------------------------------------
def run_strict(tlparse, log, out, profiles):
    if os.path.exists(out):
        shutil.rmtree(out)
    cmd = [tlparse, log, "-i", "-o", out, "--no-browser", "--strict"]
    for p in profiles:
        cmd += ["--profile", p]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_matching(tlparse, work):
    print("profile_of_another_model_or_phase_does_not_match_with_evidence")
    d = os.path.join(work, "match")
    os.makedirs(d, exist_ok=True)
    log = os.path.join(work, "cpu", "trace.log")
    prof = os.path.join(HERE, "cpu", "profile.json.gz")
    other_log = os.path.join(HERE, "..", "..", "examples", "rec-profile", "trace.log")
    other_prof = os.path.join(HERE, "..", "..", "examples", "rec-profile", "profile.json.gz")
    # the same model and run: matched, --strict passes
    r = run_strict(tlparse, log, os.path.join(d, "same"), [prof])
    check(r.returncode == 0, "same model: --strict exit %d: %s" % (r.returncode, r.stderr))
    # model B's log with model A's profile, and the other way round: every
    # view with kernels does not match, one stderr line names the file, the
    # index and the JSON carry the evidence, --strict fails
    for name, lg, pf in (("b-with-a", other_log, prof), ("a-with-b", log, other_prof)):
        out = os.path.join(d, name)
        r = run_strict(tlparse, lg, out, [pf])
        check(r.returncode == 1, "%s: --strict exit %d" % (name, r.returncode))
        check(("profile %s: matches no provenance view" % pf) in r.stderr,
              "%s: stderr names the file: %s" % (name, r.stderr))
        check(("profile %s: view provenance_tracking_" % pf) in r.stderr and "does not match" in r.stderr,
              "%s: stderr has the view's verdict: %s" % (name, r.stderr))
        vs = views(out)
        with_kernels = [v for v in vs.values() if v["kernels"]]
        check(with_kernels, "%s: views with kernels" % name)
        for v in with_kernels:
            m = v["profile"]["match"]
            check(m["status"] == "unmatched", "%s: %s %s" % (name, v["compile_dir"], m["status"]))
            inductor = {k["name"] for k in v["kernels"] if k["kind"] not in ("extern", "fallback", "shim")}
            check(m["kernel_names_expected"] == len(inductor) and m["kernel_names_found"] == 0,
                  "%s: evidence %s of %s (view has %d)" % (name, m["kernel_names_found"], m["kernel_names_expected"], len(inductor)))
            check(sorted(m["missing"])[:len(inductor)] == sorted(inductor)[:10] or set(inductor) <= set(m["missing"]),
                  "%s: missing names %s" % (name, m["missing"]))
            check("region" not in v["profile"] or v["profile"]["region"]["total_us"] == 0,
                  "%s: no time given to an unmatched view" % name)
        check_index_rows(out)
        # without --strict: exit 0, the same diagnostics
        r2 = run(tlparse, lg, os.path.join(d, name + "-lax"), [pf])
        check(r2.returncode == 0 and "matches no provenance view" in r2.stderr, "%s: without --strict exit 0" % name)
    # the same profile with the forward's CompiledFunction renamed: the
    # forward graph call now runs as inference, which the training forward
    # view is not: it does not match (phase), the backward still does
    with gzip.open(prof, "rt") as f:
        trace = json.load(f)
    for e in trace["traceEvents"]:
        if e.get("name") == "CompiledFunction":
            e["name"] = "SomethingElse"
    phase = os.path.join(d, "phase.json")
    json.dump(trace, open(phase, "w"))
    out = os.path.join(d, "phase")
    r = run_strict(tlparse, log, out, [phase])
    check(r.returncode == 0, "phase: the file still matches the backward view: exit %d" % r.returncode)
    got = {v["profile"]["match"].get("view_phase"): v["profile"]["match"] for v in views(out).values() if v["kernels"]}
    check(got.get("forward", {}).get("status") == "unmatched" and
          "is the inference graph" in got.get("forward", {}).get("reason", ""),
          "phase: forward view refused for the phase: %s" % got.get("forward"))
    check(got.get("backward", {}).get("status") == "matched", "phase: backward matched: %s" % got.get("backward"))
    check("does not match: this view is the forward graph" in r.stderr, "phase: stderr says why: %s" % r.stderr)
    # both phases gone (an inference run's profile against the training
    # log): no view matches, --strict fails
    for e in trace["traceEvents"]:
        if e.get("name") == "CompiledFunctionBackward":
            e["name"] = "SomethingElseBackward"
    both = os.path.join(d, "phase-both.json")
    json.dump(trace, open(both, "w"))
    out = os.path.join(d, "phase-both")
    r = run_strict(tlparse, log, out, [both])
    ms = [v["profile"]["match"] for v in views(out).values() if v["kernels"]]
    check(r.returncode == 1 and len(ms) == 2 and
          all(m["status"] == "unmatched" and "is the inference graph" in m["reason"] for m in ms),
          "phase-both: %d %s" % (r.returncode, [m.get("reason") for m in ms]))


# ---- 5. one trace counted once ----------------------------------------------
def totals(out):
    """Per matched view: its region total and kernel totals."""
    res = {}
    for name, v in views(out).items():
        p = v["profile"]
        if p["match"]["status"] == "matched":
            res[name] = (p["calls"], p["region"]["total_us"],
                         {k: x["total_us"] for k, x in p["kernels"].items()})
    return res


def test_once(tlparse, work):
    print("the_same_trace_twice_is_read_once_with_a_notice")
    d = os.path.join(work, "once")
    os.makedirs(d, exist_ok=True)
    log = os.path.join(work, "cpu", "trace.log")
    prof = os.path.join(HERE, "cpu", "profile.json.gz")
    single = totals(os.path.join(work, "cpu", "out"))
    check(len(single) == 2, "single: two matched views")
    folder = os.path.join(d, "folder")
    os.makedirs(folder, exist_ok=True)
    with gzip.open(prof, "rb") as f:
        raw = f.read()
    open(os.path.join(folder, "p.json"), "wb").write(raw)
    shutil.copy(prof, os.path.join(folder, "p.json.gz"))
    # the same trace id and base time, the content otherwise changed (one
    # event's time): still one trace
    trace = json.loads(raw)
    trace["traceEvents"] = [e for e in trace["traceEvents"] if e.get("ph") != "M"]
    relaid = os.path.join(d, "relaid.json")
    json.dump(trace, open(relaid, "w"), indent=1)
    for name, profiles in (("twice", [prof, prof]), ("folder", [folder]),
                           ("same-id", [prof, relaid])):
        out = os.path.join(d, "out-" + name)
        r = run_strict(tlparse, log, out, profiles)
        check(r.returncode == 0, "%s: --strict exit %d: %s" % (name, r.returncode, r.stderr))
        check(totals(out) == single, "%s: single totals" % name)
        check("read once, not counted twice" in r.stderr, "%s: notice: %s" % (name, r.stderr))
        why = "same trace id and base time" if name == "same-id" else "same content"
        p = next(iter(views(out).values()))["profile"]
        notes = [x for x in p["problems"] if x["what"].startswith("profile files that repeat")]
        check(len(notes) == 1 and notes[0]["count"] == 1 and why in notes[0]["first"],
              "%s: the notice in the view's problems: %s" % (name, notes))
    # a different trace of the same run is not a duplicate: summed
    trace["trace_id"] = "other"
    other = os.path.join(d, "other.json")
    json.dump(trace, open(other, "w"))
    r = run(tlparse, log, os.path.join(d, "two"), [prof, other])
    two = totals(os.path.join(d, "two"))
    check(all(abs(two[k][1] - 2 * single[k][1]) < 0.002 and two[k][0] == 2 * single[k][0]
              for k in single), "two different traces are summed: %s" % two)
    # --profile without a value: a proper message
    r = subprocess.run([tlparse, log, "--profile"], capture_output=True, text=True)
    check(r.returncode == 1 and r.stderr.startswith(
        "tlparse: --profile needs a value: a torch.profiler trace"),
        "--profile without a value: %r" % r.stderr[:200])


# ---- 6. say why ---------------------------------------------------------------
def test_say_why(tlparse, work):
    print("empty_garbage_truncated_and_unrecorded_kernels_are_explained")
    d = os.path.join(work, "why")
    os.makedirs(d, exist_ok=True)
    log = os.path.join(work, "cpu", "trace.log")
    prof = os.path.join(HERE, "cpu", "profile.json.gz")
    with gzip.open(prof, "rt") as f:
        trace = json.load(f)
    cases = {"empty.json": (b"", "empty file"),
             "no-events.json": (b'{"traceEvents":[]}', "no trace event"),
             "garbage.json": (b"this is not json at all", "not valid JSON"),
             "cut.json": (json.dumps(trace).encode()[:5000], "truncated")}
    for name, (data, words) in cases.items():
        path = os.path.join(d, name)
        open(path, "wb").write(data)
        out = os.path.join(d, "out-" + name)
        r = run_strict(tlparse, log, out, [path])
        check(r.returncode == 1, "%s: --strict exit %d" % (name, r.returncode))
        check(("profile %s: " % path) in r.stderr and words in r.stderr,
              "%s: stderr names the file and says %r: %s" % (name, words, r.stderr))
        check(os.path.exists(os.path.join(out, "index.html")), "%s: report written" % name)
        r = run(tlparse, log, out + "-lax", [path])
        check(r.returncode == 0, "%s: without --strict exit 0" % name)
    # truncated inside the third forward call (after its first kernel):
    # that call is left out whole, the calls before it are counted exactly
    evs = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    graphs = [i for i, e in enumerate(evs) if e["name"].startswith("## Call CompiledFxGraph")]
    fwd_key = evs[graphs[0]]["name"]
    fwd_calls = [i for i in graphs if evs[i]["name"] == fwd_key]
    cut_at = fwd_calls[2] + 2  # the graph call and its first child
    head = json.dumps({"traceEvents": evs[:cut_at]})
    cut = os.path.join(d, "inside-call.json")
    open(cut, "w").write(head[:-2])  # no closing "]}"
    out = os.path.join(d, "out-inside-call")
    r = run(tlparse, log, out, [cut])
    check("truncated (parse error: premature EOF); 1 unfinished graph call(s) left out of the totals" in r.stderr,
          "unfinished call diagnostic: %s" % r.stderr)
    probs = next(iter(views(out).values()))["profile"]["problems"]
    check(any(x["first"] == cut + ": 1 unfinished call(s) at the end" for x in probs), "unfinished call in problems: %s" % probs)
    full = {v["profile"]["match"]["view_phase"]: v["profile"] for v in views(os.path.join(work, "cpu", "out")).values() if v["kernels"]}
    got = {v["profile"]["match"]["view_phase"]: v["profile"] for v in views(out).values() if v["kernels"]}
    fwd = got["forward"]
    check(fwd["calls"] == 2, "truncated: 2 forward calls counted (%s)" % fwd["calls"])
    want = sum(ns(evs[i]["dur"]) for i in fwd_calls[:2]) / 1000
    check(close(fwd["region"]["total_us"], want), "truncated: forward total %s vs %s" % (fwd["region"]["total_us"], want))
    check(got["backward"]["calls"] == 2, "truncated: 2 backward calls (%s)" % got["backward"]["calls"])
    # no C++ kernel events (cpp.enable_kernel_profile off): the views still
    # match by their graph key, name their kernels and say how to record
    t2 = dict(trace)
    t2["traceEvents"] = [e for e in trace["traceEvents"] if not e.get("name", "").startswith("graph_")]
    nokp = os.path.join(d, "no-kernel-profile.json")
    json.dump(t2, open(nokp, "w"))
    out = os.path.join(d, "out-no-kernel-profile")
    r = run(tlparse, log, out, [nokp])
    for v in views(out).values():
        if not v["kernels"]:
            continue
        p = v["profile"]
        cpp = sorted(k["key"] for k in v["kernels"] if k["kind"] == "cpp")
        check(p["match"]["status"] == "matched", "no kernel profile: matched by key")
        check(sorted(x["key"] for x in p["kernels_without_events"]) == cpp,
              "no kernel profile: kernels without events %s vs %s" % (p["kernels_without_events"], cpp))
        check("cpp.enable_kernel_profile = True" in (p["record_hint"] or ""), "no kernel profile: hint %s" % p["record_hint"])
        check(close(p["region"]["inductor_us"], 0), "no kernel profile: no Inductor time")
    check("kernel(s) without events" in r.stderr and "enable_kernel_profile" in r.stderr,
          "no kernel profile: stderr says how to record: %s" % r.stderr)
    # the full profile: no kernel without events, no hint
    for p in full.values():
        check(p["kernels_without_events"] == [] and p["record_hint"] is None, "full profile: no gaps")


# ---- 7. AOTInductor ---------------------------------------------------------
EXAMPLES = os.path.normpath(os.path.join(HERE, "..", "..", "examples"))


def aoti_sums(trace, view):
    """Independent sums of a CPU AOTInductor profile: per ProfilerStep, its
    direct children named graph_<n>_<kernel> or aoti_torch_*, the k-th of a
    name being the view's k-th call line of that name; per kernel key its
    ns, and the steps' kernel spans (first kernel start to last end)."""
    evs = [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") != "Trace"]
    evs.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
    lines = {}
    for k in view["kernels"]:
        for c in k["calls"]:
            lines.setdefault(k["name"], set()).add(c)
    key_at = {(k["name"], c): k["key"] for k in view["kernels"] for c in k["calls"]}
    per_key, spans, calls = {}, 0, 0
    for st in [e for e in evs if e["name"].startswith("ProfilerStep#")]:
        s0, s1 = ns(st["ts"]), ns(st["ts"]) + ns(st["dur"])
        seen, until, first, last = {}, -1, None, None
        for c in evs:
            cs = ns(c["ts"])
            if cs < s0 or cs >= s1 or c is st or cs < until:
                continue
            until = cs + ns(c["dur"])
            name = c["name"]
            if name.startswith("graph_"):
                name = name.split("_", 2)[2]
            elif not name.startswith("aoti_torch_"):
                continue
            k = seen.get(name, 0)
            seen[name] = k + 1
            line = sorted(lines[name])[k]
            key = key_at[(name, line)]
            per_key[key] = per_key.get(key, 0) + ns(c["dur"])
            first = cs if first is None else first
            last = until
        if first is not None:
            spans += last - first
            calls += 1
    return per_key, spans, calls


def test_aoti_cpu(tlparse, work):
    print("recorded_aoti_cpu_profile_matches_an_independent_sum")
    ex = os.path.join(EXAMPLES, "rec-profile-aot-cpu")
    prof = os.path.join(ex, "profile.json.gz")
    out = os.path.join(work, "aoti-cpu")
    r = run_strict(tlparse, os.path.join(ex, "trace.log"), out, [prof])
    check(r.returncode == 0, "aoti cpu: --strict exit %d: %s" % (r.returncode, r.stderr))
    check("problem" not in r.stderr, "aoti cpu: no problems: %s" % r.stderr)
    with gzip.open(prof, "rt") as f:
        trace = json.load(f)
    vs = [v for v in views(out).values() if v["kernels"]]
    check(len(vs) == 1, "aoti cpu: one view with kernels")
    v = vs[0]
    p = v["profile"]
    check(p["match"]["status"] == "matched" and p["match"]["phase"] == "inference"
          and p["match"]["kernel_names_found"] == p["match"]["kernel_names_expected"] == 2,
          "aoti cpu: matched %s" % p["match"])
    per_key, spans, calls = aoti_sums(trace, v)
    check(calls == 3 and p["calls"] == 3, "aoti cpu: 3 runs (%s, %s)" % (calls, p["calls"]))
    check(sorted(per_key) == sorted(k["key"] for k in v["kernels"]), "aoti cpu: every kernel has events")
    for key, want in per_key.items():
        got = p["kernels"].get(key, {}).get("total_us")
        check(got is not None and abs(got - want / 1000) <= 0.001,
              "aoti cpu: %s %s vs %s" % (key, got, want / 1000))
    check(abs(p["region"]["total_us"] - spans / 1000) <= 0.001, "aoti cpu: runs' span %s vs %s" % (p["region"]["total_us"], spans / 1000))
    check(p["unmatched"] == [] and p["kernels_without_events"] == [], "aoti cpu: nothing left over")
    check_index_rows(out)
    check_index_bars(out)
    # without ProfilerStep events the three calls are one run at the top
    # level: the first call's events are joined, the later ones listed as
    # unmatched with why and what to do, never guessed
    trace["traceEvents"] = [e for e in trace["traceEvents"]
                            if not e.get("name", "").startswith("ProfilerStep")]
    nostep = os.path.join(work, "aoti-nostep.json")
    json.dump(trace, open(nostep, "w"))
    out2 = os.path.join(work, "aoti-nostep")
    run(tlparse, os.path.join(ex, "trace.log"), out2, [nostep])
    p2 = next(v for v in views(out2).values() if v["kernels"])["profile"]
    check(p2["calls"] == 1 and len(p2["unmatched"]) == 8 and
          all("own ProfilerStep or record_function" in u["reason"] for u in p2["unmatched"]),
          "aoti cpu without steps: %s calls, unmatched %s" % (p2["calls"], p2["unmatched"][:1]))


def test_aoti_gpu(tlparse, work):
    print("generated_gpu_aoti_profile_is_attributed_by_correlation")
    base = os.path.join(work, "aoti-gpu-base")
    log = os.path.join(EXAMPLES, "aot-cuda", "trace.log")
    run(tlparse, log, base, [])
    v = next(x for x in views(base).values() if x["kernels"])
    # gen_profile.py --shape aoti-gpu: per step no compiled region, no
    # kernel-named CPU event: the wrapper's cuLaunchKernel (correlation) for
    # a Triton kernel, the C shim's event with a cudaLaunchKernel inside for
    # an extern; GPU activities last; the fifth step 20 times slower
    cpu, gpu, each = gen_profile.aoti_gpu(v, 6, slow=4)
    want = {k: sum(d) for k, d in each.items()}
    trace = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "fake"}],
             "traceEvents": cpu + gpu}
    path = os.path.join(work, "aoti-gpu.json")
    json.dump(trace, open(path, "w"))
    out = os.path.join(work, "aoti-gpu")
    r = run_strict(tlparse, log, out, [path])
    check(r.returncode == 0, "aoti gpu: --strict exit %d: %s" % (r.returncode, r.stderr))
    p = next(x for x in views(out).values() if x["kernels"])["profile"]
    check(p["match"]["status"] == "matched" and p["clock"] == "gpu" and p["calls"] == 6,
          "aoti gpu: matched on the GPU clock, 6 runs: %s %s %s" % (p["match"]["status"], p["clock"], p["calls"]))
    # per run, on the GPU clock: the sum of its GPU kernels
    per_run = [sum(e[i] for e in each.values()) for i in range(6)]
    check(p["graph_calls"]["clock"] == "gpu" and p["graph_calls"]["count"] == 6, "aoti gpu: graph calls on the GPU clock")
    check_stats(p["graph_calls"], per_run, "aoti gpu graph calls")
    check(p["graph_calls"]["far_count"] == 1 and p["graph_calls"]["far"][0]["call"] == 4, "aoti gpu: the slow run is flagged")
    for key, e in each.items():
        check_stats(p["kernels"][key], e, "aoti gpu %s" % key)
        check(p["kernels"][key]["far_count"] == 1 and p["kernels"][key]["far"][0]["call"] == 4,
              "aoti gpu %s: the slow fifth call is flagged" % key)
    for key, d in want.items():
        got = p["kernels"].get(key, {}).get("total_us")
        check(got is not None and abs(got - d / 1000) <= 0.001, "aoti gpu: %s %s vs %s" % (key, got, d / 1000))
    check(abs(p["region"]["total_us"] - sum(want.values()) / 1000) <= 0.001 and p["region"]["unknown_us"] == 0,
          "aoti gpu: region %s" % p["region"])
    # the same CPU events without any GPU activity (a GPU trace recorded
    # without ProfilerActivity.CUDA): the run holds no Inductor kernel name,
    # so the view does not match, and the reason says how to record one
    bare = os.path.join(work, "aoti-gpu-no-activities.json")
    json.dump(dict(trace, traceEvents=cpu), open(bare, "w"))
    out3 = os.path.join(work, "aoti-gpu-no-activities")
    r = run_strict(tlparse, log, out3, [bare])
    m = next(x for x in views(out3).values() if x["kernels"])["profile"]["match"]
    check(r.returncode == 1 and m["status"] == "unmatched" and m["kernel_names_found"] == 0
          and "on GPU with ProfilerActivity.CUDA" in m["reason"],
          "aoti gpu without activities: %d %s" % (r.returncode, m))
    check("ProfilerActivity.CUDA" in r.stderr, "aoti gpu without activities: stderr says how to record")
    # the same activities before their launches: the same profile
    trace["traceEvents"] = gpu + cpu
    first = os.path.join(work, "aoti-gpu-first.json")
    json.dump(trace, open(first, "w"))
    out2 = os.path.join(work, "aoti-gpu-first")
    run(tlparse, log, out2, [first])
    same_profiles(views(out), views(out2), "aoti gpu, activities first")


# ---- 8. cpp_wrapper ----------------------------------------------------------
def test_cpp_wrapper(tlparse, work):
    print("recorded_cpp_wrapper_profile_matches_an_independent_sum")
    ex = os.path.join(EXAMPLES, "rec-profile-cpp-wrapper")
    prof = os.path.join(ex, "profile.json.gz")
    out = os.path.join(work, "cpp-wrapper")
    r = run_strict(tlparse, os.path.join(ex, "trace.log"), out, [prof])
    check(r.returncode == 0 and "problem" not in r.stderr, "cpp_wrapper: --strict exit %d: %s" % (r.returncode, r.stderr))
    with gzip.open(prof, "rt") as f:
        sums = independent_sums(json.load(f))
    vs = [v for v in views(out).values() if v["kernels"]]
    check(len(vs) == 1 and vs[0]["mode"] == "jit-cpp-wrapper", "cpp_wrapper: one jit-cpp-wrapper view")
    v = vs[0]
    p = v["profile"]
    check(p["match"]["status"] == "matched" and p["match"]["phase"] == "inference" and
          p["match"]["graph_key"] == p["match"]["view_graph_key"], "cpp_wrapper: matched %s" % p["match"])
    s = sums[p["match"]["graph_key"]]
    check(p["calls"] == len(s["calls"]) == 3, "cpp_wrapper: 3 calls")
    check(abs(p["region"]["total_us"] - s["total"] / 1000) <= 0.001, "cpp_wrapper: region total")
    for k in v["kernels"]:
        lines = sorted({c for kk in v["kernels"] if kk["name"] == k["name"] for c in kk["calls"]})
        want = sum(s["children"].get((k["name"], lines.index(c)), 0) for c in k["calls"])
        got = p["kernels"].get(k["key"], {}).get("total_us")
        check(want > 0 and got is not None and abs(got - want / 1000) <= 0.001,
              "cpp_wrapper: %s %s vs %s" % (k["key"], got, want / 1000))
        if got is not None and len(k["calls"]) == 1:
            check_stats(p["kernels"][k["key"]], s["each"][(k["name"], lines.index(k["calls"][0]))],
                        "cpp_wrapper %s" % k["key"])
    check(p["unmatched"] == [] and p["kernels_without_events"] == [], "cpp_wrapper: nothing left over")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tlparse", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    test_real_cpu(a.tlparse, a.work)
    test_generated_gpu(a.tlparse, a.work)
    test_generated_orders(a.tlparse, a.work)
    test_hostile(a.tlparse, a.work)
    test_matching(a.tlparse, a.work)
    test_once(a.tlparse, a.work)
    test_say_why(a.tlparse, a.work)
    test_aoti_cpu(a.tlparse, a.work)
    test_aoti_gpu(a.tlparse, a.work)
    test_cpp_wrapper(a.tlparse, a.work)
    print("%d failures" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
