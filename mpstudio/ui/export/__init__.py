"""File > Export model: the dialog, its job in the engine process, the verified results."""
