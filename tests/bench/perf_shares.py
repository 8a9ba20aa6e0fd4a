#!/usr/bin/env python3
"""perf_shares.py: reads `perf script` output of a tlparse run recorded with
call graphs (tests/bench/profile.sh) and prints the share of CPU samples per
pipeline step, so docs/performance.md can say where the time goes.

Each sample is put in the first bucket (in table order) whose function
appears anywhere on its stack; samples in no bucket count as "other".
Shares are of all samples of the process, both threads together, then
of the main thread alone (the critical path while views wait for the
whole trace to be stored).

    perf script -i perf.data | perf_shares.py
"""

import collections
import sys

# (bucket, function names that select it). Order matters: the first match
# wins, so specific steps come before the stages that contain them.
BUCKETS = [
    ("tree-sitter query compile: pycode is_combo (per Triton kernel)",
     ("is_combo",), "ts_query_new"),
    ("tree-sitter query compile: fx_graph", ("tl_fx_analyze",),
     "ts_query_new"),
    ("tree-sitter query compile: pycode", ("tl_pycode_analyze",),
     "ts_query_new"),
    ("tree-sitter query compile: cppcode", ("tl_cppcode_analyze",
                                           "tl_cppkernels_analyze"),
     "ts_query_new"),
    ("tree-sitter query compile: other", (), "ts_query_new"),
    ("tree-sitter parse", ("ts_parser_parse",), None),
    ("tree-sitter query matching", ("ts_query_cursor_next_match",
                                    "ts_query_cursor_next_capture"), None),
    ("provenance join (rest of tl_provenance_build)",
     ("tl_provenance_build",), None),
    ("sha256 of the page loader (CSP hash)", ("SHA256Update", "csp_hash"),
     None),
    ("md5 of payloads", ("MD5Update", "MD5Data", "MD5Final"), None),
    ("cJSON parse/print", ("cJSON_ParseWithLengthOpts", "cJSON_Parse",
                           "cJSON_PrintUnformatted", "cJSON_Print",
                           "cJSON_PrintBuffered", "cJSON_Delete"), None),
    ("raw.jsonl", ("write_raw_jsonl",), None),
    ("provenance page render", ("tl_provpage_render",), None),
    ("file create (open O_CREAT, ext4 inode)", ("do_sys_openat2",), None),
    ("file write (write syscalls)", ("ksys_write", "vfs_write"), None),
    ("mkdir / rename / other syscalls", ("do_syscall_64",), None),
    ("reader: lines, envelopes, store", ("tl_reader_run",), None),
    ("report: index and artifact pages", ("tl_report_write",), None),
]


def samples(stream):
    """Yields (thread id, list of function names) for each sample."""
    tid, stack = None, []
    for line in stream:
        if not line.strip():
            if stack:
                yield tid, stack
            tid, stack = None, []
            continue
        if line[0] in " \t":
            parts = line.split(None, 1)
            if len(parts) == 2:
                sym = parts[1].rsplit(" (", 1)[0]
                stack.append(sym.split("+0x", 1)[0].strip())
        else:  # header: "tlparse 12345 ..." or "tlparse 12345/12346 ..."
            fields = line.split()
            tid = fields[1].split("/")[-1] if len(fields) > 1 else None
    if stack:
        yield tid, stack


def bucket_of(stack):
    names = set(stack)
    for bucket, callers, leaf in BUCKETS:
        if leaf and leaf not in names:
            continue
        if callers and not names.intersection(callers):
            continue
        return bucket
    return "other"


def table(title, counts, total):
    print(title)
    print()
    print("| step | samples | share |")
    print("|---|---:|---:|")
    for bucket, n in counts.most_common():
        print("| %s | %d | %.1f%% |" % (bucket, n, 100.0 * n / total))
    print("| total | %d | 100%% |" % total)
    print()


def main():
    counts = collections.Counter()
    by_thread = collections.defaultdict(collections.Counter)
    total = 0
    for tid, stack in samples(sys.stdin):
        total += 1
        b = bucket_of(stack)
        counts[b] += 1
        by_thread[tid][b] += 1
    if total == 0:
        print("perf_shares: no samples")
        return 1
    table("All threads (share of all samples):", counts, total)
    # The main thread is the one with the lowest id (the process id): it
    # reads and stores the trace, then works on views beside the others.
    ids = sorted(by_thread, key=lambda t: int(t) if t and t.isdigit() else 0)
    print("Samples per thread: " + ", ".join(
        "%s %d (%.1f%%)" % ("main" if i == 0 else "thread %d" % i,
                            sum(by_thread[t].values()),
                            100.0 * sum(by_thread[t].values()) / total)
        for i, t in enumerate(ids)))
    print()
    main_counts = by_thread[ids[0]]
    table("Main thread only (share of its samples):", main_counts,
          sum(main_counts.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
