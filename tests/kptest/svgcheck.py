# SPDX-License-Identifier: BSD-2-Clause
"""Checks of kprof-report's SVGs, shared by test_report_svg and
test_report_ksim: the geometry is rebuilt from the rectangles alone and
compared with the folded input's call tree."""

import re
import xml.etree.ElementTree as ET

from kptest.report import check

NS = "{http://www.w3.org/2000/svg}"
PAD = 10
TITLE = re.compile(r"^(.*) \((\d+) samples, (\d+\.\d\d)%(;[^)]*)?\)$")
EPS = 1e-6


def frames_of(path):
    """[(name, n, pct, extra, x, y, w, fill)] of every g.f in the SVG."""
    root = ET.parse(path).getroot()
    check(root.tag == NS + "svg", "%s is an SVG document" % path)
    out = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "f":
            continue
        m = TITLE.match(g.find(NS + "title").text)
        if m is None:
            check(False, "title reads name (N samples, P%%): %r" %
                  g.find(NS + "title").text)
        r = g.find(NS + "rect")
        out.append((m.group(1), int(m.group(2)), m.group(3), m.group(4),
                    float(r.get("x")), float(r.get("y")),
                    float(r.get("width")), r.get("fill")))
    return root, out


def self_contained(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    stripped = text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    for word in ("http:", "https:", "href", "url(", "@import", "fetch(",
                 "XMLHttpRequest", "<image", "<foreignObject"):
        if word in stripped:
            check(False, "%s references nothing outside itself (%s)" %
                  (path, word))
    check(True, "%s references nothing outside itself" % path)


def pruned(folded, plot, min_width, root_name="all"):
    """The input's frames at least @min_width px wide (those drawn), and
    the samples of the frames narrower, counted where a cut begins."""
    total = folded.total
    every = folded.paths(root_name)
    scale = plot / total
    want = {p: n for p, n in every.items() if n * scale >= min_width}
    cut = sum(n for p, n in every.items()
              if p not in want and p[:-1] in want)
    return want, cut


def geometry(path, folded, root_name="all", min_width=0.1):
    """Rebuilds the call tree from the rectangles alone and compares it
    with the folded input's frames that are at least @min_width px wide
    (kprof-report's default --min-width): returns {path: (frame)}."""
    root, frames = frames_of(path)
    width = float(root.get("width"))
    plot = width - 2 * PAD
    total = folded.total
    want, cut = pruned(folded, plot, min_width, root_name)
    check(len(frames) == len(want),
          "%s: one rect per frame of the input at least %g px wide (%d; "
          "%d samples in narrower ones)" % (path, min_width, len(want), cut))
    rows = sorted({f[5] for f in frames}, reverse=True)
    heights = {rows[i] - rows[i + 1] for i in range(len(rows) - 1)}
    check(len(heights) <= 1, "%s: rows are evenly spaced" % path)
    by_depth = {}
    for f in frames:
        by_depth.setdefault(rows.index(f[5]), []).append(f)
    check(len(by_depth[0]) == 1 and by_depth[0][0][0] == root_name and
          by_depth[0][0][1] == total,
          "%s: one root frame at the bottom holding all %d samples" %
          (path, total))
    # The parent is the frame one row down that contains this one; a
    # frame too narrow to round to a width can touch two, and then the
    # one drawn last before it (frames are drawn depth first) is taken.
    order = {id(f): i for i, f in enumerate(frames)}
    paths, keys = {}, {}
    worst = 0.0
    for depth in sorted(by_depth):
        row = sorted(by_depth[depth], key=lambda f: f[4])
        for a, b in zip(row, row[1:]):
            if a[4] + a[6] > b[4] + EPS:
                check(False, "%s: siblings %s and %s overlap" %
                      (path, a[0], b[0]))
        for f in row:
            name, n, pct, _, x, _, w, _ = f
            worst = max(worst, abs(w - n * plot / total))
            if pct != "%.2f" % (100.0 * n / total):
                check(False, "%s: %s's title says %s%%" % (path, name, pct))
            if depth == 0:
                paths[(name,)] = f
                keys[id(f)] = (name,)
                continue
            parents = [pf for pf in by_depth[depth - 1]
                       if pf[4] <= x + EPS and x + w <= pf[4] + pf[6] + EPS
                       and order[id(pf)] < order[id(f)]]
            if not parents:
                check(False, "%s: %s at x=%.2f lies inside a parent" %
                      (path, name, x))
            parent = max(parents, key=lambda pf: order[id(pf)])
            key = keys[id(parent)] + (name,)
            if key in paths:
                check(False, "%s: %s drawn twice" % (path, ";".join(key)))
            paths[key] = f
            keys[id(f)] = key
    check(worst <= 1.0, "%s: every width is its share of %d px within "
          "1 px (worst %.3f px)" % (path, plot, worst))
    check({p: f[1] for p, f in paths.items()} == want,
          "%s: the rects rebuild the input's call tree, counts and all" %
          path)
    check(True, "%s: every frame inside its parent's x-range" % path)
    return paths


def colours(*graphs):
    seen = {}
    for paths in graphs:
        for f in paths.values():
            if seen.setdefault(f[0], f[7]) != f[7]:
                check(False, "%s has one colour (%s, %s)" %
                      (f[0], seen[f[0]], f[7]))
    check(len(set(seen.values())) > len(seen) // 2,
          "colours differ between names (%d colours, %d names)" %
          (len(set(seen.values())), len(seen)))
    check(True, "a name has the same colour in every graph")



def diff_colours(paths, before, after):
    """The diff's colours against the change of each frame's share."""
    bp = before.paths()
    kinds = {"red": 0, "blue": 0, "white": 0}
    for p, f in paths.items():
        change = 100.0 * f[1] / after.total - 100.0 * bp.get(p, 0) / \
            before.total
        rgb = tuple(int(v) for v in re.findall(r"\d+", f[7]))
        # The tool and this check compute the change in floating point
        # by different roads: on the 0.1-point edge either is right.
        edge = abs(abs(change) - 0.1) < 1e-9
        if abs(change) <= 0.1:
            kind, ok = "white", rgb == (255, 255, 255) or edge
        elif change > 0:
            kind, ok = "red", (rgb[0] == 255 and rgb[1] == rgb[2] < 255) \
                or (edge and rgb == (255, 255, 255))
        else:
            kind, ok = "blue", (rgb[2] == 255 and rgb[0] == rgb[1] < 255) \
                or (edge and rgb == (255, 255, 255))
        said = re.search(r"([+-][0-9]+\.[0-9]{2}) points", f[3])
        # Rounded to two places from a float computed another way.
        if not ok or not said or abs(float(said.group(1)) - change) > 0.005 + 1e-9:
            check(False, "diff: %s changed %+.2f points: %s, title %r" %
                  (";".join(p), change, f[7], f[3]))
        kinds[kind] += 1
    check(True, "diff: colour follows the change of share "
          "(%d red, %d blue, %d white)" % (kinds["red"], kinds["blue"],
                                           kinds["white"]))
    return kinds
