"""``mpstudio doctor``: a one-command check of the whole training chain on this
machine (build and driver, memory settings, real training steps per template and
policy, timing, TF32, mirrored), as pass/warn/fail lines with reasons and a
shareable report. ``doctor.run_doctor`` runs it; importing this package imports
no TensorFlow (``checks`` and ``plan`` are plain data)."""
