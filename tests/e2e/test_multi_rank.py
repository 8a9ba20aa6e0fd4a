"""--all-ranks-html end to end (docs/multi-rank.md).

The four shared multi-rank fixtures are run with ours and, where it is
installed, the Rust tlparse 0.4.3: file names against the expected-files
listings, every aggregated JSON against the Rust one (equal, or equal up to
the graph order the Rust tool takes from the folder listing), the landing
page's findings. GeneratedAgainstRust does the same on jobs written by
multirank_gen.py (3 to 8 ranks whose compiles, cache hits, schedules,
runtime estimates, tensor meta and execution orders differ; seeds 0 to
TLPARSE_MR_SEEDS-1, default 12) and on examples/rec-gloo-2rank, comparing
every file name with the same allow-list. UpstreamPorts runs the Rust
tool's multi-rank tests as command lines on generated inputs, with exact
texts. Generated (folders built from copies of the shared single logs)
checks the cases the Rust tool gets wrong or dies on: duplicate rank
numbers, an empty and a binary rank, a malformed runtime artifact, a rank
whose parse is killed. Expectations are read off the inputs here.

TLPARSE is the binary (it must know --all-ranks-html); TLPARSE_VENV holds
the oracle. Each part skips, saying so, where what it needs is absent.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import multirank_gen as gen  # noqa: E402
import tracelog  # noqa: E402

TLPARSE = os.environ.get("TLPARSE", "tlparse")
VENV = os.environ.get("TLPARSE_VENV", "")
RUST = os.path.join(VENV, "bin", "tlparse") if VENV else ""
PREFIX = "dedicated_log_torch_trace_rank_"
BOX = "<div class=\"warning-box\">"
FIXTURES = ["multi_rank_logs", "multi_rank_messy_input",
            "multi_rank_schedule", "collectives_parity"]


def child_reading(parent, path):
    """The pid of a child of `parent` that has `path` open or mapped, or
    None."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                # pid (comm) state ppid ...: comm may hold spaces.
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != parent:
                continue
            fds = "/proc/%s/fd" % pid
            if any(os.readlink(os.path.join(fds, fd)) == path
                   for fd in os.listdir(fds)):
                return int(pid)
            with open("/proc/%s/maps" % pid) as f:
                if any(line.rstrip("\n").endswith(" " + path)
                       for line in f):
                    return int(pid)
        except (OSError, ValueError, IndexError):
            continue  # it ended meanwhile
    return None


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
    (r"rank_[^/]+/recompile_.*\.(html|json)", "what changed from one compile "
     "of a frame to the next (the index's Recompiles section)"),
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


# The landing page's statements that carry a finding, compared with the
# Rust page's: explanatory paragraphs are paraphrased, so only these count.
FINDINGS = ("<strong>Warning:", "<strong>Graph ",
            "Runtime analysis not available",
            "Execution-order analysis unavailable", "execution order",
            "Consistent across ranks", "tensor meta", "Collective operation "
            "sequence groups")


def findings(html):
    """The page's findings in order: each <p> that states one (whitespace
    collapsed), and each <ul> of "Ranks: ..." groups, ordered by lowest rank
    (Rust: hash order)."""
    body = html[html.find("<body"):]
    out = []
    for m in re.finditer(r"<p>(.*?)</p>|<ul>(.*?)</ul>", body, re.S):
        if m.group(1) is not None:
            t = " ".join(m.group(1).split())
            if any(k in t for k in FINDINGS) or t.startswith("This report"):
                # Its explanation is paraphrased: up to the reason.
                cut = t.find("compiled graphs")
                out.append(t[:cut + 15] if "not available" in t and cut > 0
                           else t)
        else:
            g = re.findall(r"<li>\s*Ranks: ([0-9, ]+)</li>", m.group(2))
            if g:
                out.append(sorted(g, key=lambda s: int(s.split(",")[0])))
    return out


def compare_with_rust(case, out, rust):
    """Our --all-ranks-html folder `out` against Rust's `rust` on one input:
    top-level names, every aggregated JSON file (up to the graph order Rust
    takes from the folder listing), each rank's collectives_parity.json,
    and the landing page's findings."""
    case.assertEqual(sorted(f for f in os.listdir(out) if f != "static"),
                     sorted(os.listdir(rust)))
    # Byte for byte: the concatenation follows the ranks.
    events = os.path.join(out, "chromium_events.json")
    if os.path.exists(events):
        case.assertEqual(text(events),
                         text(os.path.join(rust, "chromium_events.json")))
    # Rust lists a rank's graphs in folder-listing order; ours by name.
    for f in ("runtime_estimations.json", "collective_schedules.json"):
        if not os.path.exists(os.path.join(rust, f)):
            continue
        theirs = by_rank_graph(load(os.path.join(rust, f)))
        case.assertEqual(text(os.path.join(out, f)), json.dumps(
            theirs, indent=2, ensure_ascii=False), f)
    trace = os.path.join(rust, "chromium_trace_with_runtime.json")
    if os.path.exists(trace):
        compare_runtime_trace(case, load(os.path.join(
            out, "chromium_trace_with_runtime.json")), load(trace))
    for r in os.listdir(rust):
        if r.startswith("rank_"):
            a = load(os.path.join(out, r, "collectives_parity.json"))
            b = load(os.path.join(rust, r, "collectives_parity.json"))
            case.assertEqual(a["description"], b["description"])
            case.assertEqual(a["graphs"], sorted(
                b["graphs"], key=lambda g: g["graph"]), r)
    mine, theirs = (findings(text(os.path.join(d, "index.html")))
                    for d in (out, rust))
    if not same_graph_names(out):
        # Rust pairs the i-th graph of each rank in folder-listing order,
        # ours in name order; where the ranks' graph names differ the
        # pairing (so the "ms delta" lines) has no right answer.
        mine, theirs = ([f for f in x if not str(f).startswith(
            "<strong>Graph ")] for x in (mine, theirs))
    case.assertEqual(mine, theirs)
    return mine


def same_graph_names(out):
    path = os.path.join(out, "runtime_estimations.json")
    if not os.path.exists(path):
        return True
    names = {}
    for e in load(path):
        names.setdefault(e["rank"], []).append(e["graph"])
    return len({tuple(v) for v in names.values()}) <= 1


def compare_runtime_trace(case, mine, theirs):
    def canon(events):
        return sorted(json.dumps(e, sort_keys=True) for e in events
                      if e.get("name") != "thread_sort_index")
    case.assertEqual(canon(mine), canon(theirs))
    # Each rank's threads sorted by graph name (Rust: hash order).
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in mine
             if e.get("name") == "thread_name"}
    for pid in {p for p, _ in names}:
        order = sorted((e["args"]["sort_index"], names[(pid, e["tid"])])
                       for e in mine if e.get("name") == "thread_sort_index"
                       and e["pid"] == pid)
        case.assertEqual([n for _, n in order], sorted(n for _, n in order))


def compare_file_names(case, out, rust):
    """Every file Rust writes, we write; ours beyond it are allowed."""
    got, expected = files(out), files(rust)
    case.assertEqual(expected - got, set())
    case.assertEqual([f for f in sorted(got - expected) if not any(
        re.fullmatch(p, f) for p, _ in ALLOWED_EXTRA)], [])


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
            # Each rank's own index links the parity file beside it (the
            # upstream test_all_ranks_basic).
            rank_index = text(os.path.join(out, "rank_%d" % r, "index.html"))
            self.assertIn('<a href="collectives_parity.json">Collectives '
                          'Parity report</a>', rank_index)
            self.assertTrue(os.path.exists(os.path.join(
                out, "rank_%d" % r, "collectives_parity.json")))
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
                _, out = self.run_fixture(name)
                rust = os.path.join(self.tmp, "rust_" + name)
                p = run(RUST, tracelog.fixture(name), rust, "-i")
                self.assertEqual(p.returncode, 0, p.stderr)
                compare_with_rust(self, out, rust)


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

    def test_a_progress_line_per_rank_on_a_terminal_only(self):
        folder = self.job("progress", [(PREFIX + "%d.log" % r, "simple.log")
                                       for r in (0, 1, 2)])
        # stderr a terminal: one line per finished rank, in finishing order.
        import pty
        leader, follower = pty.openpty()
        out = os.path.join(self.tmp, "tty")
        p = subprocess.Popen([TLPARSE, folder, "--all-ranks-html", "-o", out,
                              "--no-browser"], stdout=subprocess.PIPE,
                             stderr=follower, env=dict(os.environ, CI="1"))
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
        p.communicate()
        os.close(leader)
        self.assertEqual(p.returncode, 0, seen)
        lines = seen.decode().replace("\r\n", "\n").splitlines()
        progress = sorted(l for l in lines if l.startswith("tlparse: ["))
        self.assertEqual(sorted(re.sub(r"\[\d/3\]", "[k/3]", l)
                                for l in progress),
                         ["tlparse: [k/3] rank %d done" % r for r in (0, 1, 2)])
        self.assertEqual(sorted(l[9:14] for l in progress),
                         ["[1/3]", "[2/3]", "[3/3]"])
        # Not a terminal: no progress lines.
        r, _ = self.ours(folder, name="pipe")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("tlparse: [", r.stderr)

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
        # Rank 1's process is killed (as the kernel's OOM killer would)
        # while it reads its log: ten copies of the big fixture, so that it
        # runs long enough to be found. The test finds it as the child of
        # tlparse that has that log open or mapped.
        folder = self.job("killed", [(PREFIX + "0.log", "simple.log")])
        big = os.path.join(folder, PREFIX + "1.log")
        with open(tracelog.fixture("multi_rank_logs/" + PREFIX + "1.log"),
                  "rb") as f:
            data = f.read()
        with open(big, "wb") as f:
            for _ in range(10):
                f.write(data)
        out = os.path.join(self.tmp, "ours")
        p = subprocess.Popen(
            [TLPARSE, folder, "--all-ranks-html", "-o", out, "--no-browser"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, CI="1"))
        killed = None
        while killed is None and p.poll() is None:
            killed = child_reading(p.pid, big)
        self.assertIsNotNone(killed, "rank 1 ended before it was found")
        os.kill(killed, signal.SIGKILL)
        _, err = p.communicate()
        self.assertEqual(p.returncode, 1, err)
        self.assertEqual([l for l in err.splitlines() if "crashed" in l], [
            "tlparse: %s: rank 1: its parse crashed (signal 9, Killed); its "
            "partial report is left out" % big])
        page = text(os.path.join(out, "index.html"))
        self.assertIn('<a href="rank_0/index.html">Rank 0</a>', page)
        self.assertIn("failed: its parse crashed", page)
        self.assertEqual(sorted(os.listdir(out)),
                         ["chromium_events.json", "index.html", "rank_0",
                          "static"])
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


EXAMPLES = os.path.normpath(os.path.join(os.path.dirname(__file__), "..",
                                         "..", "examples"))
SEEDS = int(os.environ.get("TLPARSE_MR_SEEDS", "12"))


@needs_mode
@needs_rust
class GeneratedAgainstRust(Base):
    """Jobs written by multirank_gen (3 to 8 ranks; compiles, cache hits and
    misses, schedules, runtime estimates, tensor meta and execution orders
    that differ across ranks) and the real 2-rank gloo recording: every file
    name, every aggregated JSON file and the landing page's findings
    against the Rust tool's, with the fixtures' allow-list."""

    def both(self, folder, *flags, tag="job"):
        p, out = self.ours(folder, *flags, name="ours_" + tag)
        self.assertEqual(p.returncode, 0, p.stderr)
        rust = os.path.join(self.tmp, "rust_" + tag)
        q = run(RUST, folder, rust, *flags)
        self.assertEqual(q.returncode, 0, q.stderr)
        compare_file_names(self, out, rust)
        return compare_with_rust(self, out, rust)

    def test_random_jobs(self):
        seen = set()
        for seed in range(SEEDS):
            with self.subTest(seed=seed):
                folder = gen.write_job(os.path.join(self.tmp, "j%d" % seed),
                                       gen.random_job(seed))
                flags = ("-i",) if seed % 3 == 0 else ()
                for f in self.both(folder, *flags, tag=str(seed)):
                    seen.add(f if isinstance(f, str) else "groups")
        # The seeds reach every kind of finding (else the test is weaker
        # than it reads): a change of generator must keep them all.
        for fact in ("Diverging Compilation IDs", "Diverging Cache hit/miss",
                     "Diverging collective operation", "ms delta",
                     "Runtime analysis not available",
                     "Graph execution order differs",
                     "Graph execution order: consistent",
                     "Schedule mismatch across ranks",
                     "Cache hit/miss mismatch across ranks",
                     "Ranks exhibit divergent inductor tensor metadata"):
            if SEEDS >= 12:
                self.assertTrue(any(fact in f for f in seen), fact)

    def test_gloo_recording(self):
        folder = os.path.join(EXAMPLES, "rec-gloo-2rank")
        if not os.path.isdir(folder):
            self.skipTest("examples/rec-gloo-2rank is absent")
        for flags in ((), ("-i",)):
            with self.subTest(flags=flags):
                facts = self.both(folder, *flags, tag="gloo%d" % len(flags))
                self.assertIn("This report contains TLParse links from "
                              "<strong>2</strong> rank(s). Click on any "
                              "rank below to view its detailed compilation "
                              "report.", facts)


def job(case, name, ranks):
    return gen.write_job(os.path.join(case.tmp, name), ranks)


def compile_(frame, attempt=0, runtime=None, schedule=None, cache="miss",
             shape=None):
    """Compile `frame`/`attempt` (its compile id) of one rank."""
    return {"frame": frame, "attempt_of": attempt, "cache": cache,
            "schedule": schedule, "runtime": runtime,
            "shape": shape or [4, 4]}


def ms(ns):
    """Rounded half away from zero to 3 decimals, printed as Rust's f64."""
    from decimal import Decimal, ROUND_HALF_UP
    v = float(Decimal(repr(ns / 1e6)).quantize(Decimal("0.001"),
                                                 ROUND_HALF_UP))
    return repr(v)


AR = gen.COLLECTIVES[0]
AG = gen.COLLECTIVES[1]


@needs_mode
class UpstreamPorts(Base):
    """The Rust tool's multi-rank integration tests, as command lines on
    generated inputs; each expected text is computed from the input here,
    and, where the Rust tool is installed, the page's findings are also
    compared with its page on the same input."""

    def page(self, folder, tag):
        p, out = self.ours(folder, name="ours_" + tag)
        self.assertEqual(p.returncode, 0, p.stderr)
        html = text(os.path.join(out, "index.html"))
        if HAVE_RUST:
            rust = os.path.join(self.tmp, "rust_" + tag)
            q = run(RUST, folder, rust)
            self.assertEqual(q.returncode, 0, q.stderr)
            compare_with_rust(self, out, rust)
        return html

    def test_runtime_analysis_with_several_ranks(self):
        ns = {0: (1_000_000, 2_500_000.5), 1: (1_250_000, 2_000_000.0),
              2: (999_999.4, 2_500_000.5), 3: (3_000_000, 2_000_000.0)}
        ranks = {r: {"compiles": [
            compile_(0, runtime=[("extern_kernels.mm", a),
                                 ("triton_poi_0", 500)]),
            compile_(1, runtime=[("extern_kernels.bmm", b)])]}
            for r, (a, b) in ns.items()}
        html = self.page(job(self, "rt", ranks), "rt")
        for i, graph in enumerate(("-_0_0_0", "-_1_0_0")):
            totals = {r: (v[0] + 500 if i == 0 else v[1])
                      for r, v in ns.items()}
            lo, hi = min(totals.values()), max(totals.values())
            fast = max(r for r in totals if totals[r] == lo)
            slow = max(r for r in totals if totals[r] == hi)
            self.assertIn(
                "<p><strong>Graph %s:</strong> %s ms delta (Fastest: Rank %d "
                "- %s ms, Slowest: Rank %d - %s ms)</p>"
                % (graph, ms(hi - lo), fast, ms(lo), slow, ms(hi)), html)
        self.assertIn("<p><strong>Graph -_0_0_0:</strong> 2.0 ms delta "
                      "(Fastest: Rank 2 - 1.0 ms, Slowest: Rank 3 - 3.001 "
                      "ms)</p>", html)
        self.assertNotIn("Runtime analysis not available", html)

    def test_runtime_analysis_not_available_on_different_graph_counts(self):
        ranks = {r: {"compiles": [
            compile_(f, runtime=[("extern_kernels.mm", 1000.0 * (r + 1))])
            for f in range(3 if r == 2 else 2)]} for r in range(4)}
        html = self.page(job(self, "rtn", ranks), "rtn")
        self.assertIn("<strong>Runtime analysis not available:</strong> "
                      "Ranks have different numbers of compiled graphs",
                      html)
        self.assertNotIn("ms delta", html)

    def test_tensor_meta_groups(self):
        # Ranks 0-4 each estimate differently (the fingerprint includes the
        # numbers); 5 and 6 agree with each other, not with the rest.
        ranks = {r: {"compiles": [compile_(
            0, runtime=[("extern_kernels.mm", 100.0 * min(r, 5))],
            shape=[8, 4] if r >= 5 else None)]} for r in range(7)}
        html = self.page(job(self, "tm", ranks), "tm")
        self.assertIn("Ranks exhibit divergent inductor tensor metadata "
                      "across graphs. Groups with identical signatures:",
                      " ".join(html.split()))
        self.assertEqual(groups(html, "Groups with identical signatures"),
                         ["0", "1", "2", "3", "4", "5, 6"])
        self.assertNotIn(BOX, html)  # tensor meta alone: no box
        same = {r: {"compiles": [compile_(0, runtime=[("k", 5.0)])]}
                for r in range(3)}
        html = self.page(job(self, "tm_same", same), "tm_same")
        self.assertIn("<p>All ranks have matching tensor meta signatures "
                      "across graphs.</p>", " ".join(html.split())
                      .replace("<p> ", "<p>").replace(" </p>", "</p>"))

    # The execution-order case of the Rust unit test: r0 runs [0/0, 0/1,
    # 0/2], r1 runs [0/1, 0/0, 0/2]. Row 0 compares r0's 0/0 with r1's 0/1:
    # schedules differ, both cache misses. Row 1 compares r0's 0/1 with
    # r1's 0/0: same schedule, a hit against a miss. Row 2: 0/2 on both.
    ROWS = {
        0: [compile_(0, 0, schedule=[AR], cache="miss"),
            compile_(0, 1, schedule=[AG], cache="hit"),
            compile_(0, 2, schedule=[AR], cache="miss")],
        1: [compile_(0, 0, schedule=[AG], cache="miss"),
            compile_(0, 1, schedule=[AG, AR], cache="miss"),
            compile_(0, 2, schedule=[AR], cache="miss")],
    }

    def order_page(self, tag, orders):
        ranks = {r: {"compiles": self.ROWS[r], "order": o}
                 for r, o in orders.items()}
        html = self.page(job(self, tag, ranks), tag)
        at = html.find("<h3>Graph Execution-Order Diagnostics</h3>")
        end = html.find("<h3>", at + 1)
        self.assertGreater(at, 0)
        return [" ".join(p.split()) for p in
                re.findall(r"<p>(.*?)</p>", html[at:end], re.S)][1:]

    def test_execution_order_three_rows(self):
        both = "Rank 0, Rank 1"
        cases = [
            ("all", {0: ["0/0", "0/1", "0/2"], 1: ["0/1", "0/0", "0/2"]},
             ["Graph execution order differs across ranks.",
              "<strong>Warning:</strong> Schedule mismatch across ranks: "
              + both,
              "<strong>Warning:</strong> Cache hit/miss mismatch across "
              "ranks: " + both]),
            ("row0", {0: ["0/0"], 1: ["0/1"]},
             ["Graph execution order differs across ranks.",
              "<strong>Warning:</strong> Schedule mismatch across ranks: "
              + both, "Cache hit/miss sequence: Consistent across ranks."]),
            ("row1", {0: ["0/1"], 1: ["0/0"]},
             ["Graph execution order differs across ranks.",
              "Collectives Schedule: Consistent across ranks.",
              "<strong>Warning:</strong> Cache hit/miss mismatch across "
              "ranks: " + both]),
            ("row2", {0: ["0/2"], 1: ["0/2"]},
             ["Graph execution order: consistent across ranks.",
              "Collectives Schedule: Consistent across ranks.",
              "Cache hit/miss sequence: Consistent across ranks."]),
            ("one", {0: ["0/0", "0/1"], 1: None},
             ["Execution-order analysis unavailable."]),
        ]
        for tag, orders, expected in cases:
            with self.subTest(tag):
                self.assertEqual(self.order_page(tag, orders), expected)

    # An empty schedule artifact (`[]`) is no schedule, as in the Rust tool
    # (which reads collective_schedules.json, where empty ones are left
    # out): [AR] against [] is no mismatch. Seeds 15 and 39 of
    # test_random_jobs once hit it.
    def test_an_empty_schedule_is_no_schedule(self):
        ranks = {0: {"compiles": [compile_(0, schedule=[AR])],
                     "order": ["0/0"]},
                 1: {"compiles": [compile_(0, schedule=[])],
                     "order": ["0/0"]},
                 2: {"compiles": [compile_(0)], "order": ["0/0"]}}
        html = self.page(job(self, "empty_sched", ranks), "empty_sched")
        self.assertIn("<p>Collectives Schedule: Consistent across ranks.</p>",
                      " ".join(html.split()).replace("<p> ", "<p>")
                      .replace(" </p>", "</p>"))

    def test_order_differs_with_consistent_cache(self):
        # As tests/graph_exec_order_tests upstream: the order differs, the
        # cache sequence agrees, a schedule mismatch is reported.
        comps = [compile_(0, schedule=[AR]), compile_(1, schedule=[AG])]
        ranks = {0: {"compiles": comps, "order": ["0/0", "1/0"]},
                 1: {"compiles": comps, "order": ["1/0", "0/0"]}}
        html = self.page(job(self, "geo", ranks), "geo")
        self.assertIn("Graph execution order differs across ranks", html)
        self.assertIn("Cache hit/miss sequence: Consistent across ranks",
                      html)
        self.assertNotIn("Cache hit/miss mismatch", html)
        self.assertIn("<strong>Warning:</strong> Schedule mismatch across "
                      "ranks: Rank 0, Rank 1", html)
        self.assertNotIn(BOX, html)


if __name__ == "__main__":
    unittest.main()
