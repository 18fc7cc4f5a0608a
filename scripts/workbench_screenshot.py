"""How docs/workbench.png (the README's screenshot) is made: the workbench after a
mixed_float16 run of the mlp on the bundled digits with a float32 baseline, grabbed
offscreen. Settings, history and data go to a temporary folder, never the user's.

    python scripts/workbench_screenshot.py                 # docs/workbench.png, 1480x940
    python scripts/workbench_screenshot.py --size 1280x720 -o /tmp/small.png
    python scripts/workbench_screenshot.py --theme dark -o /tmp/dark.png
    python scripts/workbench_screenshot.py --lang zh_CN -o /tmp/zh.png   # needs a CJK font
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default=str(ROOT / "docs" / "workbench.png"))
    parser.add_argument("--size", default="1480x940", metavar="WxH")
    parser.add_argument("--epochs", type=int, default=40)  # long enough to time: 1 s+
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--lang", choices=("en", "zh_CN"), default="en")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    scratch = Path(tempfile.mkdtemp(prefix="mpstudio-shot-"))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    for name, sub in (("MPSTUDIO_CONFIG_DIR", "config"), ("MPSTUDIO_DATA_DIR", "data"),
                      ("MPSTUDIO_HISTORY", "history.sqlite3"), ("MPSTUDIO_LOG_DIR", "log")):
        os.environ[name] = str(scratch / sub)
    os.environ["MPSTUDIO_LANG"] = args.lang  # the engine process speaks it too

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv[:1])
    from mpstudio.engine import i18n
    from mpstudio.ui import translations

    i18n.set_language(args.lang)
    translations.install(args.lang, app)
    from mpstudio.ui.window.main_window import MainWindow

    window = MainWindow(QSettings(str(scratch / "window.ini"), QSettings.Format.IniFormat))
    window.confirm_close = lambda: True
    window.resize(width, height)
    window.show()
    window.view_menu.set_theme(args.theme, save=False)

    def wait(done, seconds: float = 300.0) -> None:
        end = time.monotonic() + seconds
        while not done():
            if time.monotonic() > end:
                raise SystemExit("the workbench did not get there in time")
            app.processEvents()
            time.sleep(0.02)

    window.start_background()
    wait(window.setup.run_button.isEnabled)
    setup = window.setup
    for combo, key in ((setup.dataset.combo, "digits"), (setup.template, "mlp"),
                       (setup.precision, "mixed_float16")):
        combo.setCurrentIndex(combo.findData(key))
    setup.epochs.setValue(args.epochs)
    setup.batch_size.setValue(32)
    setup.baseline.setChecked(True)
    ended: list[str] = []
    window.run_ended.connect(ended.append)
    setup.run_button.click()
    wait(lambda: bool(ended))
    for _ in range(30):  # the charts redraw on a timer
        app.processEvents()
        time.sleep(0.03)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    window.grab().save(args.output)
    print(f"{args.output}: {width}x{height}, the run {ended[0]}")
    window.close()
    wait(lambda: window._closed, 60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
