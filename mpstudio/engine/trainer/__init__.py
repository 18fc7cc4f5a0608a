"""Training: one run (``runner.run``) or a float32-vs-mixed comparison (``compare.compare``)."""
