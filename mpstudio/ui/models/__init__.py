"""The window's models: plain Python, no Qt (observed by the widgets, tested alone)."""
