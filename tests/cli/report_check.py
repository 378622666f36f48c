#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check what Chromium made of `plumbline report` (report_chromium.sh).

Usage: report_check.py JSONL ALERT_ID DOM.html SHOT.png WIDTH HEIGHT

From the alert record itself (found in JSONL by its id or the one id ALERT_ID
starts with), what the page must show once Chromium has parsed it
(--dump-dom):
- every section (#summary #process #baseline #flamegraph #host #evidence),
  once, in that order;
- the summary names the rule and the exe (its base name), as the record has
  them once unescaped and escaped again as plumbline shows text;
- #baseline: with a scored feature, an SVG whose line.marker has the alert's
  value (data-value, within the 3 figures the page prints) and a label saying
  it; without a baseline, words saying so;
- #flamegraph: with stacks, an SVG with a box (rect) for each named frame of
  the record's stacks, whose hover text (title) opens with that name;
  without stacks, words saying so;
- the host's name in #host, the exe last in the ancestry list;
- nothing is loaded: no src, href, xlink:href, action, data or srcset
  attribute, no script, img, link, iframe, object or embed element, no text
  reading "null" or "<NA>";
- the screenshot is a PNG of WIDTH x HEIGHT, not blank, and shows the
  marker's red where there is a marker.
"""
import json
import os
import sys
from html.parser import HTMLParser

sys.dont_write_bytecode = True  # nothing left in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evidence_check as ec  # noqa: E402  (unescape, escape, basename, png_pixels)

SECTIONS = ["summary", "process", "baseline", "flamegraph", "host", "evidence"]
VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "embed", "source", "track", "wbr"}
LOADING_ATTRS = {"src", "href", "xlink:href", "action", "data", "srcset", "poster", "formaction"}
LOADING_TAGS = {"script", "img", "link", "iframe", "object", "embed", "frame", "audio", "video"}
SCALE = {"cpu_ns": (1e-6, "ms"), "wall_ns": (1e-6, "ms"), "offcpu_ns": (1e-6, "ms"),
         "cpu_ns_per_s": (1e-6, "ms per second"), "syscalls": (1, "syscalls"),
         "open_failures": (1, "failed opens"), "syscalls_per_s": (1, "syscalls per second"),
         "open_failures_per_s": (1, "failed opens per second")}
MARKER_RGB = (0xC0, 0x39, 0x2B)
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.texts = tag, dict(attrs), parent, [], []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.walk()

    def find_all(self, tag=None, cls=None):
        return [n for n in self.walk() if (tag is None or n.tag == tag) and
                (cls is None or cls in n.attrs.get("class", "").split())]


class Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def shown(s):
    """A record string as the page shows it."""
    return ec.escape(ec.unescape(s))


def find_alert(jsonl, alert_id):
    found = []
    with open(jsonl, encoding="utf-8") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("type") == "alert" and str(rec.get("id", "")).startswith(alert_id):
                found.append(rec)
    exact = [r for r in found if r["id"] == alert_id]
    if exact:
        return exact[0]
    if len({r["id"] for r in found}) == 1:
        return found[0]
    fail("%d alerts match %s in %s" % (len(found), alert_id, jsonl))
    return None


def main_feature(bl):
    fs = bl.get("features") or {}
    name = bl.get("max_feature")
    if name in fs and isinstance(fs[name], dict):
        return name, fs[name]
    for k, v in fs.items():
        if isinstance(v, dict):
            return k, v
    return None, None


def check_dom(alert, dom_path):
    tree = Tree()
    tree.feed(open(dom_path, encoding="utf-8").read())
    root = tree.root
    secs = {}
    order = []
    for n in root.walk():
        if n.tag == "section":
            order.append(n.attrs.get("id"))
            secs[n.attrs.get("id")] = n
    if order != SECTIONS:
        fail("sections %s, want %s" % (order, SECTIONS))
        return None
    # nothing to load, no markup from the record
    for n in root.walk():
        if n.tag in LOADING_TAGS:
            fail("a <%s> element in the page" % n.tag)
        for a in n.attrs:
            if a in LOADING_ATTRS:
                fail("<%s %s=%r>: the page would load something" % (n.tag, a, n.attrs[a]))
    body = root.find_all("body")
    text = body[0].text() if body else ""
    for bad in ("null", "<NA>"):
        if bad in text:
            fail("the page's text reads %r" % bad)
    # the summary
    summary = secs["summary"].text()
    rule = shown(alert.get("rule") or "")
    exe = alert.get("exe")
    if rule not in summary:
        fail("#summary does not name the rule %r" % rule)
    if exe and ec.escape(ec.basename(ec.unescape(exe))) not in summary:
        fail("#summary does not name the exe %r" % exe)
    if alert.get("id") and alert["id"] not in summary:
        fail("#summary does not give the alert id")
    # the process, last in its ancestry
    items = secs["process"].find_all("li")
    if not items or (exe and shown(exe) not in items[-1].text()):
        fail("the ancestry does not end with the exe %r" % exe)
    anc = (alert.get("evidence") or {}).get("ancestry") or []
    if len(items) < len(anc) + 1:
        fail("the ancestry lists %d entries, the record %d ancestors" % (len(items), len(anc)))
    # the baseline
    bl = (alert.get("evidence") or {}).get("baseline")
    marker = None
    markers = secs["baseline"].find_all("line", "marker")
    name, ft = main_feature(bl) if isinstance(bl, dict) else (None, None)
    if ft is not None and isinstance(ft.get("value"), (int, float)):
        scale, unit = SCALE.get(name, (1, ""))
        want = ft["value"] * scale
        got = None
        for m in markers:
            try:
                v = float(m.attrs.get("data-value"))
            except (TypeError, ValueError):
                continue
            if abs(v - want) <= max(abs(want) * 0.01, 1e-9):
                got = m
        if got is None:
            fail("#baseline has no marker at the alert's value %g (markers %s)" %
                 (want, [m.attrs.get("data-value") for m in markers]))
        else:
            marker = got
            labels = [t.text() for t in secs["baseline"].find_all("text", "marker-label")]
            if ("this alert: %s %s" % (got.attrs["data-value"], unit)) not in labels:
                fail("no label for the marker: %s" % labels)
        if not secs["baseline"].find_all("circle", "q"):
            fail("#baseline plots no quantile")
        print("  baseline: %s marked at %s %s" % (name, marker.attrs["data-value"] if marker else "?", unit))
    elif not isinstance(bl, dict):
        if "no baseline comparison" not in secs["baseline"].text():
            fail("#baseline does not say the alert made no baseline comparison")
        print("  baseline: none, said in words")
    # the flame graph
    st = (alert.get("evidence") or {}).get("stacks")
    fg = secs["flamegraph"]
    if st and st.get("top"):
        svgs = fg.find_all("svg")
        titles = {t.text().split("\n", 1)[0] for t in fg.find_all("title")}
        names = {shown(fr["function"]) for s in st["top"] for fr in s.get("frames", []) if fr.get("function")}
        if not svgs:
            fail("#flamegraph has no SVG")
        # a box's hover text opens with its name, then "(object+0xOFF)"
        missing = sorted(n for n in names if not any(t == n or t.startswith(n + " (") for t in titles))
        if missing:
            fail("#flamegraph lacks the frames %s" % missing)
        rects = fg.find_all("rect")
        if len(rects) < len(names) + 2:  # the background, "all", a box a frame
            fail("#flamegraph has %d rects for %d named frames" % (len(rects), len(names)))
        print("  flame graph: %d named frames, %d boxes" % (len(names), len(rects) - 1))
    elif "no stack samples" not in fg.text():
        fail("#flamegraph does not say the alert has no stacks")
    host = (alert.get("host") or {}).get("name")
    if host and shown(host) not in secs["host"].text():
        fail("#host does not name the host %r" % host)
    return marker


def check_shot(path, width, height, marker):
    try:
        w, h, rows = ec.png_pixels(path)
    except (ValueError, TypeError, OSError) as e:
        fail("screenshot %s: %s" % (path, e))
        return
    if (w, h) != (width, height):
        fail("screenshot is %dx%d, want %dx%d" % (w, h, width, height))
        return
    inked = sum(1 for row in rows[::4] for p in row[::4] if sum(p) < 600)
    if inked < 200:
        fail("the screenshot is blank (%d dark pixels sampled)" % inked)
    if marker is not None:
        red = sum(1 for row in rows for p in row if all(abs(a - b) <= 40 for a, b in zip(p, MARKER_RGB)))
        if red < 20:
            fail("the screenshot shows no marker red (%d pixels)" % red)
        print("  screenshot: %dx%d, %d marker pixels" % (w, h, red))
    else:
        print("  screenshot: %dx%d" % (w, h))


def main():
    if len(sys.argv) != 7:
        print(__doc__, file=sys.stderr)
        return 2
    jsonl, alert_id, dom, shot, width, height = sys.argv[1:]
    alert = find_alert(jsonl, alert_id)
    if alert is not None:
        marker = check_dom(alert, dom)
        check_shot(shot, int(width), int(height), marker)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
