"""The desktop workbench (PySide6 + pyqtgraph).

It imports the engine; the engine never imports it.
"""
