"""Voice packs on the host: a pack's profile, slot limits, check, manifest and push (pack.py);
recordings made into a pack (convert.py: wavin.py reads them, resample.py and dsp.py bring
them to 16 kHz and one loudness, adpcmenc.py encodes them); the clips as the clock plays
them (clips.py); the PC's player for the calls (speaker.py)."""
