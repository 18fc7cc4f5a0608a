"""Reading a benchmark bundle back (bench_bundle writes them), checked whole before
anything trains: a file that is not a zip, a zip that is not a bundle, a member added,
linked, nested or too big (bench_members), a member that does not match its checksum,
a field of the wrong type (bench_fields), or a bundle from a newer mpstudio each get one
sentence that names what is wrong (and what to do)."""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from mpstudio.engine.i18n import _
from mpstudio.engine.report.bench_bundle import (
    CARD,
    CARD_TEXT,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    METRICS,
    README,
    RUNS,
    SPEC,
    VERDICT,
)
from mpstudio.engine.report.bench_fields import (
    CARD_FIELDS,
    MANIFEST_FIELDS,
    RUNS_FIELDS,
    FieldError,
    Schema,
    check_fields,
)
from mpstudio.engine.report.bench_members import (
    MAX_MANIFEST_BYTES,
    BundleError,
    checked_members,
    damaged,
    not_ours,
    only_listed,
    read_member,
)
from mpstudio.engine.spec import RunSpec, SpecError
from mpstudio.engine.trainer.compare_options import BASELINE_MATHS, CompareOptions

__all__ = ["Bundle", "BundleError", "read_bundle"]

BUNDLE_FILES = frozenset({SPEC, RUNS, METRICS, CARD, CARD_TEXT, VERDICT, README})
KINDS = ("comparison", "run")
SHA256 = re.compile(r"[0-9a-f]{64}")


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


def read_bundle(path: Path | str) -> Bundle:
    """The bundle at ``path``: its zip's directory checked whole, then the manifest,
    then only the members it lists, each against its SHA-256, then every field's type."""
    path = Path(path)
    if not path.is_file():
        raise BundleError(_("{path} does not exist (or is not a file)").format(path=path))
    try:
        with zipfile.ZipFile(path) as archive:
            infos = checked_members(path, archive)
            if MANIFEST not in infos:
                raise not_ours(path, _("it has no {manifest}").format(manifest=MANIFEST))
            manifest = _manifest(path, read_member(path, archive, infos[MANIFEST],
                                                   MAX_MANIFEST_BYTES))
            only_listed(path, infos, {MANIFEST, *manifest["files"]})
            members = {name: read_member(path, archive, infos[name])
                       for name in manifest["files"]}
    except zipfile.BadZipFile:
        raise not_ours(path, _("it is not a zip file")) from None
    except OSError as exc:
        raise BundleError(_("cannot read {path}: {reason}").format(
            path=path, reason=exc.strerror or exc)) from None
    for name, digest in manifest["files"].items():
        if hashlib.sha256(members[name]).hexdigest() != digest:
            raise damaged(path, _("{name} does not match its checksum in {manifest} (it "
                                  "was changed after the bundle was written)").format(
                                      name=name, manifest=MANIFEST))
    try:
        spec = RunSpec.from_toml(members[SPEC].decode("utf-8"))
    except (SpecError, UnicodeDecodeError) as exc:
        problems = "; ".join(exc.problems) if isinstance(exc, SpecError) else str(exc)
        raise damaged(path, _("its {name} cannot be read: {problems}").format(
            name=SPEC, problems=problems)) from None
    return Bundle(path, manifest, spec, _compare(path, manifest),
                  _json_member(path, members, RUNS, RUNS_FIELDS),
                  _json_member(path, members, CARD, CARD_FIELDS) if CARD in members
                  else None)


def _json(path: Path, data: bytes, name: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:  # json's own depth guard: a crafted file, not a crash
        raise damaged(path, _("its {name} is nested too deeply to be a bundle's").format(
            name=name)) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise damaged(path, _("its {name} is not JSON ({reason})").format(
            name=name, reason=exc)) from None


def _manifest(path: Path, data: bytes) -> dict[str, Any]:
    manifest = _json(path, data, MANIFEST)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise not_ours(path, _("its {manifest} is not a benchmark's").format(
            manifest=MANIFEST))
    version = manifest.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise damaged(path, _("its format version {version!r} is not a version").format(
            version=version))
    if version > FORMAT_VERSION:
        raise BundleError(_(
            "{path} was written by a newer mpstudio ({mpstudio}, bundle format {found}; this "
            "one reads up to {newest}): upgrade mpstudio to replay it").format(
                path=path, mpstudio=manifest.get("mpstudio", "?"), found=version,
                newest=FORMAT_VERSION))
    _check(path, MANIFEST, manifest, MANIFEST_FIELDS)
    if manifest.get("kind", "run") not in KINDS:
        raise damaged(path, _("its {manifest} field kind is {kind!r}, not one of: "
                              "{kinds}").format(manifest=MANIFEST, kind=manifest["kind"],
                                                kinds=", ".join(KINDS)))
    files = manifest.get("files")
    if not isinstance(files, dict) or SPEC not in files or RUNS not in files:
        raise damaged(path, _("its {manifest} lists no spec and runs").format(
            manifest=MANIFEST))
    for name, digest in files.items():
        if name not in BUNDLE_FILES:
            raise damaged(path, _("its {manifest} lists {name}, which is not a bundle's "
                                  "file").format(manifest=MANIFEST, name=repr(name)))
        if not SHA256.fullmatch(digest):
            raise damaged(path, _("its {manifest} gives {name} no SHA-256").format(
                manifest=MANIFEST, name=name))
    return manifest


def _check(path: Path, file: str, data: Any, schema: Schema) -> None:
    try:
        check_fields(file, data, schema)
    except FieldError as exc:
        raise damaged(path, str(exc)) from None


def _json_member(path: Path, members: dict[str, bytes], name: str, schema: Schema) -> Any:
    data = _json(path, members[name], name)
    _check(path, name, data, schema)
    return data


def _compare(path: Path, manifest: dict[str, Any]) -> CompareOptions | None:
    if manifest.get("kind") != "comparison":
        return None
    options = manifest.get("compare") or {}
    repeats, baseline = options.get("repeats"), options.get("baseline", "auto")
    batch = options.get("baseline_batch_size")  # the finder's comparison: float32's own batch
    if not _count(repeats) or baseline not in BASELINE_MATHS \
            or not (batch is None or _count(batch)):
        raise damaged(path, _("its {manifest} names no valid comparison options").format(
            manifest=MANIFEST))
    return CompareOptions(repeats, baseline, baseline_batch_size=batch)


def _count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1
