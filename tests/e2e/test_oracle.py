"""The Rust tlparse 0.4.3 as an oracle (single-log parity issue, item 9).

Runs it and ours on the same log with the same flags (tests/e2e/oracle.py)
and asserts that every difference is one of oracle.ALLOWED, the one
allow-list of the differences we make on purpose, each with its reason; each
test also asserts that every entry of the list it is named for still
explains a difference. Compared: the file names, raw.jsonl line by line,
every other file both write that is not HTML (payloads/, the compile
folders' .txt and .json, raw.log, compile_directory.json,
chromium_events.json) byte for byte, and whether the exit code is 0.

Inputs: every shared single-log fixture and the torch 2.14.1 and 2.15.0
recordings of examples/ with each flag set of FLAG_SETS, and
logs written here: the generator's shapes (tests/tracegen), random logs
(payloads with empty lines, trailing spaces, CRLF line ends and, in some,
blank lines whose tab was stripped) and small logs with the cases the Rust
tool's --strict and --strict-compile-id decide on. Skips, saying so, where
the Rust tool or the fixtures are absent.
"""

import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import oracle  # noqa: E402
import tracelog  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "tracegen", "gen_trace.py")
EXAMPLES = os.path.normpath(os.path.join(HERE, "..", "..", "examples"))

FLAG_SETS = [[], ["-i"], ["-p"], ["--strict"], ["--strict-compile-id"]]

def single_log_fixtures():
    listings = os.path.join(tracelog.FIXTURES, "expected-files")
    names = sorted(n[:-len(".txt")] for n in os.listdir(listings)
                   if "--" not in n)
    stems = {os.path.splitext(f)[0]: f for f in os.listdir(tracelog.FIXTURES)
             if os.path.isfile(os.path.join(tracelog.FIXTURES, f))}
    return [os.path.join(tracelog.FIXTURES, stems[n]) for n in names]


PREFIX = "V1206 15:18:20.252000 1500233 torch/_dynamo/x.py:12] "
IDS = '"frame_id": 0, "frame_compile_id": 0, "attempt": 0'


def entry(body, payload=None, ids=IDS, md5=None):
    """One glog entry with a tab-prefixed payload, as torch writes it."""
    fields = [body] + ([ids] if ids else [])
    if payload is not None:
        digest = md5 or hashlib.md5(payload.encode()).hexdigest()
        fields.append('"has_payload": "%s"' % digest)
    text = PREFIX + "{" + ", ".join(fields) + "}\n"
    if payload is not None:
        text += "".join("\t" + l + "\n" for l in payload.split("\n"))
    return text


# Small logs on which the strict modes decide (name -> text). Each passes
# or fails in the Rust tool for the reason in its name.
STRICT_CASES = {
    "clean": entry('"dynamo_output_graph": {}', "graph")
    + entry('"artifact": {"name": "a", "encoding": "json"}', '{"b": 1}'),
    "md5_mismatch": entry('"dynamo_output_graph": {}', "graph",
                          md5="0" * 32),
    "not_glog": entry('"dynamo_output_graph": {}', "graph")
    + "this line is not a glog line\n",
    "bad_envelope_json": entry('"dynamo_output_graph": {}', "graph")
    + PREFIX + '{"dynamo_output_graph": {\n',
    "other_rank": entry('"dynamo_output_graph": {}', "g", ids=IDS + ', "rank": 0')
    + entry('"dynamo_output_graph": {}', "h", ids=IDS + ', "rank": 1'),
    "unreadable_compile_id": entry('"dynamo_output_graph": {}', "graph",
                                   ids='"frame_id": -1, "frame_compile_id": 0'),
    "no_compile_id": entry('"dynamo_output_graph": {}', "graph", ids=None)
    + entry('"chromium_event": {}', '{"ph": "i", "ts": 1733527214084600.2}',
            ids=None),
    "unknown_kind": entry('"brand_new_kind": {}', "payload of a new kind"),
    "artifact_without_encoding": entry('"artifact": {"name": "a"}', "x"),
    "key_conflict": entry('"dynamo_output_graph": {}, "lineno": 3', "graph"),
}


# Numbers as torch and hostile writers print them: each must come out of
# raw.jsonl and chromium_events.json as serde_json prints it.
NUMBERS = ["0", "7", "-3", "1.5", "100.0", "1E5", "1e-7", "-0.0", "0.1",
           "1733527214084600.2", "18446744073709551615",
           "18446744073709551616", "12345678.9", "2.5e300", "123456789012"]
WORDS = ["x", "relu", "caf\u00e9", "\u2192", "a\"b", "tab\there", "<b>",
         "back\\slash", "  spaced  "]


def random_text(rng):
    """One to four lines of words, some with trailing spaces or a tab, some
    empty (torch writes an empty payload line as a lone tab), and now and
    then a final newline (a last line that is empty)."""
    lines = []
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.25:
            lines.append("")
            continue
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 4))]
        lines.append(" ".join(words) + rng.choice(["", " ", "  ", "\t"]))
    if rng.random() < 0.2:
        lines.append("")
    return "\n".join(lines)


def random_value(rng, depth=0):
    pick = rng.randrange(6 if depth < 3 else 3)
    if pick == 0:
        return rng.choice(NUMBERS)
    if pick == 1:
        return json.dumps(rng.choice(WORDS), ensure_ascii=rng.random() < 0.5)
    if pick == 2:
        return rng.choice(["true", "false", "null"])
    if pick == 3:
        return "[" + ", ".join(random_value(rng, depth + 1)
                               for _ in range(rng.randint(0, 3))) + "]"
    keys = rng.sample(["b", "a", "zz", "key", "a", "\u00e9"], rng.randint(0, 3))
    return "{" + ", ".join('"%s": %s' % (k, random_value(rng, depth + 1))
                           for k in keys) + "}"


def random_log(seed, entries=40, crlf=False, stripped=False):
    """A log of real entry kinds in random order, random ids and payloads.
    With crlf, every line ends in CRLF; with stripped, the lone tab of each
    empty payload line is removed, as an editor that strips trailing
    whitespace does (the one case where the tools differ on purpose: see
    oracle.ALLOWED)."""
    text = random_entries(seed, entries)
    if stripped:
        text = re.sub(r"(?m)^\t$", "", text)
    return text.replace("\n", "\r\n") if crlf else text


def random_entries(seed, entries):
    rng = random.Random(seed)
    out = []
    strings = 0
    for _ in range(entries):
        frame = rng.randrange(3)
        ids = rng.choice([
            '"frame_id": %d, "frame_compile_id": 0, "attempt": %d'
            % (frame, rng.randrange(2)),
            '"frame_id": %d, "frame_compile_id": 1' % frame,
            '"compiled_autograd_id": 0, "frame_id": %d, "frame_compile_id": 0'
            % frame, None])
        kind = rng.randrange(15)
        if kind == 0:
            out.append(entry('"str": ["/src/m%d.py", %d]' % (strings, strings),
                             ids=None))
            strings += 1
        elif kind == 1:
            stack = ", ".join('{"line": %d, "name": "f%d", "filename": %d}'
                              % (rng.randrange(99), i, rng.randrange(4))
                              for i in range(rng.randint(1, 4)))
            out.append(entry('"dynamo_start": {"stack": [%s]}' % stack,
                             ids=ids))
        elif kind == 2:
            out.append(entry('"dynamo_output_graph": {"sizes": {"l_x_": [%d]}}'
                             % rng.randrange(64), random_text(rng), ids=ids))
        elif kind == 3:
            out.append(entry('"artifact": {"name": "%s", "encoding": "json"}'
                             % rng.choice(["fx_graph_cache_miss",
                                           "fx_graph_cache_hit", "meta",
                                           "aotautograd_cache_bypass"]),
                             random_value(rng), ids=ids))
        elif kind == 4:
            out.append(entry('"artifact": {"name": "note", "encoding": '
                             '"string"}', random_text(rng), ids=ids))
        elif kind == 5:
            out.append(entry('"chromium_event": {}', '{"ph": "B", "ts": %s, '
                             '"args": %s, "name": "n"}'
                             % (rng.choice(NUMBERS), random_value(rng)),
                             ids=ids))
        elif kind == 6:
            out.append(entry('"compilation_metrics": {"graph_op_count": %s, '
                             '"entire_frame_compile_time_s": %s, '
                             '"restart_reasons": []}'
                             % (rng.randrange(9), rng.choice(NUMBERS)),
                             ids=ids))
        elif kind == 7:
            out.append(entry('"dynamo_guards": {}',
                             '[{"code": "%s"}]' % rng.choice(["x", "y > 2"]),
                             ids=ids))
        elif kind == 8:
            out.append(entry('"inductor_output_code": {"filename": '
                             '"/tmp/t/c%d.py"}' % rng.randrange(3),
                             random_text(rng), ids=ids))
        elif kind == 9:
            out.append(entry('"link": {"name": "l", "url": "https://e.x/%d"}'
                             % rng.randrange(9), ids=ids))
        elif kind == 10:
            out.append(entry('"graph_dump": {"name": "g%d"}' % rng.randrange(3),
                             random_text(rng), ids=ids))
        elif kind == 11:
            out.append(entry('"new_kind_%d": %s' % (rng.randrange(2),
                                                   random_value(rng)),
                             random_text(rng) if rng.random() < 0.5 else None,
                             ids=ids))
        elif kind == 13:
            out.append(entry('"dump_file": {"name": "%s"}' % rng.choice(
                ["<eval_with_key>.%d" % rng.randrange(3), "plain", "a.b"]),
                random_text(rng), ids=ids))
        elif kind == 14:
            out.append(entry('"guard_added": {"expr": "x"}, "stack": [{"line": '
                             '%d, "name": "g", "filename": %d}]'
                             % (rng.randrange(9), rng.randrange(3)), ids=ids))
        else:
            out.append(entry('"describe_tensor": {"id": %d, "ndim": 1, '
                             '"dtype": "torch.float32", "device": "cpu", '
                             '"size": [%d], "is_leaf": true, "stride": [1], '
                             '"storage": 0, "describer_id": 0}'
                             % (rng.randrange(9), rng.randrange(64)),
                             ids=ids))
    return "".join(out)


@unittest.skipUnless(oracle.rust_binary(),
                     "the Rust tlparse is not in TLPARSE_VENV: skipped")
class Oracle(unittest.TestCase):
    def setUp(self):
        # (entry, pattern) of oracle.ALLOWED that explained a difference
        self.used = set()

    def check(self, log, flags):
        unexplained, ours, theirs = oracle.compare(log, flags,
                                                   used=self.used)
        self.assertEqual(unexplained, [], "%s %s\nours: %s\nrust: %s" % (
            os.path.basename(log), " ".join(flags), ours.stderr[-2000:],
            theirs.stderr[-2000:]))

    def assert_every_allowance_still_needed(self, test):
        """Every entry of the allow-list named for this test explained a
        difference in it: a difference that no longer occurs must leave the
        list."""
        for i, a in enumerate(oracle.ALLOWED):
            if a.seen_in != test:
                continue
            for j, pattern in enumerate(oracle.patterns(a)):
                self.assertIn((i, j), self.used, "allow-list entry no longer "
                              "needed: %s (%s)" % (pattern, a.why))

    @unittest.skipUnless(os.path.isdir(tracelog.FIXTURES),
                         "shared fixtures folder is absent: skipped")
    def test_every_shared_fixture_with_every_flag_set(self):
        logs = single_log_fixtures()
        self.assertEqual(len(logs), 14)  # the single-log listings
        for log in logs:
            for flags in FLAG_SETS:
                with self.subTest(log=os.path.basename(log),
                                  flags=" ".join(flags)):
                    self.check(log, flags)
        self.assert_every_allowance_still_needed("fixtures")

    def test_recordings_of_each_torch_version(self):
        """The JIT, AOTInductor and training programs of examples/record/
        as recorded with torch 2.14.1 and 2.15.0 (the 2.13.0 ones are
        compared by test_recordings.py), with every flag set."""
        for program in ("jit-cpu", "aot-cpu", "train-cpu"):
            for version in ("2.14", "2.15"):
                log = os.path.join(EXAMPLES, "rec-%s-%s" % (program, version),
                                   "trace.log")
                name = "rec-%s-%s" % (program, version)
                # Our earlier provenance page of a folder with two Inductor
                # compilations (the forward), which the Rust tool does not
                # write, is on the allow-list.
                for flags in FLAG_SETS:
                    with self.subTest(log=name, flags=" ".join(flags)):
                        self.check(log, flags)

    def test_a_recording_that_recompiles(self):
        """examples/rec-recompiles, whose frames compile again (global,
        dtype, size, rank): with every flag set, the recompile pages are
        what we write beside the Rust tool's files."""
        log = os.path.join(EXAMPLES, "rec-recompiles", "trace.log")
        for flags in FLAG_SETS:
            with self.subTest(flags=" ".join(flags)):
                self.check(log, flags)
        self.assert_every_allowance_still_needed("recompiles")

    def test_recordings_whose_ids_start_again(self):
        """examples/rec-sessions (two torch._dynamo.reset() calls) and
        rec-dynamic (one): every file the Rust tool writes is written the
        same; the recompile pages of each session are ours alone."""
        for name in ("rec-sessions", "rec-dynamic"):
            log = os.path.join(EXAMPLES, name, "trace.log")
            for flags in FLAG_SETS:
                with self.subTest(log=name, flags=" ".join(flags)):
                    self.check(log, flags)

    def test_generated_logs_of_every_shape(self):
        with tempfile.TemporaryDirectory() as tmp:
            for shape in ("jit-cuda", "jit-cpu", "aot-cuda", "aot-cpu",
                          "combo"):
                for extra in ([], ["--mapping-version", "1",
                                   "--stack-traces", "--chromium-events",
                                   "--frames", "3"]):
                    log = os.path.join(tmp, "%s%d.log" % (shape, len(extra)))
                    subprocess.run([sys.executable, GEN, "--shape", shape,
                                    "--layers", "2", "-o", log] + extra,
                                   check=True)
                    for flags in ([], ["-i", "--strict"]):
                        with self.subTest(shape=shape, extra=extra,
                                          flags=flags):
                            self.check(log, flags)
        self.assert_every_allowance_still_needed("generated")

    def test_random_logs_agree(self):
        """Forty logs of real entry kinds in random order: the same files,
        raw.jsonl, compile_directory.json, chromium_events.json, payloads
        and artifact files. Seeds 1 and 3 mod 4 end their lines in CRLF;
        seeds 2 and 3 mod 4 lose the tab of their empty payload lines."""
        stripped_blank_lines = 0
        with tempfile.TemporaryDirectory() as tmp:
            for seed in range(40):
                crlf, stripped = seed % 2 == 1, seed % 4 >= 2
                text = random_log(seed, crlf=crlf, stripped=stripped)
                if stripped:
                    stripped_blank_lines += len(re.findall(
                        r"(?m)^\r?$", text))
                log = os.path.join(tmp, "random%d%s.log" % (
                    seed, "-stripped" if stripped else ""))
                with open(log, "w", encoding="utf-8", newline="") as f:
                    f.write(text)
                for flags in ([], ["-p"], ["-i"]):
                    with self.subTest(seed=seed, flags=flags):
                        self.check(log, flags)
        self.assertGreater(stripped_blank_lines, 20)
        self.assert_every_allowance_still_needed("random")

    def test_strict_modes_decide_as_the_rust_tool(self):
        """Same exit status (0 or not) with --strict and --strict-compile-id
        on each case, and the same files without them."""
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in STRICT_CASES.items():
                log = os.path.join(tmp, name + ".log")
                with open(log, "w") as f:
                    f.write(text)
                for flags in ([], ["--strict"], ["--strict-compile-id"]):
                    with self.subTest(case=name, flags=flags):
                        self.check(log, flags)
        self.assert_every_allowance_still_needed("strict")

    def test_strict_cases_fail_where_expected(self):
        """The cases above are not all alike: read off the Rust tool, the
        failing ones are exactly these (so the comparison above compares
        failures too, not only successes)."""
        rust = oracle.rust_binary()
        failing = {"--strict": set(), "--strict-compile-id": set()}
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in STRICT_CASES.items():
                log = os.path.join(tmp, name + ".log")
                with open(log, "w") as f:
                    f.write(text)
                for flag in failing:
                    r = oracle.run(rust, log, os.path.join(tmp, name + flag),
                                   [flag])
                    if r.returncode:
                        failing[flag].add(name)
        self.assertEqual(failing["--strict"], {
            "md5_mismatch", "not_glog", "bad_envelope_json", "other_rank",
            "artifact_without_encoding"})
        self.assertEqual(failing["--strict-compile-id"],
                         {"unreadable_compile_id"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
