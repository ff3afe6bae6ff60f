"""The clock's hardware as files: wiring diagrams drawn from boards/*.json, the case model.

Run from the repository's root:

    python -m tools.hardware.wiring     # docs/img/wiring-<board>.svg and .png
    python -m tools.hardware.case       # the case: an STL and docs/img/case.png
    python -m tools.hardware.debian     # install openscad, rsvg-convert, xvfb-run (root)

Part of goclock, MIT licence (LICENSE at the repository's root).
"""
