"""The voice packs' tools (`make sounds`, `make voice-score`), run in .venv-voice."""
