"""goclock host tool: configure, watch and arbitrate a goclock; pull, verify and export game logs."""

__version__ = "0.1.0"
