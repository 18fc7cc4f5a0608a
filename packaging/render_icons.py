"""Render the app icon, resources/icons/mpstudio.svg, into what each platform needs:

- Linux (hicolor theme): ``NxN/mpstudio.png`` for N in 16, 24, 32, 48, 64, 128, 256, 512;
- Windows: ``mpstudio.ico`` holding 16-256 px (the exe, the Start menu shortcut);
- macOS: ``mpstudio.icns`` holding 32-1024 px (the app bundle).

Run it after editing the SVG, from the repository root, and commit what it writes:

    .venv/bin/python packaging/render_icons.py [--out FOLDER]

Each size is rendered from the SVG by QtSvg (PySide6, which the app depends on), not
scaled down from a big bitmap, so small sizes stay sharp. Qt's own ico and icns writers
put a single image in a file (qicohandler.cpp and qicnshandler.cpp: "Writes a complete
icns file containing only one square icon"), so Pillow packs the rendered PNGs into the
.ico and the .icns. Pillow is used by this script only, not by the app, and is not one
of mpstudio's dependencies: ``pip install pillow`` to run it (the test extra brings it
through TensorBoard). Its .icns writer has no 16 px entry; macOS scales the 32 px one.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "resources" / "icons" / "mpstudio.svg"
HICOLOR_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # 256 is the largest an .ico entry can be
ICNS_SIZES = (32, 64, 128, 256, 512, 1024)  # what Pillow's .icns writer stores


def render(renderer: QSvgRenderer, size: int) -> bytes:
    """The SVG drawn on a transparent ``size`` x ``size`` canvas, as PNG bytes."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.convertToFormat(QImage.Format.Format_ARGB32).save(buffer, "PNG"):
        raise RuntimeError(f"Qt could not encode a {size} px PNG")
    return bytes(buffer.data())


def pack(pngs: dict[int, bytes], sizes: tuple[int, ...], target: Path, fmt: str) -> None:
    """Pillow writes the rendered images of ``sizes`` into one .ico or .icns file."""
    from PIL import Image

    images = [Image.open(io.BytesIO(pngs[size])).convert("RGBA") for size in sizes]
    largest = images[-1]
    extra = {"sizes": [(s, s) for s in sizes]} if fmt == "ICO" else {}
    largest.save(target, fmt, append_images=images[:-1], **extra)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=SOURCE.parent,
                        help="the folder to write into (default: resources/icons)")
    args = parser.parse_args(argv)
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        print(f"render_icons: {SOURCE} is not an SVG Qt can draw", file=sys.stderr)
        return 1
    pngs = {size: render(renderer, size)
            for size in sorted({*HICOLOR_SIZES, *ICO_SIZES, *ICNS_SIZES})}
    for size in HICOLOR_SIZES:
        folder = args.out / f"{size}x{size}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "mpstudio.png").write_bytes(pngs[size])
    pack(pngs, ICO_SIZES, args.out / "mpstudio.ico", "ICO")
    pack(pngs, ICNS_SIZES, args.out / "mpstudio.icns", "ICNS")
    print(f"wrote {len(HICOLOR_SIZES)} PNG sizes, mpstudio.ico and mpstudio.icns to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
