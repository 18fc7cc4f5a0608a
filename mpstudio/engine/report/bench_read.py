"""Reading a benchmark bundle back (bench_bundle writes them), checked before anything
trains: a file that is not a zip, a zip that is not a bundle, a damaged or edited
member, or a bundle from a newer mpstudio each get one sentence that names what is
wrong (and what to do)."""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpstudio.engine.i18n import _
from mpstudio.engine.report.bench_bundle import (
    CARD,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    RUNS,
    SPEC,
)
from mpstudio.engine.spec import RunSpec, SpecError
from mpstudio.engine.trainer.compare_options import BASELINE_MATHS, CompareOptions

MAX_MEMBER_BYTES = 256 * 2**20  # a bundle's files are text: anything bigger is not ours


class BundleError(Exception):
    """The bundle cannot be replayed; the message says why."""


@dataclass(frozen=True)
class Bundle:
    path: Path
    manifest: dict[str, Any]
    spec: RunSpec
    compare: CompareOptions | None  # None: a single run
    runs: list[dict[str, Any]]  # runs.json: each run as the history kept it (English)
    card: dict[str, Any] | None  # card.json (a comparison's)

    @property
    def format_version(self) -> int:
        return int(self.manifest["format_version"])


def _not_ours(path: Path, why: str) -> BundleError:
    return BundleError(_("{path} is not an mpstudio benchmark bundle: {why}").format(
        path=path, why=why))


def _damaged(path: Path, why: str) -> BundleError:
    return BundleError(_("{path} is damaged: {why}; export the bundle again").format(
        path=path, why=why))


def read_bundle(path: Path | str) -> Bundle:
    """The bundle at ``path``, every member checked against the manifest's SHA-256."""
    path = Path(path)
    if not path.is_file():
        raise BundleError(_("{path} does not exist (or is not a file)").format(path=path))
    try:
        with zipfile.ZipFile(path) as archive:
            members = _members(path, archive)
    except zipfile.BadZipFile:
        raise _not_ours(path, _("it is not a zip file")) from None
    except OSError as exc:
        raise BundleError(_("cannot read {path}: {reason}").format(
            path=path, reason=exc.strerror or exc)) from None
    manifest = _manifest(path, members)
    for name, digest in manifest["files"].items():
        if name not in members:
            raise _damaged(path, _("{name} is missing").format(name=name))
        if hashlib.sha256(members[name]).hexdigest() != digest:
            raise _damaged(path, _("{name} does not match its checksum in {manifest} (it "
                                   "was changed after the bundle was written)").format(
                                       name=name, manifest=MANIFEST))
    try:
        spec = RunSpec.from_toml(members[SPEC].decode("utf-8"))
    except (SpecError, UnicodeDecodeError) as exc:
        problems = "; ".join(exc.problems) if isinstance(exc, SpecError) else str(exc)
        raise _damaged(path, _("its {name} cannot be read: {problems}").format(
            name=SPEC, problems=problems)) from None
    return Bundle(path, manifest, spec, _compare(path, manifest),
                  _json_member(path, members, RUNS) or [],
                  _json_member(path, members, CARD) if CARD in members else None)


def _members(path: Path, archive: zipfile.ZipFile) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    for info in archive.infolist():
        if info.is_dir():
            continue
        if info.file_size > MAX_MEMBER_BYTES:
            raise _not_ours(path, _("{name} is too big for a bundle's file").format(
                name=info.filename))
        try:
            members[info.filename] = archive.read(info)
        except (zipfile.BadZipFile, ValueError, RuntimeError, EOFError) as exc:
            raise _damaged(path, _("{name} cannot be read ({reason})").format(
                name=info.filename, reason=exc)) from None
    return members


def _manifest(path: Path, members: dict[str, bytes]) -> dict[str, Any]:
    if MANIFEST not in members:
        raise _not_ours(path, _("it has no {manifest}").format(manifest=MANIFEST))
    try:
        manifest = json.loads(members[MANIFEST].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _damaged(path, _("its {manifest} is not JSON ({reason})").format(
            manifest=MANIFEST, reason=exc)) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise _not_ours(path, _("its {manifest} is not a benchmark's").format(
            manifest=MANIFEST))
    version = manifest.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise _damaged(path, _("its format version {version!r} is not a version").format(
            version=version))
    if version > FORMAT_VERSION:
        raise BundleError(_(
            "{path} was written by a newer mpstudio ({mpstudio}, bundle format {found}; this "
            "one reads up to {newest}): upgrade mpstudio to replay it").format(
                path=path, mpstudio=manifest.get("mpstudio", "?"), found=version,
                newest=FORMAT_VERSION))
    files = manifest.get("files")
    if not isinstance(files, dict) or SPEC not in files or RUNS not in files:
        raise _damaged(path, _("its {manifest} lists no spec and runs").format(
            manifest=MANIFEST))
    return manifest


def _json_member(path: Path, members: dict[str, bytes], name: str) -> Any:
    try:
        return json.loads(members[name].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _damaged(path, _("its {name} is not JSON ({reason})").format(
            name=name, reason=exc)) from None


def _compare(path: Path, manifest: dict[str, Any]) -> CompareOptions | None:
    if manifest.get("kind") != "comparison":
        return None
    options = manifest.get("compare") or {}
    repeats, baseline = options.get("repeats"), options.get("baseline", "auto")
    batch = options.get("baseline_batch_size")  # the finder's comparison: float32's own batch
    if not _count(repeats) or baseline not in BASELINE_MATHS \
            or not (batch is None or _count(batch)):
        raise _damaged(path, _("its {manifest} names no valid comparison options").format(
            manifest=MANIFEST))
    return CompareOptions(repeats, baseline, baseline_batch_size=batch)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1
