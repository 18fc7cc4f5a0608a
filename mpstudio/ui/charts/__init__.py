"""The live charts: growing buffers, one setData per curve per frame, hover readouts, saving."""
