"""Flash: the device config, the game logs and the resume point of the running game."""
