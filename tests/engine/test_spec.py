"""RunSpec: readable validation, warnings for pointless combinations, TOML round trip."""

from __future__ import annotations

import pytest

from mpstudio.engine.spec import DataOptions, LossScaling, RunSpec, SpecError
from mpstudio.engine.spec_checks import load_spec, spec_problems, validate_spec
from mpstudio.engine.templates import template_names


def problems(**changes) -> list[str]:
    return spec_problems(RunSpec().replace(**changes))


def test_default_spec_is_valid():
    assert validate_spec(RunSpec()) == []


def test_messages_name_the_field_and_the_value():
    assert problems(batch_size=0) == ["batch size must be a positive integer, got 0"]
    assert problems(epochs=-1) == ["epochs must be a positive integer, got -1"]
    assert problems(learning_rate=0.0) == ["learning rate must be a positive number, got 0.0"]
    assert problems(validation_split=1.0) == [
        "validation split must be a fraction in [0, 1), got 1.0"
    ]
    assert problems(batch_size=True) == ["batch size must be a positive integer, got True"]


def test_unknown_choices_list_the_valid_ones():
    assert problems(dataset="imagenet") == [
        "unknown dataset 'imagenet'; choose one of digits, mnist, fashion_mnist, cifar10, "
        "cifar100, synthetic, or give the path of an .npz file, a .csv file or an image folder"
    ]
    (msg,) = problems(precision="float16")
    assert "mixed_float16" in msg and "mixed_bfloat16" in msg and "'float16'" in msg
    (msg,) = problems(template="vgg")
    assert all(t in msg for t in template_names())


def test_every_problem_is_reported_at_once():
    with pytest.raises(SpecError) as err:
        validate_spec(RunSpec(batch_size=0, epochs=0, optimizer="rmsprop"))
    assert len(err.value.problems) == 3


def test_fixed_scale_must_be_positive():
    assert problems(loss_scaling=LossScaling(mode="fixed", factor=0.0)) == [
        "fixed loss scale factor must be a positive number no larger than float32's "
        "maximum (3.4e38), got 0.0"
    ]
    assert problems(loss_scaling=LossScaling(mode="fixed", factor=-8.0))
    assert problems(loss_scaling=LossScaling(mode="fixed", factor=1e39))  # inf in float32
    assert problems(loss_scaling=LossScaling(mode="dynamic", growth_steps=0))


def test_auto_scaling_settings_are_checked_where_they_apply():
    """'auto' is dynamic under float16, so its settings must be valid there."""
    assert problems(precision="mixed_float16", loss_scaling=LossScaling(initial_scale=0))
    assert problems(precision="mixed_float16", loss_scaling=LossScaling(initial_scale="big"))
    assert problems(precision="float32", loss_scaling=LossScaling(initial_scale=0)) == []


def test_ignored_settings_are_warned_about():
    (warning,) = RunSpec(loss_scaling=LossScaling(factor=8.0)).warnings()
    assert "fixed scale factor 8 is ignored" in warning and "'dynamic'" in warning
    (warning,) = RunSpec(precision="float32",
                         loss_scaling=LossScaling(initial_scale=8.0)).warnings()
    assert "dynamic loss scaling settings are ignored" in warning


def test_seed_and_switches_are_checked():
    assert problems(seed=2**32) == ["seed must be an integer from 0 to 4294967295, got 4294967296"]
    assert problems(data=DataOptions(cache="no")) == ["data cache must be true or false, got 'no'"]


def test_scaling_under_bfloat16_is_allowed_with_a_warning():
    spec = RunSpec(precision="mixed_bfloat16", loss_scaling=LossScaling(mode="dynamic"))
    warnings = validate_spec(spec)
    assert len(warnings) == 1 and "bfloat16" in warnings[0] and "'off'" in warnings[0]
    assert validate_spec(RunSpec(precision="mixed_bfloat16")) == []  # auto: no scaling, no warning


def test_auto_scaling_resolves_like_keras():
    assert RunSpec(precision="mixed_float16").loss_scaling_mode == "dynamic"
    assert RunSpec(precision="mixed_bfloat16").loss_scaling_mode == "off"
    assert RunSpec(precision="float32").loss_scaling_mode == "off"


def test_synthetic_options_are_checked():
    assert problems(dataset="synthetic", dataset_options={"shape": [32, 0, 3]})
    assert problems(dataset="synthetic", dataset_options={"classes": 1})
    assert problems(dataset="synthetic", dataset_options={"colour": 1})
    assert problems(dataset="synthetic", dataset_options={"shape": [16, 16], "classes": 4}) == []
    assert problems(dataset="digits", dataset_options={"shape": [8]})


def test_toml_round_trip(tmp_path):
    spec = RunSpec(
        dataset="synthetic",
        template="resnet",
        precision="mixed_bfloat16",
        loss_scaling=LossScaling(mode="fixed", factor=512.0),
        optimizer="sgd",
        learning_rate=0.05,
        batch_size=32,
        steps=300,
        xla="on",
        loop="custom",
        data=DataOptions(cache=False, shuffle_buffer=0, prefetch=False),
        dataset_options={"shape": [16, 16, 3], "classes": 5, "samples": 640},
    )
    path = tmp_path / "run.toml"
    spec.save(path)
    text = path.read_text()
    assert 'precision = "mixed_bfloat16"' in text and "[loss_scaling]" in text
    assert load_spec(path) == spec
    assert not list(tmp_path.glob("*.tmp"))  # atomic write leaves no temp file


def test_round_trip_without_step_budget():
    spec = RunSpec()
    assert "\nsteps =" not in spec.to_toml()
    assert RunSpec.from_toml(spec.to_toml()) == spec


def test_bad_config_files_name_the_problem(tmp_path):
    with pytest.raises(SpecError, match="does not exist"):
        load_spec(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("precision = \n")
    with pytest.raises(SpecError, match="not a valid TOML"):
        load_spec(bad)
    typo = tmp_path / "typo.toml"
    typo.write_text('precison = "float32"\n[loss_scaling]\nmod = "off"\n')
    with pytest.raises(SpecError) as err:
        load_spec(typo)
    assert any("'precison'" in p for p in err.value.problems)
    assert any("'mod'" in p and "[loss_scaling]" in p for p in err.value.problems)


def test_the_spec_alone_leaves_dataset_and_template_to_the_registries(tmp_path):
    spec = RunSpec(dataset="nowhere", template="nothing")
    assert spec.setting_problems() == []  # spec.py imports no registry
    assert [p.split(" ")[1] for p in spec_problems(spec)] == ["dataset", "template"]
    config = tmp_path / "run.toml"
    RunSpec(dataset="d.npz").save(config)
    assert RunSpec.read(config).dataset == "d.npz"  # as written
    assert load_spec(config).dataset == str(tmp_path / "d.npz")  # beside the config
    RunSpec(dataset="digits").save(config)
    (tmp_path / "digits").mkdir()
    assert load_spec(config).dataset == "digits"  # a registered name stays a name


def test_a_servers_data_and_model_files_are_checked_there_not_here(tmp_path):
    """The window of an engine on a server: its paths are the server's (not on this
    computer), so only what needs no file is checked here."""
    spec = RunSpec().replace(dataset=str(tmp_path / "on-server" / "images"),
                             template=str(tmp_path / "on-server" / "mine.keras"))
    assert len(spec_problems(spec)) == 2  # here, neither exists
    assert spec_problems(spec, files_here=False) == []
    assert spec_problems(spec.replace(epochs=0), files_here=False) == [
        "epochs must be a positive integer, got 0"]
    assert "unknown dataset 'mnist2'" in spec_problems(RunSpec().replace(dataset="mnist2"),
                                                       files_here=False)[0]
