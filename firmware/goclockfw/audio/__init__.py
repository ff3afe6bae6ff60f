"""What the speaker plays: voice clips from flash and beep patterns (the hardware is passed in)."""
