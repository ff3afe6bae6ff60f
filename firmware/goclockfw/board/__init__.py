"""The boards: one module per family; the only code that touches hardware (pins, I2S, flash)."""
