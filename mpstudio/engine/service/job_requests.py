"""What the window can ask of its engine process: one frozen dataclass per job.

Each request names the type of its result (``JobRequest[R]``), the lane it runs in and
what it is in words. The window builds them (``EngineClient.submit(request)`` gives
an ``EngineJob[R]`` whose result is an ``R``); the engine's job table runs the job its
type names (service/job_table.py). Free of Qt and TensorFlow: both processes import it.
The result types are the engine's plain dataclasses (no TensorFlow behind them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from mpstudio.engine.batch_search.finder import BatchSearch
from mpstudio.engine.datasets.report import DataReport
from mpstudio.engine.doctor.checks import DoctorReport
from mpstudio.engine.export.results import ExportOutcome
from mpstudio.engine.hardware.check import HardwareCheck
from mpstudio.engine.hardware.gpu_memory import MemoryApplyResult
from mpstudio.engine.history.mirror_rows import HistoryRows
from mpstudio.engine.i18n import N_
from mpstudio.engine.model_summary import ModelSummary
from mpstudio.engine.run_session import TrainingOutcome
from mpstudio.engine.service.file_fetch import FetchedFiles
from mpstudio.engine.service.folder_listing import FolderListing
from mpstudio.engine.service.served_tensorboard import TensorBoardAddress

if TYPE_CHECKING:
    from mpstudio.engine.app_settings import GpuMemorySettings
    from mpstudio.engine.batch_search.finder import FinderOptions
    from mpstudio.engine.export.results import ExportRequest
    from mpstudio.engine.spec import RunSpec
    from mpstudio.engine.trainer.compare_options import CompareOptions

MAIN_LANE = "main"  # TensorFlow work, one job after another (dtype policies are global)
DATA_LANE = "data"  # dataset summaries: never wait behind a long run

R = TypeVar("R")


@dataclass(frozen=True)
class JobRequest(Generic[R]):
    """A job for the engine process whose result is an ``R``."""

    lane: ClassVar[str] = MAIN_LANE
    what: ClassVar[str] = ""  # marked N_: "{what} failed: ..." ("": the class's name)


@dataclass(frozen=True)
class HardwareCheckRequest(JobRequest[HardwareCheck]):
    """Detect the devices and advise; ``measure``: time float32/float16/bfloat16 kernels
    too. ``spec``: the setup's model and data, predicted on each device."""

    measure: bool = False
    seconds_per_case: float = 0.5
    spec: RunSpec | None = None
    what: ClassVar[str] = N_("the hardware check")


@dataclass(frozen=True)
class ApplyMemoryRequest(JobRequest[MemoryApplyResult]):
    """Apply GPU memory settings (growth, a limit); ``save``: write them to the engine's
    own settings file first (a server's: the window wrote none of its own)."""

    settings: GpuMemorySettings
    save: bool = False
    what: ClassVar[str] = N_("applying the GPU memory settings")


@dataclass(frozen=True)
class InspectDatasetRequest(JobRequest[DataReport]):
    """What a dataset on disk holds (never downloads); beside a run, on the data lane."""

    dataset: str
    options: dict[str, Any]
    lane: ClassVar[str] = DATA_LANE
    what: ClassVar[str] = N_("reading the data")


@dataclass(frozen=True)
class ModelPreviewRequest(JobRequest[ModelSummary]):
    """The template built under ``policy``: parameters and each layer's dtypes.
    ``input_scale``: the model scales uint8 images; ``batch_size``: checked for Tensor
    Cores; ``run_spec``: the run set up, for the memory estimates."""

    template: str
    input_shape: tuple[int, ...]
    num_classes: int
    policy: str
    input_scale: float | None = None
    batch_size: int | None = None
    float32_layers: tuple[str, ...] = ()
    run_spec: RunSpec | None = None
    what: ClassVar[str] = N_("the model preview")


@dataclass(frozen=True)
class TrainRequest(JobRequest[TrainingOutcome]):
    """One run, or a comparison when ``comparison`` is given."""

    spec: RunSpec
    comparison: CompareOptions | None = None
    what: ClassVar[str] = N_("the run")


@dataclass(frozen=True)
class ExportModelRequest(JobRequest[list[ExportOutcome]]):
    """Export a model to each of ``formats``: the one kept under ``model_handle`` (a run
    just trained), else history run ``run_id``'s."""

    formats: tuple[ExportRequest, ...]
    run_id: int | None = None
    model_handle: int | None = None
    spec: RunSpec | None = None
    overwrite: bool = False
    # A server's engine: export into a staging folder of its own there (each format's
    # file name kept), for the window to copy back to the paths it asked for
    staged: bool = False
    what: ClassVar[str] = N_("the export")


@dataclass(frozen=True)
class DoctorRequest(JobRequest[DoctorReport]):
    """The training check (``quick``: its short set)."""

    quick: bool = True
    what: ClassVar[str] = N_("the training check")


@dataclass(frozen=True)
class BatchFindRequest(JobRequest[BatchSearch]):
    """The largest batch of float32 and of the run's precision."""

    spec: RunSpec
    options: FinderOptions
    what: ClassVar[str] = N_("the batch-size finder")


@dataclass(frozen=True)
class HistoryRowsRequest(JobRequest[HistoryRows]):
    """The engine's run history rows a window's copy lacks: runs after ``after_id``,
    and ``refresh`` again (runs the copy has as running)."""

    after_id: int
    refresh: tuple[int, ...] = ()
    lane: ClassVar[str] = DATA_LANE
    what: ClassVar[str] = N_("reading the run history")


@dataclass(frozen=True)
class FetchFilesRequest(JobRequest[FetchedFiles]):
    """A file or folder on the engine's machine (an export written on a server), sent
    to the window in chunks with each file's SHA-256 (service/file_fetch.py)."""

    path: str
    remove_after: bool = False  # a staged export's copy (only inside a staging folder)
    lane: ClassVar[str] = DATA_LANE
    what: ClassVar[str] = N_("copying the file to this computer")


@dataclass(frozen=True)
class TensorBoardRequest(JobRequest[TensorBoardAddress]):
    """TensorBoard on these runs' logs, on the engine's machine (a server's: the window
    forwards its port over ssh)."""

    run_ids: tuple[int, ...]
    lane: ClassVar[str] = DATA_LANE  # seconds to start: never behind a long run
    what: ClassVar[str] = N_("TensorBoard")


@dataclass(frozen=True)
class ListFolderRequest(JobRequest[FolderListing]):
    """What a folder on the engine's machine holds, for the window's server file dialog
    (service/folder_listing.py): its sub-folders, and its files whose suffix is one of
    ``suffixes`` (none: every file) unless ``folders_only``. "" or "~": the home folder."""

    path: str
    suffixes: tuple[str, ...] = ()
    folders_only: bool = False
    lane: ClassVar[str] = DATA_LANE  # beside a run: picking the next dataset meanwhile
    what: ClassVar[str] = N_("listing a folder")


@dataclass(frozen=True)
class UnreadableRequest(JobRequest[None]):
    """A request the engine process could not rebuild (a window and an engine of
    different versions): its job fails with this, and the engine goes on."""

    kind: str  # the request's class name, as the window sent it
    error: str
