"""Which version of a module of byte work this port runs: its viper code (the chips) or
its plain Python (CPython, the tests and tools; a MicroPython built without native code,
as the browser's webassembly port is).

    impl = pick("bytesops")   # goclockfw.bytesops_viper, or goclockfw.bytesops_py

Only the version picked is imported, so the other one's bytecode never takes heap on a
chip running the `.mpy` layout.
"""

try:
    import micropython
except ImportError:  # CPython
    micropython = None


def pick(name):
    """The module goclockfw.<name>_viper where viper code compiles, else <name>_py."""
    if micropython is not None:
        try:
            return __import__("goclockfw." + name + "_viper", None, None, ("pick",))
        except SyntaxError:  # no native emitter in this port
            pass
    return __import__("goclockfw." + name + "_py", None, None, ("pick",))
