"""Turning a trained model into the files deployment needs, and proving each one
computes what the trained model computes.

``formats`` names the formats and what each needs (no TensorFlow import, so the GUI
can grey out a missing one at start-up); ``exporter.export_models`` does the work:
convert into a staging folder beside the target, load the result back in its own
runtime, compare it with the trained model on held-out examples, and only then move
it into place.
"""
