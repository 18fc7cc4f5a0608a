"""The Export dialog's format choices: one check box per format with its description
below, and, where what it needs is not installed, why it is off and how to install it."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QCheckBox, QVBoxLayout, QWidget

from mpstudio.engine.export.formats import ExportFormat, unavailable_reason
from mpstudio.engine.i18n import _
from mpstudio.ui.themed import set_role
from mpstudio.ui.widgets.panel_labels import secondary, wrapped_label

DEFAULT_FORMATS = ("keras",)


def format_entry(fmt: ExportFormat) -> tuple[QWidget, QCheckBox]:
    """A format's check box with its description (and why it is off) below."""
    check = QCheckBox(_(fmt.label))
    check.setObjectName(f"format-{fmt.id}")
    reason = unavailable_reason(fmt)
    check.setChecked(reason is None and fmt.id in DEFAULT_FORMATS)
    check.setEnabled(reason is None)
    indent = check.style().pixelMetric(check.style().PixelMetric.PM_IndicatorWidth) + 6
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(1)
    layout.addWidget(check)
    texts = [_sentence(_(fmt.description))]
    if reason is not None:
        check.setToolTip(reason)
        texts.append(QCoreApplication.translate("FormatEntries", "Not installed: {install}")
                     .format(install=fmt.install_hint))
    for i, text in enumerate(texts):
        label = secondary(wrapped_label(text))
        label.setContentsMargins(indent, 0, 0, 0)
        if i:  # the install note
            label.setObjectName(f"format-{fmt.id}-note")
            set_role(label, "error")
            label.setToolTip(reason or "")
        layout.addWidget(label)
    layout.addStretch(1)  # entries side by side start level, however long their text
    return box, check


def _sentence(text: str) -> str:
    """Capitalized, except a leading type name ("int8 weights…" stays as it is)."""
    first = text.split(" ", 1)[0]
    return text if any(c.isdigit() for c in first) else text[:1].upper() + text[1:]
