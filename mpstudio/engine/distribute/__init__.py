"""Running one spec over several devices with ``tf.distribute``: which strategies
this machine offers (options, cluster: no TensorFlow), the learning-rate plan, and
the strategy itself with its training step (placement, distributed_loop)."""
