"""Extract the UCI optical handwritten digits from scikit-learn into the bundled .npz.

Run once by a maintainer (needs scikit-learn, which mpstudio itself does not):
    python scripts/extract_digits.py
It rewrites resources/datasets/digits.npz and prints its SHA-256, which
resources/datasets/DIGITS.md records.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
import sklearn
from sklearn.datasets import load_digits

OUT = Path(__file__).resolve().parents[1] / "resources" / "datasets" / "digits.npz"


def main() -> None:
    digits = load_digits()
    images = digits.images.astype(np.uint8)  # values 0..16 (counts of set pixels in 4x4 blocks)
    labels = digits.target.astype(np.uint8)
    assert images.shape == (1797, 8, 8) and images.max() == 16
    buffer = io.BytesIO()
    np.savez_compressed(buffer, x=images, y=labels)
    OUT.write_bytes(buffer.getvalue())
    digest = hashlib.sha256(buffer.getvalue()).hexdigest()
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes) from scikit-learn {sklearn.__version__}")
    print(f"sha256 {digest}")


if __name__ == "__main__":
    main()
