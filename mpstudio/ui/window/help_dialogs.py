"""Help: a short page on what mixed precision does, and About: the icon, the versions,
the folders mpstudio keeps its files in, and the license."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QSize, QUrl
from PySide6.QtGui import QDesktopServices, QTextDocument
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from mpstudio.engine.app_log import log_dir
from mpstudio.engine.datasets.cache_dir import datasets_dir
from mpstudio.engine.history.locations import history_path
from mpstudio.ui.app_icon import app_icon
from mpstudio.ui.window.open_folder import folder_url, open_folder

LICENSE_URL = "https://www.apache.org/licenses/LICENSE-2.0"
ICON_URL = "mpstudio:icon"  # the app icon, added to the About page's document
ICON_SIZE = 64


# One message, HTML and all, so a translation can reflow it as its language needs.
MIXED_PRECISION_PAGE = QT_TRANSLATE_NOOP("HelpDialogs", """
<h2>What mixed precision does</h2>
<p>Mixed precision runs most of a model's math in a 16-bit type while keeping the
model's weights in float32. Keras calls this a <i>dtype policy</i>:</p>
<ul>
<li><b>float32</b>: everything in 32-bit floats. The reference for accuracy.</li>
<li><b>mixed_float16</b>: layers compute in float16, variables stay float32. On NVIDIA
GPUs with Tensor Cores (compute capability 7.0 and newer: V100, T4, RTX 20xx and later,
A100, H100) matrix multiplies and convolutions run several times faster, and activations
take half the memory.</li>
<li><b>mixed_bfloat16</b>: the same with bfloat16, which has float32's exponent range.
Fast on TPUs and on NVIDIA GPUs from Ampere (compute capability 8.0) on.</li>
</ul>
<h3>Why the output stays float32</h3>
<p>The last layer (the softmax) and the loss compute in float32, so the probabilities and
the loss are exact; the layer table in the setup panel highlights it.</p>
<h3>Loss scaling (float16 only)</h3>
<p>float16 cannot represent numbers below about 6e-8, so small gradients would
underflow to zero. Loss scaling multiplies the loss by a large factor (32768 by default)
before the backward pass and divides the gradients by it afterwards. <b>Dynamic</b>
scaling halves the factor and skips the step when a gradient overflows to infinity, and
doubles it again after a run of good steps: the loss-scale chart shows it, with skipped
steps marked. bfloat16 needs no loss scaling.</p>
<h3>When it does not help</h3>
<ul>
<li>On a CPU without half-precision math, or a GPU without Tensor Cores, float16 is
often <i>slower</i> than float32: the hardware check says which is which, and Measure
times it on this machine.</li>
<li>A tiny model or an input pipeline that cannot keep up leaves the device waiting:
then no precision makes training faster.</li>
<li>Sizes that are multiples of 8 (units, channels, batch) let Tensor Cores work.</li>
</ul>
<h3>Is it worth it?</h3>
<p>Tick <b>Compare with float32</b>: mpstudio trains float32 first, then the mixed
run from the same initial weights and data order, and overlays both in the charts, so
speed and accuracy compare like with like. More than one trial a side gives a median
and a range. The Comparison card then gives the verdict: worth it when the mixed run is
more than 5% faster and its validation accuracy is within 0.5 percentage points of
float32. On Ampere and newer GPUs the baseline runs TensorFlow's default TF32 matmuls
unless you choose strict float32, and is labelled with what it ran. Every run stays in
History, where two runs can be compared again and exported as a report.</p>
""")


class _TextDialog(QDialog):
    def __init__(self, title: str, body: str, parent: QWidget | None, size: tuple[int, int]):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        self.browser.setHtml(body)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.resize(*size)


class MixedPrecisionHelp(_TextDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(QCoreApplication.translate("HelpDialogs", "What mixed precision does"),
                         QCoreApplication.translate("HelpDialogs", MIXED_PRECISION_PAGE),
                         parent, (620, 640))


def about_folders() -> dict[str, Path]:
    """What About lists, in the window's words: where mpstudio keeps its files."""
    return {
        QCoreApplication.translate("HelpDialogs", "Logs"): log_dir(),
        QCoreApplication.translate("HelpDialogs", "Run history"): history_path().parent,
        QCoreApplication.translate("HelpDialogs", "Downloaded datasets"): datasets_dir(),
    }


def about_html(versions: dict[str, str], tensorflow_loaded: bool) -> str:
    """The About page: the icon and version, the versions of what it runs on, its
    folders as links that open them, and the license."""
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td><td>&nbsp;&nbsp;{html.escape(value)}</td></tr>"
        for name, value in versions.items()
    )
    pending = "" if tensorflow_loaded else "<p><i>{}</i></p>".format(
        QCoreApplication.translate("HelpDialogs", "TensorFlow is still loading."))
    summary = QCoreApplication.translate(
        "HelpDialogs", "A workbench for mixed-precision training with TensorFlow: see what "
        "float16 and bfloat16 do on your hardware.")
    places = "".join(
        f"<tr><td>{html.escape(name)}</td><td>&nbsp;&nbsp;<a href=\"{_href(path)}\">"
        f"{html.escape(str(path))}</a></td></tr>"
        for name, path in about_folders().items())
    folders_title = QCoreApplication.translate("HelpDialogs", "Folders")
    versions_title = QCoreApplication.translate("HelpDialogs", "Versions")
    licence = QCoreApplication.translate(
        "HelpDialogs", "Licensed under the {license}.").format(
            license=f"<a href=\"{LICENSE_URL}\">" + QCoreApplication.translate(
                "HelpDialogs", "Apache License 2.0") + "</a>")
    version = html.escape(versions.get("mpstudio", ""))
    return (f"<table><tr><td><img src=\"{ICON_URL}\" width=\"{ICON_SIZE}\" "
            f"height=\"{ICON_SIZE}\"></td><td>&nbsp;&nbsp;</td><td>"
            f"<h2>mpstudio {version}</h2><p>{summary}</p></td></tr></table>"
            f"<h3>{versions_title}</h3><table>{rows}</table>{pending}"
            f"<h3>{folders_title}</h3><table>{places}</table><p>{licence}</p>")


def _href(path: Path) -> str:
    return html.escape(bytes(folder_url(path).toEncoded().data()).decode("ascii"))


class AboutDialog(_TextDialog):
    """A link to a folder opens it in the file manager (made first if nothing has
    written there yet); the license's opens the browser."""

    def __init__(self, versions: dict[str, str], tensorflow_loaded: bool,
                 parent: QWidget | None = None) -> None:
        super().__init__(QCoreApplication.translate("HelpDialogs", "About mpstudio"), "",
                         parent, (560, 460))
        self.setWindowIcon(app_icon())
        pixmap = app_icon().pixmap(QSize(ICON_SIZE, ICON_SIZE), self.devicePixelRatioF())
        self.browser.document().addResource(QTextDocument.ResourceType.ImageResource,
                                            QUrl(ICON_URL), pixmap)
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._open)
        self.browser.setHtml(about_html(versions, tensorflow_loaded))

    def _open(self, url: QUrl) -> None:
        if url.isLocalFile():
            open_folder(Path(url.toLocalFile()))
        else:
            QDesktopServices.openUrl(url)
