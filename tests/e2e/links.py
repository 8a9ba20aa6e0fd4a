"""Checks that the pages of a tl_out folder link up: every relative href and
src in every HTML page names a file that exists."""

import html.parser
import os
import urllib.parse


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.targets.append(value)


def relative_targets(page_path):
    parser = _Links()
    with open(page_path, encoding="utf-8", errors="replace") as f:
        parser.feed(f.read())
    for target in parser.targets:
        parsed = urllib.parse.urlsplit(target)
        if parsed.scheme or parsed.netloc or not parsed.path:
            continue  # external URL or an in-page #fragment
        yield target, urllib.parse.unquote(parsed.path)


def broken_links(out_dir):
    """[(page, target)] for every relative link whose file is missing."""
    broken = []
    for root, _, names in os.walk(out_dir):
        for name in names:
            if not name.endswith(".html"):
                continue
            page = os.path.join(root, name)
            for target, path in relative_targets(page):
                full = os.path.normpath(os.path.join(root, path))
                if not os.path.exists(full):
                    broken.append((os.path.relpath(page, out_dir), target))
    return broken
