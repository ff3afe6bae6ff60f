"""The case (hardware/case.scad): STLs to print, preview images and a dimensioned drawing.

    python -m tools.hardware.case [--board pico|esp32] [--stl-dir build/case] [--check]

writes build/case/shell.stl and base.stl (OpenSCAD's CGAL render), docs/img/case.png
(assembled) and docs/img/case-inside.png (the shell lifted off the plate), both drawn
by OpenSCAD's preview renderer (colours) under xvfb-run when there is no display, and
docs/img/case-drawing.svg (and .png), three views with the main dimensions, drawn here
from the model's parameters. Each image is stamped with the hash of what it was made
from, so tests/test_hardware_case.py can tell a stale one without rendering it again.

openscad, xvfb-run and rsvg-convert are Debian packages (`python -m tools.hardware.debian`).
"""

import argparse
import ast
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

from . import pngmeta

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCAD = os.path.join(REPO, "hardware", "case.scad")
IMG = os.path.join(REPO, "docs", "img")
STL_DIR = os.path.join(REPO, "build", "case")

# The preview images: OpenSCAD's own preview (OpenCSG), which keeps the colours.
VIEWS = {
    "case.png": {
        "defines": {"part": "assembled", "show_parts": True},
        "camera": "0,0,0,62,0,330,0",
        "size": (1000, 700),
    },
    "case-inside.png": {
        "defines": {"part": "exploded"},
        "camera": "0,0,0,62,0,200,0",
        "size": (1000, 800),
    },
}
COPYRIGHT = "goclock contributors, MIT licence"


class CaseError(RuntimeError):
    pass


# ----- the model's parameters ----------------------------------------------------------


def parameters(text=None):
    """The model's top-level `name = value;` settings above its derived values, as Python
    values (numbers, strings, booleans, lists)."""
    if text is None:
        with open(SCAD) as f:
            text = f.read()
    head = text.split("// ----- derived", 1)[0]
    out = {}
    for m in re.finditer(r"^(\$?\w+)\s*=\s*([^;]+);", head, re.M):
        literal = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", m.group(2)))
        try:
            out[m.group(1)] = ast.literal_eval(literal.strip())
        except (ValueError, SyntaxError) as e:
            raise CaseError("hardware/case.scad: %s = %s: %s" % (m.group(1), m.group(2), e)) from e
    return out


def scad_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    return repr(v)


def _defines(defines):
    args = []
    for k, v in sorted(defines.items()):
        args += ["-D", "%s=%s" % (k, scad_value(v))]
    return args


# ----- OpenSCAD ------------------------------------------------------------------------


def _run(cmd, what):
    started = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if p.returncode != 0:
        raise CaseError("%s failed (exit %d): %s" % (what, p.returncode, p.stderr.strip()[-800:]))
    warnings = [line for line in p.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    if warnings:
        raise CaseError("%s: %s" % (what, "; ".join(warnings)))
    return seconds


def render_stl(out, defines=None, scad=SCAD):
    """hardware/case.scad with `defines` (-D name=value) as an STL; the seconds it took."""
    if shutil.which("openscad") is None:
        raise CaseError("openscad is missing: python -m tools.hardware.debian")
    return _run(["openscad", "-o", out, *_defines(defines or {}), scad], "openscad -o %s" % out)


def render_png(out, view, scad=SCAD, size=None):
    """A preview image of `view` (one of VIEWS); the seconds it took."""
    if shutil.which("openscad") is None:
        raise CaseError("openscad is missing: python -m tools.hardware.debian")
    w, h = size or view["size"]
    cmd = [
        "openscad",
        "-o",
        out,
        *_defines(view["defines"]),
        "--camera=%s" % view["camera"],
        "--viewall",
        "--autocenter",
        "--imgsize=%d,%d" % (w, h),
        "--colorscheme=Tomorrow",
        scad,
    ]
    if not os.environ.get("DISPLAY"):
        # Debian's openscad needs an X display for its OpenGL context, even for a file.
        if shutil.which("xvfb-run") is None:
            raise CaseError("no display and no xvfb-run: python -m tools.hardware.debian")
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", *cmd]
    return _run(cmd, "openscad -o %s" % out)


def view_digest(name, scad_text):
    """What a preview image is made from: the model and the view's settings."""
    view = VIEWS[name]
    key = json.dumps(
        {"view": name, "defines": view["defines"], "camera": view["camera"], "size": view["size"]},
        sort_keys=True,
    )
    return hashlib.sha256(scad_text.encode() + b"\0" + key.encode()).hexdigest()


def stamp(path, digest, source):
    with open(path, "rb") as f:
        data = f.read()
    data = pngmeta.with_text(
        data, {"Source": source, "Source-SHA256": digest, "Copyright": COPYRIGHT}
    )
    with open(path, "wb") as f:
        f.write(data)


def stamped(path, digest):
    if not os.path.exists(path):
        return False
    with open(path, "rb") as f:
        return pngmeta.read_text(f.read()).get("Source-SHA256") == digest


# ----- STL -----------------------------------------------------------------------------


def read_stl(path):
    """The triangles of an ASCII STL (OpenSCAD writes ASCII), as vertex triples."""
    triangles, current = [], []
    with open(path) as f:
        for line in f:
            words = line.split()
            if words and words[0] == "vertex":
                current.append(tuple(float(w) for w in words[1:4]))
                if len(current) == 3:
                    triangles.append(tuple(current))
                    current = []
    if not triangles:
        raise CaseError("%s: no triangles" % path)
    return triangles


def bounds(triangles):
    xs = [v[0] for t in triangles for v in t]
    ys = [v[1] for t in triangles for v in t]
    zs = [v[2] for t in triangles for v in t]
    return (min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs))


def open_edges(triangles):
    """Edges not shared by exactly two triangles, in opposite directions: none in a
    closed (printable) solid."""
    count = {}
    for t in triangles:
        keys = [tuple(round(c, 4) for c in v) for v in t]
        for a, b in ((0, 1), (1, 2), (2, 0)):
            edge = (keys[a], keys[b])
            count[edge] = count.get(edge, 0) + 1
    bad = []
    for (a, b), n in count.items():
        if n != 1 or count.get((b, a), 0) != 1:
            bad.append((a, b))
    return bad


# ----- the dimensioned drawing ---------------------------------------------------------

PX = 3.0  # px per mm
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


def derived(p):
    run = p["case_d"] - p["top_d"]
    rise = p["case_h"] - p["front_h"]
    return {
        "slope_a": math.degrees(math.atan2(rise, run)),
        "slope_len": math.hypot(run, rise),
        "top_y": p["case_d"] - p["top_d"] / 2,
        "total_h": p["case_h"] + p["base_t"],
    }


class _Draw:
    def __init__(self):
        self.items = []

    def add(self, s):
        self.items.append(s)

    def line(self, x1, y1, x2, y2, style='stroke="#222" stroke-width="1.5"'):
        self.add(
            '<line x1="%s" y1="%s" x2="%s" y2="%s" %s/>' % (_n(x1), _n(y1), _n(x2), _n(y2), style)
        )

    def poly(self, pts, style='fill="#f3e3c6" stroke="#222" stroke-width="1.5"'):
        self.add(
            '<polygon points="%s" %s/>'
            % (" ".join("%s,%s" % (_n(x), _n(y)) for x, y in pts), style)
        )

    def circle(self, x, y, r, style='fill="#ffffff" stroke="#222" stroke-width="1.2"'):
        self.add('<circle cx="%s" cy="%s" r="%s" %s/>' % (_n(x), _n(y), _n(r), style))

    def text(self, x, y, s, size=11, anchor="middle", rotate=None, colour="#222"):
        rot = ' transform="rotate(%s %s %s)"' % (_n(rotate), _n(x), _n(y)) if rotate else ""
        self.add(
            '<text x="%s" y="%s" font-size="%s" text-anchor="%s" fill="%s"%s>%s</text>'
            % (
                _n(x),
                _n(y),
                size,
                anchor,
                colour,
                rot,
                s.replace("&", "&amp;").replace("<", "&lt;"),
            )
        )

    def dim(self, x1, y1, x2, y2, label, offset, data):
        """A dimension line between two points, `offset` px to its left, labelled."""
        dx, dy = x2 - x1, y2 - y1
        length = math.hypot(dx, dy)
        nx, ny = dy / length, -dx / length  # to the left of the direction, y down
        a1, b1 = x1 + nx * offset, y1 + ny * offset
        a2, b2 = x2 + nx * offset, y2 + ny * offset
        style = 'stroke="#1565c0" stroke-width="1"'
        self.line(x1 + nx * 3, y1 + ny * 3, a1 + nx * 4, b1 + ny * 4, style)
        self.line(x2 + nx * 3, y2 + ny * 3, a2 + nx * 4, b2 + ny * 4, style)
        self.add(
            '<line class="dim" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#1565c0" stroke-width="1"'
            ' marker-start="url(#arrow)" marker-end="url(#arrow)" data-dim="%s" data-mm="%s"/>'
            % (_n(a1), _n(b1), _n(a2), _n(b2), data, _n(length / PX))
        )
        angle = math.degrees(math.atan2(dy, dx))
        if angle > 90 or angle <= -90:
            angle += 180
        mx, my = (a1 + a2) / 2 + nx * 6, (b1 + b2) / 2 + ny * 6
        self.text(mx, my + 4, label, 11, "middle", angle if abs(angle) > 0.1 else None, "#0d47a1")


def _n(v):
    s = "%.1f" % v
    return s[:-2] if s.endswith(".0") else s


def _mm(v):
    return ("%.1f" % v).rstrip("0").rstrip(".")


def drawing(p):
    """The case in three views (side, top, back) with its main dimensions, as SVG text."""
    d = derived(p)
    D, H, B = p["case_d"], p["case_h"], p["base_t"]
    g = _Draw()
    # Side view, seen from the right-hand end: front (display) on the left.
    ox, oy = 60, 80 + (H + B) * PX
    _side_view(g, p, d, ox, oy)
    # Top view: front at the bottom.
    tx, ty = ox + D * PX + 110, 80
    _top_view(g, p, d, tx, ty)
    # Back view (seen from behind: the right-hand end on the left).
    bx, by = tx, ty + D * PX + 80 + (H + B) * PX
    _back_view(g, p, bx, by)
    return _drawing_document(g, p, tx, by)


def _side_view(g, p, d, ox, oy):
    D, H, F, T, B = p["case_d"], p["case_h"], p["front_h"], p["top_d"], p["base_t"]

    def side(y, z):
        return ox + y * PX, oy - z * PX

    g.text(ox + D * PX / 2, 24, "side (from the right)", 13)
    g.poly(
        [side(0, 0), side(D, 0), side(D, B), side(0, B)],
        'fill="#bcaaa4" stroke="#222" stroke-width="1.5"',
    )
    g.poly([side(0, B), side(D, B), side(D, B + H), side(D - T, B + H), side(0, B + F)])
    g.dim(*side(0, 0), *side(D, 0), "%s" % _mm(D), -22, "case_d")
    g.dim(*side(D, 0), *side(D, B + H), "%s" % _mm(H + B), -26, "total_h")
    g.dim(*side(0, B + F), *side(0, 0), "%s" % _mm(F + B), -22, "front_total_h")
    g.dim(*side(D - T, B + H), *side(D, B + H), "%s" % _mm(T), 18, "top_d")
    sx, sy = side((D - T) / 2, B + (F + H) / 2)
    g.text(sx + 30, sy + 34, "display slope %s\u00b0" % _mm(d["slope_a"]), 11, "start")


def _top_view(g, p, d, tx, ty):
    W, D, T = p["case_w"], p["case_d"], p["top_d"]

    def top(x, y):
        return tx + (x + W / 2) * PX, ty + (D - y) * PX

    c = p["end_chamfer"]
    g.text(tx + W * PX / 2, 24, "top (the front at the bottom)", 13)
    g.poly(
        [top(-W / 2 + c, 0), top(W / 2 - c, 0), top(W / 2, c), top(W / 2, D - c),
         top(W / 2 - c, D), top(-W / 2 + c, D), top(-W / 2, D - c), top(-W / 2, c)]
    )  # fmt: skip
    g.line(*top(-W / 2, D - T), *top(W / 2, D - T), 'stroke="#777" stroke-dasharray="5 3"')
    for s, fill in ((-1, "#1b1b1b"), (1, "#ffffff")):
        g.circle(*top(s * p["button_spacing"] / 2, d["top_y"]), p["button_hole"] / 2 * PX,
                 'fill="%s" stroke="#222" stroke-width="1.5"' % fill)  # fmt: skip
    g.circle(
        *top(0, d["top_y"]),
        p["grille_d"] / 2 * PX,
        'fill="none" stroke="#555" stroke-dasharray="3 2"',
    )
    cos_a = math.cos(math.radians(d["slope_a"]))
    mid = d["slope_len"] / 2
    win_y = (mid + p["oled_window_shift"]) * cos_a
    ww, wh = p["oled_window"][0], p["oled_window"][1] * cos_a
    x0, y0 = top(-ww / 2, win_y + wh / 2)
    g.add('<rect x="%s" y="%s" width="%s" height="%s" fill="#29b6f6" stroke="#222"/>'
          % (_n(x0), _n(y0), _n(ww * PX), _n(wh * PX)))  # fmt: skip
    for x, r, fill in (
        (p["arbiter_x"], p["arbiter_recess_d"] / 2, "#c62828"),
        (p["led_x"], p["led_hole"] / 2, "#ffb300"),
    ):
        if r > 0:
            cx, cy = top(x, mid * cos_a)
            g.add('<ellipse cx="%s" cy="%s" rx="%s" ry="%s" fill="%s" stroke="#222"/>'
                  % (_n(cx), _n(cy), _n(r * PX), _n(r * cos_a * PX), fill))  # fmt: skip
    g.dim(*top(-W / 2, 0), *top(W / 2, 0), "%s" % _mm(W), -22, "case_w")
    g.dim(*top(-p["button_spacing"] / 2, D), *top(p["button_spacing"] / 2, D),
          "%s between the buttons" % _mm(p["button_spacing"]), 18, "button_spacing")  # fmt: skip
    g.text(*top(-p["button_spacing"] / 2, d["top_y"] - p["button_hole"] / 2 - 6),
           "\u00d8%s Black" % _mm(p["button_hole"]), 11)  # fmt: skip
    g.text(*top(p["button_spacing"] / 2, d["top_y"] - p["button_hole"] / 2 - 6),
           "\u00d8%s White" % _mm(p["button_hole"]), 11)  # fmt: skip
    g.text(
        *top(0, win_y - wh / 2 - 5),
        "display %s \u00d7 %s" % (_mm(p["oled_window"][0]), _mm(p["oled_window"][1])),
        10,
    )
    g.text(*top(p["arbiter_x"], mid * cos_a - p["arbiter_recess_d"] / 2 - 4), "arbiter key", 10)
    g.text(*top(0, d["top_y"] - 1), "speaker", 10)


def _back_view(g, p, bx, by):
    W, H, B = p["case_w"], p["case_h"], p["base_t"]
    c = p["end_chamfer"]

    def back(x, z):
        return bx + (W / 2 - x) * PX, by - z * PX

    g.text(bx + W * PX / 2, by - (H + B) * PX - 14, "back (from behind)", 13)
    g.poly(
        [back(W / 2, 0), back(-W / 2, 0), back(-W / 2, B), back(W / 2, B)],
        'fill="#bcaaa4" stroke="#222" stroke-width="1.5"',
    )
    g.poly([back(W / 2 - c, B), back(-W / 2 + c, B), back(-W / 2, B + c), back(-W / 2, B + H - c),
            back(-W / 2 + c, B + H), back(W / 2 - c, B + H), back(W / 2, B + H - c), back(W / 2, B + c)])  # fmt: skip
    usb_z = p["standoff_h"] + p["pico_size"][2] + 1.6
    for x, z, size, label in (
        (0, usb_z, p["usb_slot"], "board USB"),
        (p["charger_x"], p["charger"][2] + 1.6, p["charger_slot"], "charging USB"),
        (p["switch_x"], H / 2, p["switch_cut"], "power switch"),
    ):
        x0, y0 = back(x + size[0] / 2, B + z + size[1] / 2)
        g.add('<rect x="%s" y="%s" width="%s" height="%s" fill="#ffffff" stroke="#222" rx="2"/>'
              % (_n(x0), _n(y0), _n(size[0] * PX), _n(size[1] * PX)))  # fmt: skip
        g.text(*back(x, B + z + size[1] / 2 + 4), label, 10)
    g.dim(*back(W / 2, B + H), *back(W / 2, 0), "%s" % _mm(H + B), -22, "back_total_h")


def _drawing_document(g, p, tx, by):
    """The notes under the views, then the SVG document around what `g` drew."""
    W = p["case_w"]
    notes = [
        "All sizes in mm, from hardware/case.scad's parameters (the parts' sizes are typical ones: measure yours).",
        "Two prints: the shell (upside down, its top on the bed) and the base plate; four M3 \u00d7 10 self-tapping screws from below.",
        "goclock (MIT licence). Drawn by python -m tools.hardware.case: do not edit.",
    ]
    width = int(tx + W * PX + 60)
    height = int(by + 30 + 18 * len(notes))
    for i, note in enumerate(notes):
        g.text(
            20,
            by + 40 + 18 * i,
            note,
            11 if i < 2 else 9,
            "start",
            colour="#333" if i < 2 else "#777",
        )
    head = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="%s">\n'
        "<title>goclock case: dimensions</title>\n"
        "<metadata>goclock case drawing. MIT licence, the goclock contributors.</metadata>\n"
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="7" markerHeight="7"'
        ' orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1565c0"/></marker></defs>\n'
        '<rect width="%d" height="%d" fill="#ffffff"/>\n'
        % (width, height + 30, width, height + 30, FONT, width, height + 30)
    )
    return head + "\n".join(g.items) + "\n</svg>\n"


def drawing_digest(svg_text):
    return hashlib.sha256(svg_text.encode()).hexdigest()


# ----- the command ---------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.hardware.case", description=__doc__)
    ap.add_argument("--board", choices=("pico", "esp32"), default="pico")
    ap.add_argument("--stl-dir", default=STL_DIR)
    ap.add_argument("--img", default=IMG, help="where the images go (docs/img)")
    ap.add_argument("--no-stl", action="store_true")
    ap.add_argument("--check", action="store_true", help="only say which images are stale")
    args = ap.parse_args(argv)
    with open(SCAD) as f:
        scad_text = f.read()
    try:
        svg = drawing(parameters(scad_text))
    except (CaseError, KeyError, TypeError) as e:
        print("[case] %s" % e)
        return 2
    svg_path = os.path.join(args.img, "case-drawing.svg")
    stale = []
    old = open(svg_path).read() if os.path.exists(svg_path) else None
    if old != svg:
        stale.append(svg_path)
    png_path = svg_path[:-4] + ".png"
    if not stamped(png_path, drawing_digest(svg)):
        stale.append(png_path)
    for name in VIEWS:
        if not stamped(os.path.join(args.img, name), view_digest(name, scad_text)):
            stale.append(os.path.join(args.img, name))
    if args.check:
        for path in stale:
            print("[case] stale: %s (python -m tools.hardware.case)" % os.path.relpath(path))
        return 1 if stale else 0
    try:
        os.makedirs(args.img, exist_ok=True)
        if svg_path in stale:
            with open(svg_path, "w") as f:
                f.write(svg)
            print("[case] wrote %s" % os.path.relpath(svg_path))
        if png_path in stale:
            if shutil.which("rsvg-convert") is None:
                print("[case] rsvg-convert is missing: no %s" % os.path.relpath(png_path))
            else:
                subprocess.run(["rsvg-convert", "-o", png_path, svg_path], check=True)
                stamp(png_path, drawing_digest(svg), "drawn from case-drawing.svg")
                print("[case] wrote %s" % os.path.relpath(png_path))
        for name in VIEWS:
            path = os.path.join(args.img, name)
            if path in stale:
                seconds = render_png(path, VIEWS[name])
                stamp(path, view_digest(name, scad_text), "hardware/case.scad, view %s" % name)
                print("[case] wrote %s (%.1f s)" % (os.path.relpath(path), seconds))
        if not args.no_stl:
            os.makedirs(args.stl_dir, exist_ok=True)
            for part in ("shell", "base"):
                out = os.path.join(args.stl_dir, "%s-%s.stl" % (part, args.board))
                seconds = render_stl(out, {"part": part, "board": args.board})
                print("[case] wrote %s (%.1f s)" % (os.path.relpath(out), seconds))
    except (CaseError, OSError, subprocess.CalledProcessError) as e:
        print("[case] %s" % e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
