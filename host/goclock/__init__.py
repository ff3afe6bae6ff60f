"""goclock host tool: configure, watch and arbitrate a goclock; pull, verify and export game logs."""

__version__ = "0.1.0"

# The sides as the clock names them, Black first (the firmware's timecontrol.SIDE_NAMES).
SIDES = ("black", "white")
