"""The window's side of the engine process: typed jobs and the client that runs them."""
