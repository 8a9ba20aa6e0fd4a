"""--all-ranks-html end to end (docs/multi-rank.md).

The four shared multi-rank fixtures are run with ours and, where it is
installed, the Rust tlparse 0.4.3: file names against the expected-files
listings, every aggregated JSON against the Rust one (equal, or equal up to
the graph order the Rust tool takes from the folder listing), landing-page
facts. Generated jobs (folders built here from copies of the shared single
logs) check the cases the Rust tool gets wrong or dies on: duplicate rank
numbers, an empty and a binary rank, a malformed runtime artifact, a rank
whose parse is killed. Expectations are read off the inputs here.

TLPARSE is the binary (it must know --all-ranks-html); TLPARSE_VENV holds
the oracle. Each part skips, saying so, where what it needs is absent.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import tracelog  # noqa: E402

TLPARSE = os.environ.get("TLPARSE", "tlparse")
VENV = os.environ.get("TLPARSE_VENV", "")
RUST = os.path.join(VENV, "bin", "tlparse") if VENV else ""
PREFIX = "dedicated_log_torch_trace_rank_"
BOX = "<div class=\"warning-box\">"
FIXTURES = ["multi_rank_logs", "multi_rank_messy_input",
            "multi_rank_schedule", "collectives_parity"]


def supports_mode():
    try:
        p = subprocess.run([TLPARSE, "--help"], capture_output=True,
                           text=True, timeout=30)
    except OSError:
        return False
    return "all-ranks-html" in p.stdout + p.stderr


HAVE_MODE = supports_mode()
HAVE_RUST = bool(RUST) and os.access(RUST, os.X_OK)
needs_mode = unittest.skipUnless(
    HAVE_MODE, "TLPARSE does not know --all-ranks-html yet: skipped")
needs_fixtures = unittest.skipUnless(
    tracelog.fixture("multi_rank_logs") and tracelog.fixture("simple.log"),
    "shared fixtures folder is absent: skipped")
needs_rust = unittest.skipUnless(
    HAVE_RUST, "the Rust tlparse (TLPARSE_VENV) is absent: skipped")

# Files only we write, each with why (fnmatch-style, as regexes).
ALLOWED_EXTRA = [
    (r"(rank_[^/]+/)?static/.*", "shared static files (style sheet, "
     "highlight.js) instead of inlined ones"),
    (r"rank_[^/]+/help\.html", "the rank report's help page"),
    (r"rank_[^/]+/.*/inductor_output_code_.*\.py",
     "the exact output code beside its highlighted page"),
    (r"rank_[^/]+/provenance_tracking_.*\.json",
     "the provenance join as JSON for scripts"),
    (r"rank_[^/]+/payloads/.*", "payloads/ is left out of the listings"),
]


def run(binary, path, out, *flags):
    return subprocess.run(
        [binary, path, "--all-ranks-html", "-o", out, "--no-browser"] +
        list(flags), capture_output=True, text=True,
        env=dict(os.environ, CI="1"))


def files(root):
    found = set()
    for folder, _, names in os.walk(root):
        for n in names:
            found.add(os.path.relpath(os.path.join(folder, n), root))
    return found


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def by_rank_graph(entries):
    return sorted(entries, key=lambda e: (e["rank"], e["graph"]))


def groups(html, heading):
    """The "Ranks: ..." items of the <ul> after `heading` in the page."""
    at = html.find(heading)
    if at < 0:
        return None
    ul = html[at:html.find("</ul>", at)]
    return re.findall(r"<li>\s*Ranks: ([0-9, ]+)</li>", ul)


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tlparse-mr-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def job(self, name, ranks):
        """A folder `name` with one log per (file name, source) pair:
        a source is a fixture name, or bytes."""
        folder = os.path.join(self.tmp, name)
        os.makedirs(folder)
        for file_name, source in ranks:
            dest = os.path.join(folder, file_name)
            if isinstance(source, bytes):
                with open(dest, "wb") as f:
                    f.write(source)
            else:
                shutil.copyfile(tracelog.fixture(source), dest)
        return folder

    def ours(self, folder, *flags, name="ours"):
        out = os.path.join(self.tmp, name)
        return run(TLPARSE, folder, out, *flags), out


@needs_mode
@needs_fixtures
class Fixtures(Base):
    """The shared multi-rank fixtures, with -i as the listings were made."""

    def run_fixture(self, name):
        folder = tracelog.fixture(name)
        p, out = self.ours(folder, "-i", name="ours_" + name)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p, out

    def test_files_equal_the_listings(self):
        for name in FIXTURES:
            with self.subTest(name):
                _, out = self.run_fixture(name)
                listing = os.path.join(tracelog.FIXTURES, "expected-files",
                                       name + "--all-ranks-html.txt")
                expected = set(text(listing).split())
                got = files(out)
                self.assertEqual(expected - got, set())
                extra = [f for f in got - expected if not any(
                    re.fullmatch(p, f) for p, _ in ALLOWED_EXTRA)]
                self.assertEqual(extra, [])

    def test_stdout_lines(self):
        p, out = self.run_fixture("multi_rank_schedule")
        self.assertEqual(p.stdout.splitlines(), [
            "Processing rank 0 \u2192 %s/rank_0" % out,
            "Processing rank 1 \u2192 %s/rank_1" % out,
            "Processing rank 2 \u2192 %s/rank_2" % out,
            "Collective schedules: %s/collective_schedules.json" % out,
            "Multi-rank report generated under %s" % out,
            "Individual pages: rank_*/index.html"])

    def test_collectives_parity_of_the_spec(self):
        _, out = self.run_fixture("collectives_parity")
        parity = load(os.path.join(out, "rank_0", "collectives_parity.json"))
        self.assertEqual(list(parity), ["description", "graphs"])
        self.assertEqual(parity["graphs"], [
            {"graph": "-_0_0_0", "compile_id": "[0/0]", "offset": 0,
             "missing_waits": 1},
            {"graph": "-_0_1_0", "compile_id": "[0/1]", "offset": 0,
             "missing_waits": 3}])
        trace = load(os.path.join(out, "chromium_trace_with_runtime.json"))
        tids = {e["args"]["graph"]: e["tid"] for e in trace
                if e["ph"] == "X" and e["pid"] == 0}
        self.assertEqual(tids["-_0_1_0"], 3096134113)
        names = [e["args"]["name"] for e in trace
                 if e.get("name") == "thread_name"]
        self.assertEqual(names, sorted(names))
        page = text(os.path.join(out, "index.html"))
        self.assertIn("<strong>Graph -_0_1_0:</strong> 0.0 ms delta "
                      "(Fastest: Rank 0 - 13.859 ms, Slowest: Rank 0 - "
                      "13.859 ms)", page)

    def test_divergences_of_the_spec(self):
        _, out = self.run_fixture("multi_rank_logs")
        page = text(os.path.join(out, "index.html"))
        self.assertIn("Diverging Compilation IDs", page)
        self.assertEqual(groups(page, "Diverging Cache hit/miss"),
                         ["0, 2", "1", "3"])
        self.assertNotIn("collectives_parity.json", page)
        for r in range(4):
            self.assertIn('<a href="rank_%d/index.html">Rank %d</a>' % (r, r),
                          page)
        _, out = self.run_fixture("multi_rank_schedule")
        page = text(os.path.join(out, "index.html"))
        self.assertEqual(groups(page, "Collective operation sequence"),
                         ["0, 2", "1"])
        sched = {(e["rank"], e["graph"]): e["ops"] for e in
                 load(os.path.join(out, "collective_schedules.json"))}
        self.assertEqual([len(sched[(r, "-_0_0_0")]) for r in range(3)],
                         [6, 4, 6])
        self.assertEqual(sched[(0, "-_0_0_0")], sched[(2, "-_0_0_0")])

    def test_combined_events_carry_the_rank(self):
        _, out = self.run_fixture("multi_rank_logs")
        combined = load(os.path.join(out, "chromium_events.json"))
        for r in range(4):
            own = load(os.path.join(out, "rank_%d" % r,
                                    "chromium_events.json"))
            self.assertEqual(sum(e["pid"] == r for e in combined), len(own))
        self.assertEqual(len(combined), sum(
            len(load(os.path.join(out, "rank_%d" % r,
                                  "chromium_events.json")))
            for r in range(4)))

    def test_one_job_at_a_time_writes_the_same(self):
        folder = tracelog.fixture("multi_rank_logs")
        _, one = self.ours(folder, "-j", "1", name="one")
        _, two = self.ours(folder, "-j", "2", name="two")
        for name in ("chromium_events.json", "index.html",
                     "rank_1/compile_directory.json", "rank_3/raw.jsonl"):
            self.assertEqual(text(os.path.join(one, name)),
                             text(os.path.join(two, name)), name)

    @needs_rust
    def test_aggregated_json_equals_rust(self):
        for name in FIXTURES:
            with self.subTest(name):
                self.compare_with_rust(name)

    def compare_with_rust(self, name):
        _, out = self.run_fixture(name)
        rust = os.path.join(self.tmp, "rust_" + name)
        p = run(RUST, tracelog.fixture(name), rust, "-i")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(f for f in os.listdir(out)
                                if f != "static"), sorted(os.listdir(rust)))
        # Byte for byte: the concatenation follows the ranks.
        events = os.path.join(out, "chromium_events.json")
        if os.path.exists(events):
            self.assertEqual(text(events),
                             text(os.path.join(rust, "chromium_events.json")))
        # Rust lists a rank's graphs in folder-listing order; ours by name.
        for f in ("runtime_estimations.json", "collective_schedules.json"):
            if not os.path.exists(os.path.join(rust, f)):
                continue
            theirs = by_rank_graph(load(os.path.join(rust, f)))
            self.assertEqual(text(os.path.join(out, f)), json.dumps(
                theirs, indent=2, ensure_ascii=False))
        trace = os.path.join(rust, "chromium_trace_with_runtime.json")
        if os.path.exists(trace):
            self.compare_runtime_trace(load(os.path.join(
                out, "chromium_trace_with_runtime.json")), load(trace))
        for r in os.listdir(rust):
            if r.startswith("rank_"):
                a = load(os.path.join(out, r, "collectives_parity.json"))
                b = load(os.path.join(rust, r, "collectives_parity.json"))
                key = (lambda g: g["graph"])
                self.assertEqual(a["description"], b["description"])
                self.assertEqual(a["graphs"], sorted(b["graphs"], key=key))
        mine, theirs = (text(os.path.join(d, "index.html"))
                        for d in (out, rust))
        for heading in ("Diverging Cache hit/miss",
                        "Collective operation sequence"):
            g = groups(theirs, heading)
            self.assertEqual(groups(mine, heading),
                             None if g is None else sorted(
                                 g, key=lambda s: int(s.split(",")[0])))
        for fact in ("Diverging Compilation IDs", "Execution-order analysis "
                     "unavailable", "All ranks have matching tensor meta",
                     "Runtime analysis not available", "Chromium Events"):
            self.assertEqual(fact in mine, fact in theirs, fact)
        self.assertEqual(re.findall(r"<p><strong>Graph .*ms\)</p>", mine),
                         re.findall(r"<p><strong>Graph .*ms\)</p>", theirs))

    def compare_runtime_trace(self, mine, theirs):
        def canon(events):
            return sorted(json.dumps(e, sort_keys=True) for e in events
                          if e.get("name") != "thread_sort_index")
        self.assertEqual(canon(mine), canon(theirs))
        # Threads sorted by graph name (Rust: hash order).
        names = {e["tid"]: e["args"]["name"] for e in mine
                 if e.get("name") == "thread_name"}
        order = [names[e["tid"]] for e in mine
                 if e.get("name") == "thread_sort_index"]
        self.assertEqual(order, sorted(order))


@needs_mode
@needs_fixtures
class Generated(Base):
    """Jobs built here from copies of the shared single logs."""

    def ids(self, fixture):
        """The compile folders a log names, read with tracelog."""
        return {tracelog.dir_name(env) for _, env, _ in
                tracelog.records(tracelog.fixture(fixture))
                if "frame_id" in env}

    def test_cache_divergence_between_two_logs(self):
        folder = self.job("mixed", [(PREFIX + "0.log", "simple.log"),
                                    (PREFIX + "1.log", "cache_hit_miss.log")])
        p, out = self.ours(folder)
        self.assertEqual(p.returncode, 0, p.stderr)
        page = text(os.path.join(out, "index.html"))
        self.assertEqual(groups(page, "Diverging Cache hit/miss"), ["0", "1"])
        differ = self.ids("simple.log") != self.ids("cache_hit_miss.log")
        self.assertEqual("Diverging Compilation IDs" in page, differ)

    def test_equal_logs_do_not_diverge(self):
        for log in ("simple.log", "cache_hit_miss.log"):
            with self.subTest(log):
                folder = self.job("same_" + log, [(PREFIX + "0.log", log),
                                                  (PREFIX + "1.log", log)])
                p, out = self.ours(folder, name="out_" + log)
                self.assertEqual(p.returncode, 0, p.stderr)
                page = text(os.path.join(out, "index.html"))
                self.assertNotIn(BOX, page)
                self.assertIn("All ranks have matching tensor meta", page)

    def test_two_files_of_one_rank_are_kept_apart(self):
        odd = PREFIX + "0_<img src=x>.log"
        folder = self.job("dup", [(PREFIX + "0.log", "simple.log"),
                                  (odd, "cache_hit_miss.log"),
                                  (PREFIX + "1.log", "simple.log")])
        p, out = self.ours(folder)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(text(os.path.join(out, "rank_0", "raw.log")),
                         text(tracelog.fixture("simple.log")))
        self.assertEqual(text(os.path.join(out, "rank_0-2", "raw.log")),
                         text(tracelog.fixture("cache_hit_miss.log")))
        line = [l for l in p.stderr.splitlines() if odd in l]
        self.assertEqual(len(line), 1, p.stderr)
        self.assertIn(PREFIX + "0.log", line[0])
        self.assertIn("rank_0-2/", line[0])
        self.assertIn("Processing rank 0 \u2192 %s/rank_0-2" % out,
                      p.stdout.splitlines())
        page = text(os.path.join(out, "index.html"))
        self.assertIn('<a href="rank_0-2/index.html">Rank 0</a>', page)
        self.assertIn("&lt;img src=x&gt;", page)
        self.assertNotIn("<img", page)
        # Only the first file of rank 0 is aggregated: equal logs, no
        # divergence, and rank 0's events once.
        self.assertNotIn(BOX, page)
        combined = load(os.path.join(out, "chromium_events.json"))
        own = load(os.path.join(out, "rank_0", "chromium_events.json"))
        self.assertEqual(sum(e["pid"] == 0 for e in combined), len(own))

    def test_empty_and_binary_ranks(self):
        garbage = bytes(range(256)) * 40
        folder = self.job("bad", [(PREFIX + "0.log", "simple.log"),
                                  (PREFIX + "1.log", b""),
                                  (PREFIX + "2.log", garbage)])
        p, out = self.ours(folder, "-j", "3")
        self.assertEqual(p.returncode, 0, p.stderr)
        for r in range(3):
            self.assertTrue(os.path.exists(os.path.join(
                out, "rank_%d" % r, "index.html")))
            self.assertTrue(os.path.exists(os.path.join(
                out, "rank_%d" % r, "collectives_parity.json")))
        self.assertEqual(load(os.path.join(out, "rank_1",
                                           "compile_directory.json")), {})
        bad = [l for l in p.stderr.splitlines() if PREFIX + "2.log" in l]
        self.assertEqual(len(bad), 1, p.stderr)
        self.assertIn("not a glog line", bad[0])
        page = text(os.path.join(out, "index.html"))
        self.assertIn("Diverging Compilation IDs", page)
        # The empty and the binary rank have no artifacts, so no cache
        # markers; simple.log has some.
        simple = text(tracelog.fixture("simple.log"))
        marked = any(k in simple for k in ("_cache_miss", "_cache_hit",
                                           "_cache_bypass"))
        self.assertEqual(groups(page, "Diverging Cache hit/miss"),
                         ["0", "1, 2"] if marked else None)

    def test_malformed_runtime_artifact_is_left_out(self):
        log = tracelog.fixture("collectives_parity/" + PREFIX + "0.log")
        with open(log, encoding="utf-8") as f:
            lines = f.read().split("\n")
        at = next(i for i, l in enumerate(lines)
                  if "inductor_runtime_and_tensor_meta" in l)
        end = at + 1
        while lines[end].startswith("\t"):
            end += 1
        broken = lines[:at + 1] + ['\t{"ops": "not a list"}'] + lines[end:]
        folder = self.job("runtime", [
            (PREFIX + "0.log", "collectives_parity/" + PREFIX + "0.log"),
            (PREFIX + "1.log", "\n".join(broken).encode())])
        p, out = self.ours(folder)
        self.assertEqual(p.returncode, 0, p.stderr)
        bad = [l for l in p.stderr.splitlines() if "no \"ops\" array" in l]
        self.assertEqual(len(bad), 1, p.stderr)
        self.assertIn(PREFIX + "1.log", bad[0])
        self.assertIn("rank_1/-_0_0_0/inductor_runtime_and_tensor_meta_", bad[0])
        est = load(os.path.join(out, "runtime_estimations.json"))
        graphs = [(e["rank"], e["graph"]) for e in est]
        self.assertEqual(graphs, [(0, "-_0_0_0"), (0, "-_0_1_0"),
                                  (0, "-_0_2_0"), (0, "-_0_3_0"),
                                  (1, "-_0_1_0"), (1, "-_0_2_0"),
                                  (1, "-_0_3_0")])
        page = text(os.path.join(out, "index.html"))
        self.assertIn("Runtime analysis not available", page)
        self.assertEqual(groups(page, "Groups with identical signatures"),
                         ["0", "1"])
        self.assertNotIn(BOX, page)  # tensor meta alone: no box

    def test_a_killed_rank_is_reported_and_the_rest_written(self):
        big = "multi_rank_logs/" + PREFIX + "1.log"
        folder = self.job("killed", [(PREFIX + "0.log", "simple.log"),
                                     (PREFIX + "1.log", big)])
        out = os.path.join(self.tmp, "ours")
        limit = os.path.getsize(tracelog.fixture(big)) // 1024 // 2
        p = subprocess.run(
            ["sh", "-c", 'ulimit -f %d && exec "$@"' % limit, "sh", TLPARSE,
             folder, "--all-ranks-html", "-o", out, "--no-browser"],
            capture_output=True, text=True, env=dict(os.environ, CI="1"))
        self.assertEqual(p.returncode, 1, p.stderr)
        line = [l for l in p.stderr.splitlines() if "crashed" in l]
        self.assertEqual(len(line), 1, p.stderr)
        self.assertIn(PREFIX + "1.log", line[0])
        page = text(os.path.join(out, "index.html"))
        self.assertIn('<a href="rank_0/index.html">Rank 0</a>', page)
        self.assertIn("failed: its parse crashed", page)
        self.assertEqual(text(os.path.join(out, "rank_0", "raw.log")),
                         text(tracelog.fixture("simple.log")))

    def test_checks_come_before_any_output(self):
        folder = self.job("none", [("another.log", "simple.log"),
                                   (PREFIX + "x.log", "simple.log"),
                                   (PREFIX + "5.txt", "simple.log")])
        out = os.path.join(self.tmp, "out")
        cases = [
            ([folder, "--latest"], "--latest cannot be used with "
             "--all-ranks-html"),
            ([folder, "-e"], "cannot be used with --all-ranks-html"),
            ([tracelog.fixture("simple.log")], "must be a directory when "
             "using --all-ranks-html"),
            ([folder], "No rank log files found in directory " + folder),
        ]
        for args, message in cases:
            with self.subTest(message):
                p = subprocess.run(
                    [TLPARSE] + args + ["--all-ranks-html", "-o", out,
                                        "--no-browser"],
                    capture_output=True, text=True)
                self.assertEqual(p.returncode, 1)
                self.assertIn(message, p.stderr)
                self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
