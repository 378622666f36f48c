#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check what Chromium made of `plumbline evidence --svg` (evidence_chromium.sh).

The ground truth is the alert itself: its stacks are merged here by prefix,
independently of the C code, into the boxes a flame graph must have, and the
names they must show, escaped as docs/records.md and docs/outputs.md say.

- the DOM (--dump-dom) parses as XML, holds only the writer's own elements
  (no <script> or anything else a hostile name could have become), and its
  boxes are exactly the expected ones, frames merged by (object, function)
  under their parent and an object's unnamed code as one "[unknown] (object)":
  hover title (name, what a grey box holds, object, samples, percentage,
  whether new to the baseline), and a label that is the name or a cut of it
  ending "..";
- new frames are filled purple, and no other box is;
- the title lines name the rule, exe, pid, alert id and total samples;
- the labels as Chromium lays them out (a page of the SVG inlined with a
  script, `page` below, loaded with --dump-dom): each label's
  getComputedTextLength() fits inside its box after its 3 px of padding, a
  label drawn in full is the whole name, and a cut one is cut only because
  the whole name would not have fit;
- the screenshot (--screenshot, PNG decoded here with zlib and struct) has
  the SVG's size, the page background, and the fill of the heaviest user
  box and of the kernel box at their places: the boxes were drawn.

Usage: evidence_check.py ALERTS.jsonl ALERT_ID DOM.xml SHOT.png HEIGHT MEASURED.xml
       evidence_check.py page ALERTS.jsonl ALERT_ID OUT.svg PAGE.xhtml
"""
import json
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"
BIDI = {0x61C, 0x200E, 0x200F, 0x2028, 0x2029} | set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def unescape(s):
    """The record's text to raw bytes (text_unescape), cut at a NUL as C strings are."""
    out = re.sub(rb"\\x([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), s.encode("utf-8"))
    return out.split(b"\0")[0]


def escape(b):
    """Raw bytes as the SVG writer shows them: text_escape, and U+FFFE/U+FFFF escaped."""
    out, i = [], 0
    while i < len(b):
        n = 1 if b[i] < 0x80 else 2 if 0xC2 <= b[i] <= 0xDF else 3 if 0xE0 <= b[i] <= 0xEF else 4 if 0xF0 <= b[i] <= 0xF4 else 0
        try:
            ch = b[i:i + n].decode("utf-8") if n else None
        except UnicodeDecodeError:
            ch = None
        if ch is None:
            out.append("\\x%02X" % b[i])
            i += 1
            continue
        cp = ord(ch)
        if cp < 0x20 or cp == 0x5C or 0x7F <= cp <= 0x9F or cp in BIDI or cp in (0xFFFE, 0xFFFF):
            out.append("".join("\\x%02X" % c for c in b[i:i + n]))
        else:
            out.append(ch)
        i += n
    return "".join(out)


def basename(b):
    tail = b.rsplit(b"/", 1)[-1]
    return tail if tail else b


NEW = "new: the baseline never saw this function on CPU"


def unattributed_why(stacks):
    """The hover line of [stack not kept], as docs/outputs.md words it."""
    by = stacks.get("unattributed_by")
    if by is None:
        return "the record does not say why"
    ring, table = by["sample_ring_full"], by["stack_table_full"]
    why = "%d the kernel's sample ring was full, %d a new stack past the stack tables' bounds" % (ring, table)
    other = stacks.get("unattributed", 0) - ring - table
    return why + (", %d otherwise (see the stats record's oncpu counters)" % other if other > 0 else "")


def expected_boxes(stacks):
    """{key: box} of the merged tree: key = path of (kernel, object, function) (function None: the object's
    unnamed code), box = dict(hover first line, label, detail line, object line, samples, offsets, new)."""
    mk = lambda name, samples=0, detail=None: {"hover": name, "label": name, "detail": detail, "object": None,
                                               "samples": samples, "offsets": set(), "new": False}
    boxes = {(): mk("all")}
    for st in stacks["top"]:
        path = ()
        boxes[()]["samples"] += st["samples"]
        for fr in st["frames"]:
            obj = unescape(fr["object"])
            fn = unescape(fr["function"]) if fr.get("function") is not None else None
            path = path + ((bool(fr.get("kernel")), obj, fn),)
            box = boxes.setdefault(path, mk((fn, obj)))
            box["object"] = escape(obj)
            box["samples"] += st["samples"]
            box["offsets"].add(fr.get("offset", 0))
            box["new"] |= fr.get("new") is True
    for box in boxes.values():
        if isinstance(box["hover"], tuple):
            fn, obj = box["hover"]
            where = escape(basename(obj)) + ("+0x%x" % next(iter(box["offsets"])) if len(box["offsets"]) == 1 else "")
            box["hover"] = "%s (%s)" % (escape(fn) if fn is not None else "[unknown]", where)
            box["label"] = escape(fn) if fn is not None else "[unknown] (%s)" % escape(basename(obj))
    rest = stacks["samples"] - boxes[()]["samples"]
    unattributed = min(stacks.get("unattributed", 0), max(rest, 0))
    if unattributed:
        boxes[("kept",)] = mk("[stack not kept]", unattributed, unattributed_why(stacks))
    if rest > unattributed:
        boxes[("other",)] = mk("[other stacks]", rest - unattributed,
                               "stacks kept, past the top %d the alert carries" % len(stacks["top"]))
    boxes[()]["samples"] = max(boxes[()]["samples"], stacks["samples"])
    return boxes


def hover_text(b, total):
    return "\n".join([b["hover"]] + [x for x in (b["detail"], b["object"]) if x is not None] +
                     ["%d sample%s, %.2f%%" % (b["samples"], "" if b["samples"] == 1 else "s",
                                               100.0 * b["samples"] / total)] + ([NEW] if b["new"] else []))


def is_purple(fill):
    r, g, b = (int(v) for v in re.match(r"rgb\((\d+),(\d+),(\d+)\)", fill).groups())
    return 150 <= r <= 180 and 70 <= g <= 100 and 200 <= b <= 240


def check_dom(alert, dom_path):
    try:
        root = ET.parse(dom_path).getroot()
    except ET.ParseError as e:
        fail("the DOM is not well-formed XML: %s" % e)
        return {}
    allowed = {SVG + t for t in ("svg", "style", "rect", "text", "g", "title")}
    for el in root.iter():
        if el.tag not in allowed:
            fail("unexpected element %s in the DOM" % el.tag)
        for attr in el.attrib:
            if attr.lower().startswith("on") or "href" in attr.lower():
                fail("unexpected attribute %s on %s" % (attr, el.tag))
    stacks = alert["evidence"]["stacks"]
    want = expected_boxes(stacks)
    total = want[()]["samples"]
    by_hover = {hover_text(b, total): b for b in want.values()}
    expected = sorted(by_hover)
    rects, got = {}, []
    for g in root.iter(SVG + "g"):
        title = g.find(SVG + "title").text
        got.append(title)
        rect = g.find(SVG + "rect")
        rects[title.split("\n")[0]] = rect
        text = g.find(SVG + "text")
        box = by_hover.get(title)
        if box is None:
            continue
        name = box["label"]
        if text is not None and text.text != name and not (text.text.endswith("..") and name.startswith(text.text[:-2])):
            fail("box %r is labelled %r" % (name, text.text))
        if is_purple(rect.get("fill")) != box["new"]:
            fail("box %r is filled %s: %s" % (name, rect.get("fill"), "new, not purple" if box["new"] else "purple, not new"))
    got.sort()
    if got != expected:
        for t in sorted(set(expected) - set(got)):
            fail("no box with the hover text %r" % t)
        for t in sorted(set(got) - set(expected)):
            fail("a box that should not be there: %r" % t)
    # every frame named in the alert is in a hover text
    for st in stacks["top"]:
        for fr in st["frames"]:
            name = escape(unescape(fr["function"])) if fr.get("function") is not None else None
            if name and not any(t.startswith(name + " (") for t in got):
                fail("frame %r of the alert is not in the picture" % name)
    texts = {t.get("class"): t.text for t in root.findall(SVG + "text") if t.get("class")}
    if texts.get("t") != "%s (%s)" % (alert["rule"], alert["priority"]):
        fail("title line %r" % texts.get("t"))
    for part in (alert["exe"], "pid %d" % alert["pid"], "alert " + alert["id"], "%d samples" % stacks["samples"],
                 "%d with no stack" % stacks.get("unattributed", 0)):
        if part not in (texts.get("s") or ""):
            fail("%r not in the second title line %r" % (part, texts.get("s")))
    return rects


def png_pixels(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG of depth %d, colour type %d, interlace %d" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 0xFF
            elif f == 2:
                line[x] = (line[x] + b) & 0xFF
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def check_shot(path, height, rects, names):
    try:
        w, h, rows = png_pixels(path)
    except (ValueError, zlib.error, struct.error, TypeError) as e:
        fail("screenshot: %s" % e)
        return
    if (w, h) != (1200, height):
        fail("screenshot is %dx%d, the SVG %dx%d" % (w, h, 1200, height))
        return
    near = lambda p, q: all(abs(a - b) <= 6 for a, b in zip(p, q))
    if not near(rows[2][2], (0xFB, 0xFB, 0xF7)):
        fail("screenshot: background %s, expected #fbfbf7" % (rows[2][2],))
    for name in names:
        rect = rects.get(name)
        if rect is None:
            fail("no box %r to look for in the screenshot" % name)
            continue
        x, y, wd = float(rect.get("x")), int(rect.get("y")), float(rect.get("width"))
        want = tuple(int(v) for v in re.match(r"rgb\((\d+),(\d+),(\d+)\)", rect.get("fill")).groups())
        got = rows[y + 1][int(x + wd / 2)]
        if not near(got, want):
            fail("screenshot: %r at (%d,%d) is %s, its fill is %s" % (name, int(x + wd / 2), y + 1, got, want))
    colours = {px for row in rows for px in row}
    if len(colours) < 8:
        fail("screenshot: only %d colours" % len(colours))


MEASURE_JS = """
var NS = "http://www.w3.org/2000/svg", svg = document.getElementsByTagNameNS(NS, "svg")[0], out = [];
var probe = document.createElementNS(NS, "text");
svg.appendChild(probe);
function width(s) { probe.textContent = s; return probe.getComputedTextLength(); }
var gs = svg.getElementsByTagNameNS(NS, "g");
for (var i = 0; i < gs.length; i++) {
  var t = gs[i].getElementsByTagNameNS(NS, "text")[0], r = gs[i].getElementsByTagNameNS(NS, "rect")[0];
  var title = gs[i].getElementsByTagNameNS(NS, "title")[0].textContent;
  out.push({title: title, name: NAMES[title] || null, label: t ? t.textContent : null,
            len: t ? t.getComputedTextLength() : 0,
            pad: t ? parseFloat(t.getAttribute("x")) - parseFloat(r.getAttribute("x")) : 0,
            box: parseFloat(r.getAttribute("width")), full: width(NAMES[title] || "")});
}
var lines = svg.querySelectorAll("text.t, text.s, text.l");
for (var j = 0; j < lines.length; j++)
  out.push({line: lines[j].getAttribute("class"), len: lines[j].getComputedTextLength()});
svg.removeChild(probe);
var pre = document.createElementNS("http://www.w3.org/1999/xhtml", "pre");
pre.setAttribute("id", "measured");
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
"""


def write_page(alert, svg_path, page_path):
    """An XHTML page of the SVG inlined and a script that writes what Chromium measured into the page."""
    stacks = alert["evidence"]["stacks"]
    want = expected_boxes(stacks)
    total = want[()]["samples"]
    names = {hover_text(b, total): b["label"] for b in want.values()}
    svg = open(svg_path, encoding="utf-8").read()
    svg = svg.split("?>", 1)[1] if svg.startswith("<?xml") else svg
    js = "var NAMES = %s;\n%s" % (json.dumps(names), MEASURE_JS)
    with open(page_path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
                '<body style="margin:0">%s<script><![CDATA[%s]]></script></body></html>\n' % (svg, js))


def check_measured(measured_path, width):
    """What Chromium measured (write_page): every label inside its box, in full when the name fits."""
    try:
        root = ET.parse(measured_path).getroot()
        pre = [el for el in root.iter() if el.get("id") == "measured"]
        got = json.loads(pre[0].text)
    except (ET.ParseError, IndexError, TypeError, ValueError) as e:
        fail("the measuring page gave nothing: %s" % e)
        return 0
    labels = 0
    for m in got:
        if "line" in m:
            if m["len"] > width - 20 + 0.01:
                fail("title line %s is %.2f px wide, wider than the plot (%d px)" % (m["line"], m["len"], width - 20))
            continue
        name = m["title"].split("\n")[0]
        if m["label"] is None:
            if m["full"] and m["full"] + 2 * m["pad"] <= m["box"] - 0.5:
                fail("box %r has no label, though its name (%.2f px) fits in %.2f px" % (name, m["full"], m["box"]))
            continue
        labels += 1
        if m["pad"] + m["len"] > m["box"] + 0.01:
            fail("label %r of box %r is %.2f px wide from %.2f px: past its box's %.2f px"
                 % (m["label"], name, m["len"], m["pad"], m["box"]))
        if m["name"] is None:
            continue  # a box check_dom() names as unexpected
        if m["label"] != m["name"] and not (m["label"].endswith("..") and m["name"].startswith(m["label"][:-2])):
            continue  # check_dom() says so
        if m["label"] != m["name"] and m["full"] + 2 * m["pad"] <= m["box"] - 0.5:
            fail("label %r of box %r is cut, though its name (%.2f px) fits in %.2f px"
                 % (m["label"], name, m["full"], m["box"]))
    if not labels:
        fail("no label measured")
    return labels


def find_alert(jsonl, alert_id):
    with open(jsonl, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "alert" and rec.get("id") == alert_id:
                return rec
    fail("no alert %s in %s" % (alert_id, jsonl))
    return None


def main():
    if sys.argv[1] == "page":
        alert = find_alert(sys.argv[2], sys.argv[3])
        if alert is None:
            return 1
        write_page(alert, sys.argv[4], sys.argv[5])
        return 0
    jsonl, alert_id, dom, shot, height, measured = sys.argv[1:7]
    alert = find_alert(jsonl, alert_id)
    if alert is None:
        return 1
    labels = check_measured(measured, 1200)
    rects = check_dom(alert, dom)
    if rects:
        if alert_id == "a-burn":  # the fixture: boxes chosen to cover user, kernel and caller frames
            names = ["burn_cpu (libburn.so.1+0x24)", "asm_sysvec_apic_timer_interrupt ([kernel]+0x16)",
                     "main (burner+0x41)"]
        elif alert_id == "a-merge":  # merged: a function at two offsets, unnamed code at two, a new frame
            names = ["__strchr_avx2 (libc.so.6)", "[unknown] (dash)", "hook_spin (libhook.so+0x4)"]
        else:  # a live alert: its three widest boxes
            names = sorted(rects, key=lambda n: -float(rects[n].get("width")))[:3]
        check_shot(shot, int(height), rects, names)
    if failures:
        print("evidence_check: %d failures" % len(failures), file=sys.stderr)
        return 1
    print("evidence_check: the DOM holds exactly the %d boxes of the alert's stacks; the screenshot shows them; "
          "Chromium lays out the %d labels inside their boxes" % (len(expected_boxes(alert["evidence"]["stacks"])), labels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
