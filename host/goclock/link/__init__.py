"""The host's side of the line to a clock: the serial transport (transport.py), the goclock
protocol over it (client.py), finding the clock among the ports (discovery.py), and the
board's files through mpremote for a deploy (board.py)."""
