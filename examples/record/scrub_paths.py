"""Rewrites the paths of the recording machine in a recorded trace.

A trace names the files of the Python that recorded it (stack frames, the
string table, comments in generated code, include paths). The committed
examples must not name the machine they were made on, so each path of the
recording environment is replaced by a neutral one of the same meaning:

    <virtual environment>/lib/pythonX.Y/site-packages  ->  /opt/venv/lib/pythonX.Y/site-packages
    <base interpreter>/lib/pythonX.Y                   ->  /usr/lib/pythonX.Y

The envelope's `has_payload` is then the md5 of the rewritten payload, so
the trace stays as consistent as torch wrote it. Works on `.log` files and
on gzip'd Chrome traces (`.json.gz`, where only the paths change).

    python scrub_paths.py TRACE...     # rewrites the files in place
"""

import gzip
import hashlib
import json
import os
import re
import sys
import sysconfig

GLOG = re.compile(r"^([VIWEC]\d{4} [^\]]*\] )(\{.*\})$")


def replacements():
    """(old, new) pairs, longest first: the recording Python's own paths."""
    version = "python%d.%d" % sys.version_info[:2]
    pairs = [(sysconfig.get_paths()["purelib"],
              "/opt/venv/lib/%s/site-packages" % version),
             (sysconfig.get_paths()["stdlib"], "/usr/lib/%s" % version),
             (sys.prefix, "/opt/venv"),
             (sys.base_prefix, "/usr")]
    seen = set()
    out = []
    for old, new in sorted(pairs, key=lambda p: -len(p[0])):
        if old and old not in seen and old != new:
            seen.add(old)
            out.append((old, new))
    return out


def scrub_text(text, pairs):
    for old, new in pairs:
        text = text.replace(old, new)
    return text


def scrub_log(lines, pairs):
    """Rewrites a glog trace: paths everywhere, then each has_payload."""
    out = []
    i = 0
    while i < len(lines):
        line = scrub_text(lines[i], pairs)
        i += 1
        payload = []
        while i < len(lines) and lines[i].startswith("\t"):
            payload.append(scrub_text(lines[i][1:], pairs))
            i += 1
        m = GLOG.match(line)
        if m and payload:
            envelope = json.loads(m.group(2))
            if "has_payload" in envelope:
                digest = hashlib.md5("\n".join(payload).encode()).hexdigest()
                old = envelope["has_payload"]
                line = m.group(1) + m.group(2).replace(
                    '"has_payload": "%s"' % old,
                    '"has_payload": "%s"' % digest)
        out.append(line)
        out.extend("\t" + p for p in payload)
    return out


def main(paths):
    pairs = replacements()
    for path in paths:
        if path.endswith(".gz"):
            with gzip.open(path, "rt", encoding="utf-8") as f:
                text = scrub_text(f.read(), pairs)
            with gzip.open(path, "wt", encoding="utf-8") as f:
                f.write(text)
            continue
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        tail = lines[-1] == ""
        lines = scrub_log(lines[:-1] if tail else lines, pairs)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + ("\n" if tail else ""))
        print("%s: scrubbed" % os.path.basename(path))


if __name__ == "__main__":
    main(sys.argv[1:])
