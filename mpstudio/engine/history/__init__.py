"""The run history: a SQLite store of runs, their metrics and verdicts."""
