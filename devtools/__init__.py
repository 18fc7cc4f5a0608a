"""Development helpers that are not part of the shipped app: a synthetic run for chart
previews and benchmarks, and the event-loop latency probe the responsiveness tests
and benchmarks measure with."""
