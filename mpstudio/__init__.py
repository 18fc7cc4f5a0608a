"""mpstudio: a workbench for mixed-precision training with TensorFlow/Keras."""

__version__ = "0.1.0"
