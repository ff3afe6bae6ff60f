"""A game's record as the host reads it: pulled from the clock (pull.py), its checksum chain
verified (verify.py), read into moves and times (gamerecord.py), reported (report.py), its
times merged into an SGF game record (sgfmerge.py), its events put into words
(eventtext.py)."""
