#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check what Chromium made of `plumbline evidence --svg` (evidence_chromium.sh).

The ground truth is the alert itself: its stacks are merged here by prefix,
independently of the C code, into the boxes a flame graph must have, and the
names they must show, escaped as docs/records.md and docs/outputs.md say.

- the DOM (--dump-dom) parses as XML, holds only the writer's own elements
  (no <script> or anything else a hostile name could have become), and its
  boxes are exactly the expected ones: hover title (name, object, samples,
  percentage), and a label that is the name or a cut of it ending "..";
- the title lines name the rule, exe, pid, alert id and total samples;
- the screenshot (--screenshot, PNG decoded here with zlib and struct) has
  the SVG's size, the page background, and the fill of the heaviest user
  box and of the kernel box at their places: the boxes were drawn.

Usage: evidence_check.py ALERTS.jsonl ALERT_ID DOM.xml SHOT.png HEIGHT
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


def expected_boxes(stacks):
    """{key: box} of the merged tree: key = path of frame keys, box = [first line, object line, samples, offsets]."""
    boxes = {(): ["all", None, 0, set()]}
    for st in stacks["top"]:
        path = ()
        boxes[()][2] += st["samples"]
        for fr in st["frames"]:
            obj = unescape(fr["object"])
            fn = unescape(fr["function"]) if fr.get("function") is not None else None
            off = fr.get("offset", 0)
            path = path + ((bool(fr.get("kernel")), obj, fn, None if fn is not None else off),)
            box = boxes.setdefault(path, [None, escape(obj), 0, set()])
            box[2] += st["samples"]
            box[3].add(off)
            if fn is None:
                box[0] = escape(basename(obj) + b"+0x%x" % off)
            else:
                box[0] = (fn, obj)
    for box in boxes.values():
        if isinstance(box[0], tuple):
            fn, obj = box[0]
            where = escape(basename(obj)) + ("+0x%x" % next(iter(box[3])) if len(box[3]) == 1 else "")
            box[0] = "%s (%s)" % (escape(fn), where)
    rest = stacks["samples"] - boxes[()][2]
    unattributed = min(stacks.get("unattributed", 0), max(rest, 0))
    if unattributed:
        boxes[("kept",)] = ["[stack not kept]", None, unattributed, set()]
    if rest > unattributed:
        boxes[("other",)] = ["[other stacks]", None, rest - unattributed, set()]
    boxes[()][2] = max(boxes[()][2], stacks["samples"])
    return boxes


def label_of(name):
    """The label a box shows for its name: the name, or a cut of it."""
    return name.split(" (", 1)[0] if " (" in name and not name.startswith("[") else name


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
    total = want[()][2]
    expected = sorted(
        "\n".join([b[0]] + ([b[1]] if b[1] is not None else []) +
                  ["%d sample%s, %.2f%%" % (b[2], "" if b[2] == 1 else "s", 100.0 * b[2] / total)])
        for b in want.values())
    rects, got = {}, []
    for g in root.iter(SVG + "g"):
        title = g.find(SVG + "title").text
        got.append(title)
        rect = g.find(SVG + "rect")
        rects[title.split("\n")[0]] = rect
        text = g.find(SVG + "text")
        name = label_of(title.split("\n")[0])
        if text is not None and text.text != name and not (text.text.endswith("..") and name.startswith(text.text[:-2])):
            fail("box %r is labelled %r" % (name, text.text))
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
    for part in (alert["exe"], "pid %d" % alert["pid"], "alert " + alert["id"], "%d samples" % stacks["samples"]):
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


def main():
    jsonl, alert_id, dom, shot, height = sys.argv[1:6]
    alert = None
    with open(jsonl, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "alert" and rec.get("id") == alert_id:
                alert = rec
                break
    if alert is None:
        fail("no alert %s in %s" % (alert_id, jsonl))
        return 1
    rects = check_dom(alert, dom)
    if rects:
        if alert_id == "a-burn":  # the fixture: boxes chosen to cover user, kernel and caller frames
            names = ["burn_cpu (libburn.so.1+0x24)", "asm_sysvec_apic_timer_interrupt ([kernel]+0x16)",
                     "main (burner+0x41)"]
        else:  # a live alert: its three widest boxes
            names = sorted(rects, key=lambda n: -float(rects[n].get("width")))[:3]
        check_shot(shot, int(height), rects, names)
    if failures:
        print("evidence_check: %d failures" % len(failures), file=sys.stderr)
        return 1
    print("evidence_check: the DOM holds exactly the %d boxes of the alert's stacks; the screenshot shows them"
          % len(expected_boxes(alert["evidence"]["stacks"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
