"""`goclock web`: the web app at http://127.0.0.1:N/ and the clock bridged to its pages.

    goclock web                          # the clock found by itself, or the pages alone
    goclock --port /dev/ttyACM0 web --port 8000
    goclock web --sim                    # a simulated clock (the firmware, unix port)

Runs until Ctrl-C (or SIGTERM).
"""

import signal
import sys
import threading

from ..errors import NoClockError
from ..link import discovery


def do_web(args):
    from ..web import start_web

    serial_port = None
    why = None
    if not args.sim:
        try:
            serial_port = discovery.choose_port(args.port)
        except NoClockError as exc:
            why = str(exc)
    web = start_web(
        serial_port,
        port=args.web_port,
        dist=args.dist,
        sim=args.sim,
        sim_flash=args.flash,
    )
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        print("goclock web: %s (Ctrl-C stops it)" % web.url)
        if web.sim is not None:
            print("  a simulated clock on %s, its flash in %s" % (web.port_name, web.sim.flash))
        elif web.port_name:
            print("  the clock on %s, bridged to the pages" % web.port_name)
        else:
            print("  no clock: %s" % why, file=sys.stderr)
        sys.stdout.flush()
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        web.stop()
    return 0
