"""The hardware check: what this machine has (detection), what each precision
policy will do on it (advisor), and a short measurement that backs the verdict
(micro-benchmark). Detection and advice import no TensorFlow of their own; every
source is injectable so tests can describe machines this one is not."""
