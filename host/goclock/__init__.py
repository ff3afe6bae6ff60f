"""goclock host tool: configure, watch and arbitrate a goclock; pull, verify and export game logs."""

from goclockfw import VERSION as __version__  # noqa: F401  (one version: the firmware's)

# The sides as the clock names them, Black first (the firmware's timecontrol.SIDE_NAMES).
SIDES = ("black", "white")
