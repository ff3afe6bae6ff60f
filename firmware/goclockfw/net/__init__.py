"""The clock on the network (docs/hall.md): the MQTT client and the hall's publisher.

Imported only when the config has a `network` object: a clock without one loads none of
this, allocates nothing for it and spends nothing on it in its loop.
"""
