"""The engine in Simplified Chinese: bad data's errors with their hints, an impossible
spec, a diverged run's diagnosis, the dataset descriptions and data reports; and the
sentences the run history keeps (a failure reason, the run summary's notes), written
under one language and read under another."""

from __future__ import annotations

import json
import pickle

import pytest

from mpstudio.engine import i18n
from mpstudio.engine.datasets.errors import DataError
from mpstudio.engine.datasets.registry import (
    availability,
    dataset_entry,
    dataset_names,
    dataset_problems,
    inspect_dataset,
    read_source,
)
from mpstudio.engine.distribute.lr_plan import LearningRatePlan, describe_batch
from mpstudio.engine.distribute.options import strategy_options
from mpstudio.engine.events import CollectingReporter, NumericsDiagnosis, RunFailed
from mpstudio.engine.history.recorder import RecordingReporter
from mpstudio.engine.history.store import RunStore
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import Said, english, said
from mpstudio.engine.spec import LossScaling, RunSpec, SpecError, TrainingAids
from mpstudio.engine.spec_checks import spec_problems

from support.crafted_layers import diagnosed_boost
from support.history_fakes import started, summary
from support.language_check import LATIN_NAMES, english_words
from support.user_data_files import learnable_images, write_csv, write_image_folder, write_npz

# Names that stay as they are: the data's own (files, arrays, columns, classes), the
# dataset names, units and the standard abbreviations of numbers.
DATA_NAMES = {"x_train", "y_train", "x_test", "y_test", "height", "width", "label",
              "cats", "dogs", "only", "MNIST", "Fashion", "CIFAR", "UCI", "MB", "MiB", "GB",
              "NaN", "inf", "uint8", "sha256", "digits", "mlp"}
ALLOWED = LATIN_NAMES | DATA_NAMES


@pytest.fixture
def zh(monkeypatch):
    """The engine's sentences in zh_CN in this process (and any it starts); English after."""
    monkeypatch.setenv("MPSTUDIO_LANG", "zh_CN")
    i18n.set_language("zh_CN")
    yield
    i18n.set_language("en")


def chinese_only(text: str, *more: str) -> None:
    assert english_words(text, ALLOWED | set(more)) == [], text


def refused(path, options=None) -> str:
    with pytest.raises(DataError) as err:
        read_source(str(path), options or {})
    return str(err.value)


# ------------------------------------------------------------------ bad data
def test_a_damaged_npz_says_so_in_chinese_with_its_hint(tmp_path, zh):
    bad = tmp_path / "broken.npz"
    bad.write_bytes(b"this is not a zip archive at all")
    message = refused(bad)
    assert message == (f"{bad} 不是 .npz 文件（不是 .zip 压缩包）；请用 "
                       "`np.savez(path, x_train=..., y_train=...)` 保存数组")
    chinese_only(message)

    x, y = learnable_images(12)
    wrong_keys = write_npz(tmp_path / "keys.npz", images=x, labels=y)
    message = refused(wrong_keys)
    assert "中没有 `x_train` 和 `y_train` 数组" in message and "请用 `np.savez(" in message
    chinese_only(message, "images", "labels")

    short = write_npz(tmp_path / "short.npz", x_train=x, y_train=y[:5])
    message = refused(short)
    assert message == (f"{short}：x_train 有 12 个样本，而 y_train 有 5 个；"
                       "每个样本必须对应一个标签")


def test_a_csv_of_the_wrong_shape_says_so_in_chinese(tmp_path, zh):
    table = write_csv(tmp_path / "table.csv", ["a", "b", "label"],
                      [[1, 2, "x"], [3, 4], [5, 6, "y"]])
    message = refused(table)
    assert message == f"{table}：第 3 行有 2 个字段，但表头有 3 个"

    no_label = write_csv(tmp_path / "nolabel.csv", ["a", "b", "kind"], [[1, 2, "x"]] * 4)
    message = refused(no_label)
    assert message.startswith(f"{no_label} 没有列 'label'；它的列为：a, b, kind。")
    assert "请用 `--label-column`" in message
    chinese_only(message, "kind")

    texts = write_csv(tmp_path / "texts.csv", ["a", "label"], [["red", 0], ["blue", 1]])
    message = refused(texts)
    assert "只读取数值特征：请把它编码为数字，或删除该列" in message
    chinese_only(message, "red")


def test_an_image_folder_with_one_class_says_so_in_chinese(tmp_path, zh):
    root = write_image_folder(tmp_path / "pets", classes=("cats",), per_class=2)
    message = refused(root)
    assert message == f"{root} 只有一个类别子文件夹（cats）；分类器至少需要两个类别"

    empty = tmp_path / "empty"
    empty.mkdir()
    message = refused(empty)
    assert message.startswith(f"{empty} 中没有类别子文件夹；请把每个类别的图像放进各自的子文件夹")
    chinese_only(message)


def test_bad_options_and_unknown_datasets_read_in_chinese(tmp_path, zh):
    csv_file = write_csv(tmp_path / "t.csv", ["a", "label"], [[1, 0], [2, 1]])
    [problem] = dataset_problems(str(csv_file), {"image_size": [64, 64]})
    assert problem == f"{csv_file}：CSV数据只接受选项 label_column，不接受 'image_size'"
    [problem] = dataset_problems("imagenet", {})
    assert problem.startswith("未知的数据集 'imagenet'；请从 ")
    chinese_only(problem.split("；请从 ")[0], "imagenet")
    problems = dataset_problems("synthetic", {"classes": 1, "shape": [0]})
    assert "合成数据的类别数必须是 >= 2 的整数，实际为 1" in problems
    for text in problems:
        chinese_only(text)


# ------------------------------------------------------------------ spec
def test_an_impossible_spec_reads_in_chinese(zh):
    spec = RunSpec(precision="float4", batch_size=0, epochs=-1, validation_split=1.5,
                   optimizer="lion", seed=-3,
                   loss_scaling=LossScaling(mode="fixed", factor=-1.0),
                   aids=TrainingAids(lr_factor=2.0, early_stopping="yes"))
    problems = spec_problems(spec)
    assert "未知的精度 'float4'；可选：float32, mixed_float16, mixed_bfloat16, float8" in problems
    assert "批次大小必须是正整数，实际为 0" in problems
    assert "验证集比例必须是 [0, 1) 内的小数，实际为 1.5" in problems
    assert "早停必须是 true 或 false，实际为 'yes'" in problems
    for text in problems:
        chinese_only(text, "adam", "sgd", "lion", "float4", "float8", "true", "false", "yes")
    with pytest.raises(SpecError) as err:
        RunSpec.from_toml('precison = "float32"\n')
    assert str(err.value).startswith("运行配置中有未知的键 'precison'；有效的键：")
    warnings = RunSpec(precision="float32", loss_scaling=LossScaling(mode="dynamic")).warnings()
    assert warnings == ["在 float32 下损失缩放没有好处（梯度不会下溢）；请把损失缩放设为 `off`"]


# ------------------------------------------------------------------ datasets
def test_dataset_descriptions_and_reports_read_in_chinese(zh):
    for name in dataset_names():
        chinese_only(_(dataset_entry(name).description))
        chinese_only(availability(name).detail)
    assert _(dataset_entry("digits").description) == (
        "UCI 光学手写数字：1,797 张 8x8 灰度图像，10 个类别")
    lines = inspect_dataset("digits", {}).lines()
    assert lines[0] == "digits（随 mpstudio 附带）"
    assert lines[1] == "  1,797 个训练样本，图像输入 8x8x1"
    assert lines[3].startswith("  取值 0..16（uint8），除以 16，缩放到 [0, 1]")
    for line in lines[1:]:
        chinese_only(line)
    synthetic = inspect_dataset("synthetic", {}).lines()
    for line in synthetic[1:]:
        chinese_only(line)


def test_the_strategy_choices_and_the_learning_rate_plan_read_in_chinese(zh):
    options = strategy_options(None, {})
    assert [o.label() for o in options] == ["单设备 - 1 个副本", "镜像（本机多个 GPU） - 不可用",
                                            "多工作节点（TF_CONFIG 集群） - 不可用",
                                            "TPU - 不可用"]
    chinese_only(" ".join(o.reason for o in options))
    plan = LearningRatePlan(0.001, 4, "linear", 8)
    assert plan.describe() == ("学习率 0.001 -> 0.004（线性缩放规则：x4 个副本），"
                               "在 8 步内从 0 线性预热")
    assert describe_batch(64, 4) == "全局批次 256 = 每副本批次大小 64 x 4 个副本"


# ------------------------------------------------------------------ diverged runs
def test_the_numerics_diagnosis_reads_in_chinese(zh):
    _, _, found = diagnosed_boost(step=7)
    assert found.message.startswith(
        "层 'boost'（Rescaling，以 float16 计算）由有限的输入产生了 inf/NaN"
        "（float16 超过 65,504 即溢出；")
    chinese_only(found.message, "boost", "Rescaling")
    with i18n_language("en"):
        assert english(found.message).startswith("layer 'boost' (Rescaling, computing in "
                                                 "float16) produced inf/NaN")


def test_a_diverged_run_reads_in_chinese_and_the_history_keeps_it_for_any_reader(tmp_path,
                                                                                  zh):
    from mpstudio.engine.trainer.runner import run

    path = tmp_path / "history.sqlite3"
    recorder = RecordingReporter(CollectingReporter(), lambda: RunStore(path))
    spec = RunSpec(precision="mixed_float16", batch_size=64, epochs=2,
                   loss_scaling=LossScaling(mode="fixed", factor=1e30),
                   aids=TrainingAids(diagnose_numerics=True))
    result = run(spec, recorder)
    recorder.close()
    assert result.summary.status == "diverged"
    reason = result.failure.reason
    assert reason.startswith("训练发散：损失")
    assert "（第 1 轮，损失缩放因子 1e+30）。可以尝试：动态损失缩放，或更小的固定缩放因子" in reason
    assert " 诊断：层 '" in reason and reason.endswith("。")
    layers = {layer.name for layer in result.model.layers}
    types = {type(layer).__name__ for layer in result.model.layers}
    [diagnosis] = [e for e in recorder.inner.events if isinstance(e, NumericsDiagnosis)]
    assert diagnosis.message in reason
    chinese_only(reason, *layers, *types, "nan", "kernel", "bias")
    # Stored as its message: an English reader gets English, a Chinese one Chinese.
    with RunStore(path) as store:
        [row] = store.runs()
        chinese = store.run(row.id).failure
        data_line = store.run(row.id).dataset_summary
        with i18n_language("en"):
            english_text = store.run(row.id).failure
            as_json = store.run(row.id).to_dict(metrics=False)["failure"]
            english_data = store.run(row.id).dataset_summary
    assert chinese == reason
    assert data_line.startswith("digits：1,") and "个训练样本 / " in data_line
    assert english_data.startswith("digits: 1,") and " train / " in english_data
    assert english_text.startswith("training diverged: the loss became ")
    assert "Diagnosis: layer '" in english_text and as_json == english_text


def test_a_failure_written_in_english_reads_in_chinese(tmp_path):
    path = tmp_path / "history.sqlite3"
    plan = LearningRatePlan(0.001, 2, "linear", 0)
    recorder = RecordingReporter(CollectingReporter(), lambda: RunStore(path))
    recorder.emit(started())
    reason = said(N_("training failed at step {step}: {error}"), step=12,
                  error="InternalError: boom")
    recorder.emit(RunFailed(reason, "error", 12, summary(
        status="failed", distribution=plan.describe(), memory_note="not reported")))
    recorder.close()
    assert reason == "training failed at step 12: InternalError: boom"
    with RunStore(path) as store, _chinese():
        [row] = store.runs()
        stored = store.run(row.id)
        assert stored.failure == "训练在第 12 步失败：InternalError: boom"
        assert isinstance(stored.failure, Said)
        assert stored.summary.distribution == "学习率 0.001 -> 0.002（线性缩放规则：x2 个副本）"
        assert stored.summary.memory_note == "not reported"  # a plain string stays as it is
        as_json = stored.to_dict(metrics=False)
        assert as_json["failure"] == "training failed at step 12: InternalError: boom"
        assert as_json["summary"]["distribution"].startswith("learning rate 0.001 -> 0.002")
        json.dumps(as_json)
    raw = RunStore(path)._conn.execute("SELECT failure, summary FROM runs").fetchone()
    assert json.loads(raw[0])["msg"] == "training failed at step {step}: {error}"
    assert json.loads(raw[1])["distribution"]["msg"].startswith("learning rate {base}")
    # an older record: a plain English string, shown as it is
    with RunStore(path) as store:
        store.end_unfinished_run(store.begin_run(started()), "failed", "the engine crashed")
        assert store.runs()[0].id and store.run(store.runs()[0].id).failure == (
            "the engine crashed")


def test_a_said_sentence_crosses_to_another_process_in_its_reader_language():
    sent = said(N_("the run ended without a result"))
    with _chinese():
        arrived = pickle.loads(pickle.dumps(sent))
        assert arrived == "运行结束，但没有结果" and isinstance(arrived, Said)
    assert english(arrived) == "the run ended without a result"


# ------------------------------------------------------------------ helpers


class i18n_language:
    def __init__(self, language: str):
        self.language = language

    def __enter__(self):
        self.before = i18n.language()
        i18n.set_language(self.language)

    def __exit__(self, *exc):
        i18n.set_language(self.before)


def _chinese() -> i18n_language:
    return i18n_language("zh_CN")


def test_the_memory_rows_of_a_card_share_one_word_for_memory(zh):
    """The card's estimate row read 显存估计 (GPU memory) beside 设备峰值内存 (device
    memory), also for a CPU run: one device-neutral word for both."""
    from mpstudio.engine.event_text import topic_text

    estimate, peak = i18n._("memory estimate"), i18n._("peak device memory")
    assert "内存" in estimate and "内存" in peak and "显存" not in estimate
    assert "显存" not in topic_text("memory")


@pytest.mark.parametrize("trials, interval", [(3, None), (1, (0.67, 0.87)), (1, None)],
                         ids=["three trials", "one trial's windows", "one trial"])
def test_a_slower_verdict_says_the_speed_once_in_chinese(zh, trials, interval):
    """Each form of the speed reads after 的速度为 ("its speed is"): it once began with
    速度为 itself ("速度为 速度为 float32 的 0.74 倍"), and another read "float32 速度的
    0.74x" where the verdict says 倍 elsewhere."""
    from mpstudio.engine.comparison.verdict import VerdictInputs, decide

    verdict = decide(VerdictInputs(
        baseline_status="finished", mixed_status="finished",
        mixed_precision="mixed_float16", speedup=0.74, speedup_low=0.70 if trials > 1 else None,
        speedup_high=0.80 if trials > 1 else None, trials=trials, accuracy=None,
        steady_steps=1000, steady_seconds=30.0, memory_saving=None, on_gpu=False,
        mixed_step_time=0.3, data_time_fraction=None,
        advisor_reason="no native float16 arithmetic on this CPU", window_interval=interval))
    assert verdict.kind == "slower"
    assert "mixed_float16 的速度为 float32 的 0.74 倍（" in verdict.sentence, verdict.sentence
    assert verdict.sentence.count("速度") == 1 and "0.74x" not in verdict.sentence
