"""The PC's audio player for the clock's calls: the terminal clock and the benchmarks."""

import os
import shutil
import subprocess
import tempfile

from . import clips


class Speaker:
    """The PC's audio player, if there is one; a newer clip cuts the one playing.

    IMA ADPCM clips (the shipped packs) are played from a 16-bit PCM copy decoded by the
    firmware's decoder (goclock.voice.clips.pcm_copy), made once per clip in a folder of the
    Speaker's own: aplay takes PCM only."""

    COMMANDS = (
        ("aplay", ["aplay", "-q"]),
        ("paplay", ["paplay"]),
        ("ffplay", ["ffplay", "-nodisp", "-autoexit", "-loglevel", "quiet"]),
    )

    def __init__(self):
        self.command = None
        for name, cmd in self.COMMANDS:
            if shutil.which(name):
                self.command = cmd
                break
        self._proc = None
        self._copies = None  # tempfile.TemporaryDirectory of the PCM copies, made when needed

    def play(self, path):
        self.stop()
        if self.command is None or not os.path.exists(path):
            return
        if self._copies is None:
            self._copies = tempfile.TemporaryDirectory(prefix="goclock-speaker-")
        try:
            path = clips.pcm_copy(path, self._copies.name)
        except (clips.ClipError, OSError):
            return  # not a clip the check would pass: silent, the sim goes on
        try:
            self._proc = subprocess.Popen(
                self.command + [path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        except OSError:
            self.command = None

    def stop(self):
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
        self._proc = None
