"""The serial protocol: request lines in, replies and event lines out (docs/protocol.md)."""
