#!/usr/bin/env python3
"""The layering of src/, read from its `#include "..."` lines.

    python3 tests/layers/check_layers.py [--write]

src/ holds one folder per pipeline stage and per mode, ranked below from
the bottom (util/) to the top (main.c, alone in src/). A file may include
headers of its own folder and of folders ranked below it; every include of a
project header names its folder ("store/store.h"). Fails (exit 1) on an
unqualified or unknown project include, on an include that runs upward, on
an include cycle between headers, between folders or between modules, of
one folder or of two (a module: a .c, its .h and its folder-private
`<stem>_internal.h`), on an `_internal.h` included from another folder, on
a folder missing from the ranking or its README.md, and when
docs/architecture.md's two diagrams (between the `layers:` markers) differ
from what this script makes; `--write` writes them there instead. Prints
the folder graph.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "src")
DOC = os.path.join(ROOT, "docs", "architecture.md")

# Bottom to top. "." is src/ itself: main.c.
RANKS = ["util", "json", "read", "store", "analyze", "join", "profile",
         "diff", "emit", "export", "run", "multirank", "command", "."]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
BEGIN = "<!-- layers: %s (written by tests/layers/check_layers.py) -->"
END = "<!-- layers: end -->"


def sources():
    """{path relative to src: text} of every .c and .h under src/."""
    out = {}
    for folder, _, names in os.walk(SRC):
        for name in names:
            if name.endswith((".c", ".h")):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    out[os.path.relpath(path, SRC)] = f.read()
    return out


def module(rel):
    """A .c with its .h, and its private `<stem>_internal.h`, are one."""
    stem = os.path.splitext(rel)[0]
    return stem[:-len("_internal")] if stem.endswith("_internal") else stem


def folder_of(rel):
    return os.path.dirname(rel) or "."


def summary(folder):
    """The text after the colon of the folder README's first line."""
    path = os.path.join(SRC, folder, "README.md")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        first = f.readline().strip()
    return first.split(":", 1)[1].strip() if ":" in first else first


def cycles(graph):
    """Strongly connected components with more than one node (or a loop)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        # Iterative Tarjan: (node, iterator over its successors).
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1 or node in graph.get(node, ()):
                    found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def diagrams(files, folder_deps):
    """The two diagrams of docs/architecture.md: folders, then files."""
    width = max(len(f) for f in RANKS) + 2
    lines = ["```"]
    for folder in reversed(RANKS):
        name = "main.c" if folder == "." else folder + "/"
        deps = sorted(folder_deps.get(folder, ()), key=RANKS.index,
                      reverse=True)
        text = summary(folder) if folder != "." else (
            "argv -> the request of one command")
        lines.append("%-*s%s" % (width, name, text))
        if deps:
            lines.append("%-*s  -> %s" % (width, "", " ".join(
                d + "/" for d in deps)))
    lines.append("```")
    folders_md = "\n".join(lines)
    lines = ["```"]
    for folder in reversed(RANKS):
        if folder == ".":
            continue
        stems = {}
        for rel in files:
            if folder_of(rel) == folder:
                stem, ext = os.path.splitext(os.path.basename(rel))
                stems.setdefault(stem, []).append(ext[1:])
        row = ["%s.%s" % (s, "/".join(sorted(e))) if len(e) > 1
               else "%s.%s" % (s, e[0]) for s, e in sorted(stems.items())]
        text, out = "", []
        for item in row:
            if text and len(text) + len(item) + 1 > 78 - width:
                out.append(text)
                text = ""
            text = (text + " " + item).strip()
        out.append(text)
        for k, t in enumerate(out):
            lines.append("%-*s%s" % (width, folder + "/" if k == 0 else "", t))
    lines.append("```")
    return {"folders": folders_md, "files": "\n".join(lines)}


def replace_block(doc, name, body):
    begin = BEGIN % name
    if begin not in doc or END not in doc[doc.index(begin):]:
        return None
    a = doc.index(begin) + len(begin)
    b = doc.index(END, a)
    return doc[:a] + "\n" + body + "\n" + doc[b:]


def main():
    write = "--write" in sys.argv[1:]
    files = sources()
    errors = []
    graph, folder_deps, headers = {}, {}, {}
    for rel, text in sorted(files.items()):
        here = folder_of(rel)
        if here not in RANKS:
            errors.append("%s: folder %s/ is not in RANKS" % (rel, here))
            continue
        for name in INCLUDE.findall(text):
            if "/" not in name:
                if name in {os.path.basename(f) for f in files}:
                    errors.append("%s: #include \"%s\" does not name its "
                                  "folder" % (rel, name))
                continue  # not ours (a test harness or a grammar header)
            if name not in files:
                errors.append("%s: #include \"%s\": no such file in src/"
                              % (rel, name))
                continue
            # A module is a .c and its .h: store.c -> emit/pages.h and
            # emit/pages.c -> store.h is a cycle of store and pages.
            # A folder-private `<stem>_internal.h` is part of module <stem>.
            a, b = module(rel), module(name)
            if a != b:
                graph.setdefault(a, set()).add(b)
            if rel.endswith(".h"):
                headers.setdefault(rel, set()).add(name)
            there = folder_of(name)
            if there == here:
                continue
            if name.endswith("_internal.h"):
                errors.append("%s: #include \"%s\": a header private to "
                              "%s/" % (rel, name, there))
            folder_deps.setdefault(here, set()).add(there)
            if there not in RANKS:
                continue
            if RANKS.index(there) > RANKS.index(here):
                errors.append("%s: #include \"%s\" runs upward (%s/ is "
                              "above %s/)" % (rel, name, there, here))
    for comp in cycles(headers):
        errors.append("include cycle between headers: " + " ".join(comp))
    for comp in cycles(graph):
        where = "" if len({folder_of(m) for m in comp}) > 1 else (
            " of one folder")
        errors.append("include cycle between modules%s: %s"
                      % (where, " ".join(comp)))
    for comp in cycles(folder_deps):
        errors.append("include cycle between folders: " + " ".join(comp))
    for folder in RANKS:
        if folder != "." and summary(folder) is None:
            errors.append("src/%s/README.md is missing" % folder)

    print("Folder graph of src/ (top to bottom; -> what each includes):")
    for folder in reversed(RANKS):
        deps = sorted(folder_deps.get(folder, ()), key=RANKS.index,
                      reverse=True)
        print("  %-11s -> %s" % ("main.c" if folder == "." else folder + "/",
                                 " ".join(d + "/" for d in deps) or "-"))
    print("%d files, %d includes between modules" % (
        len(files), sum(len(v) for v in graph.values())))

    if not errors:
        with open(DOC, encoding="utf-8") as f:
            doc = f.read()
        new = doc
        for name, body in diagrams(files, folder_deps).items():
            new = replace_block(new, name, body)
            if new is None:
                errors.append("docs/architecture.md: no `%s` and `%s` "
                              "markers" % (BEGIN % name, END))
                break
        if new is not None and new != doc:
            if write:
                with open(DOC, "w", encoding="utf-8") as f:
                    f.write(new)
                print("wrote the diagrams of docs/architecture.md")
            else:
                errors.append("docs/architecture.md's diagrams are stale: "
                              "run python3 tests/layers/check_layers.py "
                              "--write")
    for e in errors:
        print("error: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
