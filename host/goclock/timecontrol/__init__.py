"""Time controls as people and programs write them: the notation (notation.py), named presets
(presets.py), SGF roots (sgfroot.py), OGS objects (ogs.py), Go engines' GTP commands (gtp.py),
each checked by the firmware's own core (core.py)."""
