"""The engine process: the window's TensorFlow runs here, one process away from Qt."""
