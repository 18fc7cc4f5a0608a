"""The versions About shows before the engine has loaded TensorFlow (the engine adds
TensorFlow's and Keras' when it is ready)."""

from __future__ import annotations

import platform


def ui_versions() -> dict[str, str]:
    import numpy
    import pyqtgraph
    import PySide6
    from PySide6 import QtCore

    from mpstudio import __version__

    return {
        "mpstudio": __version__,
        "Python": platform.python_version(),
        "PySide6": PySide6.__version__,
        "Qt": QtCore.qVersion(),
        "pyqtgraph": pyqtgraph.__version__,
        "NumPy": numpy.__version__,
    }
