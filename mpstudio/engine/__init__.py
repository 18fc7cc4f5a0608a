"""The training engine: pure Python + TensorFlow, no Qt. Runs in the CLI, tests and GUI."""
