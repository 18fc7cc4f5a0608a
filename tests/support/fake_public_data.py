"""Small files in the public datasets' real formats, and a local HTTP server to serve them.

Tests never touch the network: they publish these files on 127.0.0.1 and point
the dataset table (or the mirror setting) at them.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import http.server
import io
import tarfile
import threading
from pathlib import Path

import numpy as np

from mpstudio.engine.datasets.download import RemoteFile
from mpstudio.engine.datasets.public import PUBLIC, PublicDataset


def mnist_arrays(n_train: int = 256, n_test: int = 64, seed: int = 0):
    """Images whose mean brightness encodes the class: learnable in a few steps."""
    rng = np.random.default_rng(seed)

    def split(n):
        y = rng.integers(0, 10, n).astype(np.uint8)
        x = (rng.random((n, 28, 28)) * 40 + y[:, None, None] * 20).astype(np.uint8)
        return x, y

    return split(n_train), split(n_test)


def mnist_npz_bytes(seed: int = 0) -> bytes:
    (x_train, y_train), (x_test, y_test) = mnist_arrays(seed=seed)
    out = io.BytesIO()
    np.savez_compressed(out, x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test)
    return out.getvalue()


def idx_gz(array: np.ndarray) -> bytes:
    magic = 2051 if array.ndim == 3 else 2049
    header = magic.to_bytes(4, "big") + b"".join(n.to_bytes(4, "big") for n in array.shape)
    return gzip.compress(header + array.astype(np.uint8).tobytes())


def fashion_files() -> dict[str, bytes]:
    (x_train, y_train), (x_test, y_test) = mnist_arrays(seed=1)
    return {
        "train-images-idx3-ubyte.gz": idx_gz(x_train),
        "train-labels-idx1-ubyte.gz": idx_gz(y_train),
        "t10k-images-idx3-ubyte.gz": idx_gz(x_test),
        "t10k-labels-idx1-ubyte.gz": idx_gz(y_test),
    }


def cifar_records(images_hwc: np.ndarray, labels: np.ndarray, coarse: bool) -> bytes:
    chw = images_hwc.transpose(0, 3, 1, 2).reshape(len(images_hwc), -1)
    cols = [labels[:, None] // 5, labels[:, None]] if coarse else [labels[:, None]]
    return np.concatenate([*cols, chw], axis=1).astype(np.uint8).tobytes()


def cifar_tar_gz(hundred: bool, per_file: int = 20, seed: int = 2) -> tuple[bytes, np.ndarray]:
    """A CIFAR binary release in miniature; also returns the first training image (HWC)."""
    rng = np.random.default_rng(seed)
    classes = 100 if hundred else 10
    root = "cifar-100-binary/" if hundred else "cifar-10-batches-bin/"
    train_names = ["train.bin"] if hundred else [f"data_batch_{i}.bin" for i in range(1, 6)]
    members: dict[str, bytes] = {}
    first = None
    for name in [*train_names, "test.bin" if hundred else "test_batch.bin"]:
        images = rng.integers(0, 256, (per_file, 32, 32, 3), dtype=np.uint8)
        labels = np.arange(per_file) % classes
        first = images[0] if first is None else first
        members[root + name] = cifar_records(images, labels, coarse=hundred)
    names = [f"class_{i}" for i in range(classes)]
    members[root + ("fine_label_names.txt" if hundred else "batches.meta.txt")] = (
        "\n".join(names) + "\n\n"
    ).encode()
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue(), first


class FileServer:
    """Serves ``files`` (name -> bytes) on 127.0.0.1. ``truncate`` names files sent cut
    short: the full Content-Length is announced, half the bytes are sent."""

    def __init__(self, files: dict[str, bytes]):
        self.files = dict(files)
        self.truncate: set[str] = set()
        self.requests: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                name = self.path.rsplit("/", 1)[-1]
                server.requests.append(name)
                data = server.files.get(name)
                if data is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2] if name in server.truncate else data)

            def log_message(self, *args) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # a client that stops reading early (a cancelled or capped download) is expected
        self.httpd.handle_error = lambda request, client_address: None
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def remote(self, name: str, data: bytes | None = None) -> RemoteFile:
        """A RemoteFile pinned to what this server holds (or to ``data``)."""
        data = self.files[name] if data is None else data
        return RemoteFile(name, self.url + name, hashlib.sha256(data).hexdigest(), len(data))


def publish(server: FileServer, name: str) -> PublicDataset:
    """The public dataset ``name`` with its files on ``server``, pinned to their checksums."""
    dataset = PUBLIC[name]
    files = tuple(
        dataclasses.replace(server.remote(f.name), keras_name=f.keras_name) for f in dataset.files
    )
    return dataclasses.replace(dataset, files=files)


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
