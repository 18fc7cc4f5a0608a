"""The hardware panel: devices, the advisor's verdicts, Measure, GPU memory settings, the
training check (doctor) dialog."""
