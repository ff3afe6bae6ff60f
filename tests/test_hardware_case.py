"""The printable case (hardware/case.scad) renders, fits and is drawn as committed.

OpenSCAD (Debian's, installed by `make hardware-tools` or here, as root, when missing)
renders the shell and the base plate to STLs at a low $fn (seconds): each must be a
closed solid of the size its parameters say, with the holes the parts need, and a
changed parameter must change it. The "clash" render (what hangs from the shell against
what stands on the plate) must be empty. The committed preview images and the
dimensioned drawing must be the ones made from the model as it is now.
"""

import os
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import REPO
from tools.hardware import case, debian, pngmeta

FN = 12  # facets per circle in the tests' renders: seconds, not minutes
PARAMS = case.parameters()
IMG = os.path.join(REPO, "docs", "img")


@pytest.fixture(scope="module")
def openscad():
    lack = debian.ensure(["openscad", "xvfb-run"])
    if lack:
        pytest.skip(
            "openscad cannot be installed here (not root, or apt-get failed): %s"
            % debian.install_hint(lack)
        )


def _stl(tmp_path, name, defines):
    out = str(tmp_path / (name + ".stl"))
    case.render_stl(out, dict(defines, **{"$fn": FN}))
    return case.read_stl(out)


def _near(a, b, tol=0.05):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def _has_vertex(triangles, test):
    return any(test(v) for t in triangles for v in t)


def test_the_shell_is_a_closed_solid_of_its_size_with_the_parts_holes(openscad, tmp_path):
    p = PARAMS
    tris = _stl(tmp_path, "shell", {"part": "shell"})
    lo, hi = case.bounds(tris)
    assert _near(lo, (-p["case_w"] / 2, 0, 0)) and _near(
        hi, (p["case_w"] / 2, p["case_d"], p["case_h"])
    )
    assert case.open_edges(tris) == []
    # The player buttons' holes: the top plane has edges on a circle of the hole's size
    # round each button's centre.
    y = p["case_d"] - p["top_d"] / 2
    for sx in (-1, 1):
        x = sx * p["button_spacing"] / 2
        assert _has_vertex(
            tris,
            lambda v, x=x: (
                abs(v[2] - p["case_h"]) < 1e-3
                and abs(((v[0] - x) ** 2 + (v[1] - y) ** 2) ** 0.5 - p["button_hole"] / 2) < 0.05
            ),
        ), "no %s mm hole at x=%s" % (p["button_hole"], x)
    # The board's USB slot in the back wall, at the board's connector.
    usb_z = p["standoff_h"] + p["pico_size"][2] + 1.6
    assert _has_vertex(
        tris,
        lambda v: (
            abs(v[1] - p["case_d"]) < 1e-3
            and abs(v[0]) <= p["usb_slot"][0] / 2 + 1e-3
            and abs(v[2] - usb_z) <= p["usb_slot"][1] / 2 + 1e-3
        ),
    )


def test_the_base_follows_its_parameters(openscad, tmp_path):
    """A narrower case for an ESP32-DevKitC: the plate is 150 mm and carries the
    DevKitC's corner posts, the tallest thing on it."""
    p = PARAMS
    tris = _stl(tmp_path, "base", {"part": "base", "board": "esp32", "case_w": 150})
    lo, hi = case.bounds(tris)
    top = p["base_t"] + p["standoff_h"] + p["esp32_size"][2] + 1.5
    assert _near(lo, (-75, 0, 0)) and _near(hi, (75, p["case_d"], top))
    assert case.open_edges(tris) == []


def _clash(tmp_path, defines):
    out = str(tmp_path / "clash.stl")
    cmd = [
        "openscad",
        "-o",
        out,
        *case._defines(dict(defines, part="clash", **{"$fn": 8})),
        case.SCAD,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def test_the_parts_fit_inside(openscad, tmp_path):
    done = _clash(tmp_path, {})
    assert done.returncode != 0 and "top level object is empty" in done.stderr, done.stderr[-500:]


def test_a_battery_too_tall_for_its_bay_is_a_clash(openscad, tmp_path):
    done = _clash(tmp_path, {"battery": [60, 36, 30]})  # up into the left button's switch
    assert done.returncode == 0, done.stderr[-500:]
    assert case.read_stl(str(tmp_path / "clash.stl"))


def test_a_preview_renders_without_a_display(openscad, tmp_path, monkeypatch):
    from PIL import Image

    monkeypatch.delenv("DISPLAY", raising=False)
    out = str(tmp_path / "case.png")
    case.render_png(out, case.VIEWS["case.png"], size=(400, 280))
    with Image.open(out) as im:
        assert im.size == (400, 280)
        colours = im.convert("RGB").getcolors(400 * 280)
    dark = sum(n for n, (r, g, b) in colours if r < 50 and g < 50 and b < 50)
    kaya = sum(n for n, (r, g, b) in colours if r > g > b + 30 and r > 120)
    assert dark > 300, "no black player button in the preview"
    assert kaya > 10000, "no case in the preview"


@pytest.mark.parametrize("name", sorted(case.VIEWS))
def test_the_committed_previews_are_of_the_model_as_it_is(name):
    with open(case.SCAD) as f:
        digest = case.view_digest(name, f.read())
    with open(os.path.join(IMG, name), "rb") as f:
        png = f.read()
    meta = pngmeta.read_text(png)
    assert meta.get("Source-SHA256") == digest, (
        "docs/img/%s is stale: python -m tools.hardware.case" % name
    )
    assert "MIT" in meta["Copyright"]
    assert pngmeta.size(png) == case.VIEWS[name]["size"]


def test_the_drawing_shows_the_model_s_dimensions():
    with open(os.path.join(IMG, "case-drawing.svg")) as f:
        committed = f.read()
    assert committed == case.drawing(PARAMS), (
        "docs/img/case-drawing.svg is stale: python -m tools.hardware.case"
    )
    dims = {
        e.get("data-dim"): float(e.get("data-mm"))
        for e in ET.fromstring(committed).iter("{http://www.w3.org/2000/svg}line")
        if e.get("data-dim")
    }
    p = PARAMS
    total = p["case_h"] + p["base_t"]
    assert dims == {
        "case_w": p["case_w"],
        "case_d": p["case_d"],
        "total_h": total,
        "back_total_h": total,
        "front_total_h": p["front_h"] + p["base_t"],
        "top_d": p["top_d"],
        "button_spacing": p["button_spacing"],
    }
    with open(os.path.join(IMG, "case-drawing.png"), "rb") as f:
        meta = pngmeta.read_text(f.read())
    assert meta.get("Source-SHA256") == case.drawing_digest(committed)


def test_the_model_s_parameters_are_read_as_values():
    p = case.parameters(
        'a = 3;\nb = [1, 2.5];\nc = "x"; // note\nd = true;\n// ----- derived\ne = a * 2;'
    )
    assert p == {"a": 3, "b": [1, 2.5], "c": "x", "d": True}
    with pytest.raises(case.CaseError, match="f = 1 \\+"):
        case.parameters("f = 1 + ;\n// ----- derived\n")


def test_without_root_the_missing_tools_are_named_not_installed(monkeypatch):
    ran = []
    monkeypatch.setattr(debian.shutil, "which", lambda c: None if c == "openscad" else "/bin/" + c)
    monkeypatch.setattr(debian.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(debian.subprocess, "run", lambda *a, **k: ran.append(a))
    assert debian.ensure(["openscad", "xvfb-run"]) == ["openscad"]
    assert ran == []
    assert debian.install_hint(["openscad"]) == "apt-get install --no-install-recommends openscad"
