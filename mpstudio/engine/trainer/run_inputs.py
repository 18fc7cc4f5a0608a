"""What a run attempt trains: its placement, its data and its compiled model.

Problems with the spec itself (bad values, a dataset that does not fit the
template) raise SpecError before anything trains; data, a placement or a model
that cannot be set up raises RunSetupError.
"""

from __future__ import annotations

import contextlib
import warnings as python_warnings

import keras
import numpy as np

from mpstudio.engine import device_info
from mpstudio.engine.datasets import load_dataset
from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import DataError, DataLoadStopped, DownloadError
from mpstudio.engine.datasets.registry import display_name
from mpstudio.engine.device_info import RunDevices
from mpstudio.engine.distribute.lr_plan import LearningRatePlan
from mpstudio.engine.distribute.placement import Placement, StrategyError, place
from mpstudio.engine.events import Reporter
from mpstudio.engine.float8 import FLOAT8, quantize_float8
from mpstudio.engine.i18n import _
from mpstudio.engine.precision import make_optimizer
from mpstudio.engine.spec import RunSpec, SpecError
from mpstudio.engine.templates.registry import build_model, input_problem
from mpstudio.engine.trainer.oom_retry import out_of_memory
from mpstudio.engine.trainer.xla_decision import XlaDecision, decide_xla, xla_request


class RunSetupError(RuntimeError):
    """The run could not start (loading data or building the model failed)."""


def place_run(spec: RunSpec) -> Placement:
    try:
        return place(spec)
    except StrategyError as exc:
        raise RunSetupError(str(exc)) from None


def prepare_data(spec: RunSpec, reporter: Reporter | None = None,
                 replicas: int = 1) -> DataBundle:
    """Load the dataset and check it fits the template, raising SpecError if not.
    Batches are global: ``spec.batch_size`` per replica x ``replicas``.

    Progress of long work (a download, decoding images) goes to ``reporter`` as
    DataProgress events; its stop request cancels the loading (DataLoadStopped).
    """
    ctx = LoadContext(display_name(spec.dataset))
    if reporter is not None:
        ctx = LoadContext(ctx.source, emit=reporter.emit, should_stop=reporter.should_stop)
    try:
        bundle = load_dataset(spec, ctx, replicas)
    except (DataError, ValueError) as exc:
        raise SpecError([str(exc)], getattr(exc, "examples", None)) from None
    except DownloadError as exc:
        raise RunSetupError(str(exc)) from None
    except DataLoadStopped:
        raise
    except MemoryError:
        raise RunSetupError(_(
            "not enough memory to load {source}: pick a smaller image size or "
            "dataset").format(source=ctx.source)) from None
    except Exception as exc:
        raise RunSetupError(_("could not load dataset {name!r}: {error}").format(
            name=spec.dataset, error=f"{type(exc).__name__}: {exc}")) from exc
    problem = input_problem(spec.template, bundle.input_shape)
    if problem:
        raise SpecError([problem])
    return bundle


def build_compiled_model(
    spec: RunSpec, bundle: DataBundle, initial_weights: list[np.ndarray] | None,
    placement: Placement | None = None, plan: LearningRatePlan | None = None,
    devices: RunDevices | None = None,
) -> tuple[keras.Model, keras.Optimizer, XlaDecision]:
    """The run's model under its policy, with its optimizer and loss scaling, compiled;
    inside the strategy's scope when the run is distributed. The XLA decision is the
    compiled model's (Keras turns XLA off for a layer that cannot take it)."""
    strategy = placement.strategy if placement else None
    strategy_name = placement.name if placement else "default"
    devices = devices or device_info.run_devices(placement)
    scope = strategy.scope() if strategy is not None else contextlib.nullcontext()
    try:
        with scope:
            model = build_model(spec.template, bundle.input_shape, bundle.num_classes,
                                spec.precision, input_scale=bundle.input_scale,
                                float32_layers=spec.float32_layers)
            if initial_weights is not None:
                model.set_weights(initial_weights)
            if spec.precision == FLOAT8:  # after the weights: the baseline's have no scales
                quantize_float8(model)
            optimizer = make_optimizer(spec, plan, adjustable=spec.aids.reduce_lr_on_plateau)
            optimizer.build(model.trainable_variables)  # the loss-scale state exists from step 0
            requested = xla_request(spec, devices, strategy_name)
            with python_warnings.catch_warnings():  # the run says it in its own words (decide_xla)
                python_warnings.filterwarnings("ignore", "Model doesn't support `jit_compile")
                model.compile(
                    optimizer=optimizer,
                    loss=keras.losses.SparseCategoricalCrossentropy(),
                    metrics=["accuracy"],
                    jit_compile=requested,
                    auto_scale_loss=False,  # the scaling is exactly what make_optimizer built
                )
            xla = decide_xla(spec, devices, strategy_name, requested, model)
    except SpecError:
        raise  # a float32 layer the model does not have: the spec's problem, named
    except Exception as exc:
        what = out_of_memory(exc)
        if what:
            raise RunSetupError(_(
                "out of memory while building {template!r} for input {shape} ({what}): pick "
                "a smaller template or input").format(
                    template=spec.template, shape="x".join(map(str, bundle.input_shape)),
                    what=what)) from None
        raise RunSetupError(_("could not build {template!r}: {error}").format(
            template=spec.template, error=f"{type(exc).__name__}: {exc}")) from exc
    return model, optimizer, xla
