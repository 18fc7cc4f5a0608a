"""GPU memory settings: saved in the user's config, applied before TensorFlow sets
up its GPUs, and a clear 'after restart' when it already has."""

from __future__ import annotations

import os
import re

import pytest

from mpstudio.engine.app_settings import (
    AppSettings,
    GpuMemorySettings,
    SettingsError,
    load_settings,
    save_settings,
    settings_path,
)
from mpstudio.engine.hardware.gpu_memory import (
    TensorFlowGpuConfig,
    apply_gpu_memory,
    apply_saved_gpu_memory,
)


class FakeGpus:
    """GPUs that behave as tf.config's do: a change after initialization raises
    RuntimeError (the same value is accepted); growth on a GPU with a limit raises
    ValueError."""

    def __init__(self, count: int = 2, initialized: bool = False) -> None:
        self.devices = [f"GPU:{i}" for i in range(count)]
        self.initialized = initialized
        self.growth_of: dict[str, bool | None] = dict.fromkeys(self.devices)
        self.limit_of: dict[str, int | None] = dict.fromkeys(self.devices)

    def gpus(self):
        return list(self.devices)

    def growth(self, gpu):
        return bool(self.growth_of[gpu])

    def set_growth(self, gpu, on):
        if self.limit_of[gpu] is not None:
            raise ValueError("Cannot set memory growth on device when virtual devices configured")
        if self.growth_of[gpu] == on:
            return
        if self.initialized:
            raise RuntimeError("Physical devices cannot be modified after being initialized")
        self.growth_of[gpu] = on

    def limit_mb(self, gpu):
        return self.limit_of[gpu]

    def set_limit_mb(self, gpu, mb):
        if self.limit_of[gpu] == mb:
            return
        if self.initialized:
            raise RuntimeError("Virtual devices cannot be modified after being initialized")
        self.limit_of[gpu] = mb


def test_growth_and_limit_apply_to_every_gpu_before_initialization():
    gpus = FakeGpus()
    result = apply_gpu_memory(GpuMemorySettings(growth=True), gpus)
    assert result.status == "applied" and "2 GPU(s)" in result.message
    assert gpus.growth_of == {"GPU:0": True, "GPU:1": True}
    assert apply_gpu_memory(GpuMemorySettings(growth=True), gpus).status == "unchanged"
    limited = FakeGpus()
    result = apply_gpu_memory(GpuMemorySettings(limit_mb=4096), limited)
    assert result.ok and limited.limit_of == {"GPU:0": 4096, "GPU:1": 4096}
    assert limited.growth_of == {"GPU:0": None, "GPU:1": None}


def test_after_initialization_the_user_is_told_to_restart():
    gpus = FakeGpus(initialized=True)
    result = apply_gpu_memory(GpuMemorySettings(growth=True), gpus)
    assert result.status == "needs_restart" and not result.ok
    assert "apply after mpstudio restarts" in result.message
    assert gpus.growth_of == {"GPU:0": None, "GPU:1": None}
    # The defaults ask for no change, so an initialized runtime is fine with them.
    assert apply_gpu_memory(GpuMemorySettings(), gpus).status == "unchanged"
    limited = FakeGpus()
    apply_gpu_memory(GpuMemorySettings(limit_mb=2048), limited)
    assert apply_gpu_memory(GpuMemorySettings(), limited).status == "needs_restart"


def test_impossible_settings_are_refused_with_the_reason():
    both = GpuMemorySettings(growth=True, limit_mb=1024)
    result = apply_gpu_memory(both, FakeGpus())
    assert result.status == "failed" and "not both" in result.message
    assert "whole number of MiB" in GpuMemorySettings(limit_mb=10).problems()[0]
    assert GpuMemorySettings(limit_mb=True).problems()


def test_the_cpu_path_with_real_tensorflow():
    import tensorflow as tf

    if tf.config.list_physical_devices("GPU"):
        pytest.skip("this process's GPUs are shared by every test: the CPU path needs none")
    result = apply_gpu_memory(GpuMemorySettings(growth=True), TensorFlowGpuConfig())
    assert result.status == "no_gpu" and "no GPU here" in result.message


def test_settings_round_trip_in_the_config_folder(tmp_path):
    assert load_settings() == AppSettings()  # no file yet: defaults
    path = save_settings(AppSettings(GpuMemorySettings(limit_mb=8192)))
    assert path == settings_path() and str(path).startswith(os.environ["MPSTUDIO_CONFIG_DIR"])
    assert load_settings().gpu_memory == GpuMemorySettings(limit_mb=8192)
    assert [p.name for p in path.parent.iterdir()] == ["settings.toml"]  # no temp files left
    assert "limit_mb = 8192" in path.read_text()


def test_a_broken_settings_file_is_named_and_never_overwritten():
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text("[gpu_memory\ngrowth = yes\n")
    with pytest.raises(SettingsError, match=r"not valid TOML.*fix it or delete it"):
        load_settings()
    with pytest.raises(SettingsError, match=re.escape(str(path))):
        save_settings(AppSettings(GpuMemorySettings(growth=True)))
    assert path.read_text() == "[gpu_memory\ngrowth = yes\n"
    result = apply_saved_gpu_memory(FakeGpus())
    assert result.status == "failed" and "TensorFlow's GPU memory defaults" in result.message
    path.write_text("[gpu_memory]\ngrowth = true\nlimit = 5\n")
    with pytest.raises(SettingsError, match="takes only growth, limit_mb"):
        load_settings()
    path.write_text("[gpu_memory]\ngrowth = true\nlimit_mb = 4096\n")
    with pytest.raises(SettingsError, match="not both"):
        load_settings()


def test_saved_settings_are_what_a_run_applies():
    save_settings(AppSettings(GpuMemorySettings(growth=True)))
    gpus = FakeGpus(count=1)
    assert apply_saved_gpu_memory(gpus).status == "applied"
    assert gpus.growth_of == {"GPU:0": True}


def test_the_check_the_gui_calls_applies_settings_then_detects_and_advises():
    from mpstudio.engine.hardware.check import run_hardware_check

    from support.machines import A100, machine

    save_settings(AppSettings(GpuMemorySettings(growth=True)))
    gpus = FakeGpus(count=1)
    check = run_hardware_check(sources=machine(A100), gpu_config=gpus)
    assert check.advice.run_policy == "mixed_float16" and check.measurements == ()
    assert check.memory.status == "applied" and gpus.growth_of == {"GPU:0": True}
    data = check.to_dict()
    assert data["hardware"]["gpus"][0]["bfloat16_tensor_cores"] is True
    assert data["gpu_memory"]["settings_file"] == str(settings_path())


def test_a_save_keeps_other_tables_and_follows_a_symlink(tmp_path):
    real = tmp_path / "dotfiles" / "mpstudio.toml"
    real.parent.mkdir()
    real.write_text('[ui]\ntheme = "dark"\n\n[gpu_memory]\ngrowth = false\n')
    link = settings_path()
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    save_settings(AppSettings(GpuMemorySettings(growth=True)))
    assert link.is_symlink()
    text = real.read_text()
    assert 'theme = "dark"' in text and "growth = true" in text
