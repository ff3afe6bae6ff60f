"""The web app's tools: `make bench-web` (python -m tools.web.bench)."""
