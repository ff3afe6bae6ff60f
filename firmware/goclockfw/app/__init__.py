"""The clock at a board, without the board: buttons, gestures, announcer, records and the loop."""
