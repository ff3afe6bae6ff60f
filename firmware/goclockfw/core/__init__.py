"""The rules of time, pure: no hardware, no storage, no clock reads.

Time is an argument (integer ms ticks) everywhere; this runs unchanged on CPython and MicroPython.
"""
