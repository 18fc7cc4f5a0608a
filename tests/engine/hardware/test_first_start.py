"""The first start on a GPU TensorFlow has no machine code for (H100, H200, B200, RTX
50xx): CUDA's JIT cache made large enough to keep the kernels the driver compiles, and
the user told why the start is slow, in the window and in the command line.

The decision is tested with GPU and build lists given to it; the engine process, the
window and the command line with an NVIDIA driver that describes an H100 server (a
stand-in for the pynvml module, tests/support/machines.py's FakeNvml) and the installed
TensorFlow's own compiled list.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from mpstudio.engine.hardware.first_start import (
    CACHE_BYTES,
    CACHE_SIZE,
    FirstStart,
    compiled_capabilities,
    cuda_gpus,
    plan_first_start,
    prepare_first_start,
)
from mpstudio.engine.said import english, render

from support.machines import A100, H100, RTX_4090, RTX_5090, FakeNvml, NvmlDevice, nvml_of
from support.paths import TESTS

TF_2_21 = ("sm_60", "sm_70", "sm_80", "sm_89", "compute_90")
B200 = ("NVIDIA B200", (10, 0), 180)
GTX_970 = ("NVIDIA GeForce GTX 970", (5, 2), 4)
H100_NOTE = ("starting on NVIDIA H100 80GB HBM3: the first time, the driver compiles "
             "TensorFlow's kernels for compute capability 9.0, which can take many "
             "minutes; later starts reuse them")


def gpus(*machines: tuple[str, tuple[int, int], int]) -> list[tuple[str, tuple[int, int]]]:
    return [(name, cc) for name, cc, _ in machines]


# ------------------------------------------------------------------- the decision
def test_an_h100_gets_the_largest_jit_cache_and_the_sentence():
    plan = plan_first_start(gpus(H100), TF_2_21, {})
    assert plan.env == {CACHE_SIZE: "4294967296"} and CACHE_BYTES == 4294967296
    assert plan.compiles and english(plan.message) == H100_NOTE


@pytest.mark.parametrize("machine", [RTX_4090, A100, ("Tesla T4", (7, 5), 15)])
def test_a_gpu_with_machine_code_in_the_build_needs_nothing(machine):
    assert plan_first_start(gpus(machine), TF_2_21, {}) == FirstStart({}, None)


def test_a_cache_size_the_user_set_is_kept():
    plan = plan_first_start(gpus(H100), TF_2_21, {CACHE_SIZE: "1073741824"})
    assert plan.env == {} and english(plan.message) == H100_NOTE


def test_blackwell_compiles_too():
    plan = plan_first_start(gpus(B200), TF_2_21, {})
    assert plan.env == {CACHE_SIZE: str(CACHE_BYTES)}
    assert english(plan.message).startswith(
        "starting on NVIDIA B200: the first time, the driver compiles TensorFlow's kernels "
        "for compute capability 10.0,")
    consumer = plan_first_start(gpus(RTX_5090), TF_2_21, {})
    assert "NVIDIA GeForce RTX 5090" in consumer.message and "12.0" in consumer.message


@pytest.mark.parametrize("machine, compiled", [
    ((), TF_2_21),  # no GPU
    ((H100,), ()),  # a build without CUDA (or one that lists nothing)
    ((GTX_970,), TF_2_21),  # no kernels at all for 5.2: nothing for the driver to compile
], ids=["no GPU", "CPU build", "too old"])
def test_nothing_to_compile_means_nothing_set_and_nothing_said(machine, compiled):
    assert plan_first_start(gpus(*machine), compiled, {}) == FirstStart()


def test_only_the_gpus_that_compile_are_named_each_once():
    plan = plan_first_start(gpus(A100, H100, H100, B200), TF_2_21, {})
    assert english(plan.message).startswith(
        "starting on NVIDIA H100 80GB HBM3, NVIDIA B200: the first time, the driver "
        "compiles TensorFlow's kernels for compute capability 9.0, 10.0,")
    assert plan_first_start([("mystery", None)], TF_2_21, {}) == FirstStart()


def test_a_disabled_cache_is_said_and_not_sized():
    plan = plan_first_start(gpus(H100), TF_2_21, {"CUDA_CACHE_DISABLE": "1"})
    assert plan.env == {}
    assert english(plan.message).endswith(
        "which can take many minutes, and at every start: CUDA_CACHE_DISABLE=1 keeps it "
        "from saving them")


def test_both_sentences_read_in_chinese_where_they_are_shown():
    """The engine makes the sentence; the window (or terminal) shows it in its language."""
    import pickle

    from mpstudio.engine import i18n

    from support import language_check

    sizable = plan_first_start(gpus(H100, B200), TF_2_21, {}).message
    disabled = plan_first_start(gpus(H100), TF_2_21, {"CUDA_CACHE_DISABLE": "1"}).message
    i18n.set_language("zh_CN")
    try:
        # as the window receives it from the engine; as the terminal renders it again
        shown = [pickle.loads(pickle.dumps(sizable)), render(disabled)]
    finally:
        i18n.set_language("en")
    assert shown[0] == ("正在 NVIDIA H100 80GB HBM3、NVIDIA B200 上启动：首次启动时，"
                        "驱动会为计算能力 9.0、10.0 编译 TensorFlow 的内核，"
                        "可能需要很多分钟；之后的启动会复用这些内核")
    assert "每次启动都要重新编译" in shown[1]
    for text in shown:
        assert language_check.english_words(text) == [], text


# --------------------------------------------------------- reading this machine
def test_cuda_visible_devices_decides_which_gpus_count():
    scan = nvml_of(A100, H100)
    assert cuda_gpus(scan, {}) == gpus(A100, H100)
    assert cuda_gpus(scan, {"CUDA_VISIBLE_DEVICES": "GPU-0000-uuid"}) == gpus(A100)
    assert cuda_gpus(scan, {"CUDA_VISIBLE_DEVICES": "-1"}) == []
    assert cuda_gpus(scan, {"CUDA_VISIBLE_DEVICES": ""}) == []
    hidden = {"CUDA_VISIBLE_DEVICES": "GPU-0000-uuid"}
    assert prepare_first_start(hidden, lambda: scan, lambda: TF_2_21) == FirstStart()


def test_the_compiled_list_is_read_without_importing_tensorflow():
    """CUDA reads its cache size when TensorFlow starts it: the list must come first."""
    import tensorflow as tf

    code = ("import sys; from mpstudio.engine.hardware.first_start import "
            "compiled_capabilities as c; print(list(c()), 'tensorflow' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    built = list(tf.sysconfig.get_build_info().get("cuda_compute_capabilities") or ())
    assert done.stdout.split("] ")[1].strip() == "False"
    assert done.stdout.startswith(repr(built)) and built == list(compiled_capabilities())


def test_prepare_sets_the_cache_in_the_environment_it_is_given():
    environ: dict[str, str] = {"PATH": "/usr/bin"}
    plan = prepare_first_start(environ, lambda: nvml_of(H100), lambda: TF_2_21)
    assert environ == {"PATH": "/usr/bin", CACHE_SIZE: "4294967296"}
    assert english(plan.message) == H100_NOTE
    mine = {CACHE_SIZE: "123"}
    prepare_first_start(mine, lambda: nvml_of(H100), lambda: TF_2_21)
    assert mine == {CACHE_SIZE: "123"}


# ------------------------------------------------ where it is applied: an H100 here
def h100_driver() -> FakeNvml:
    return FakeNvml(NvmlDevice("NVIDIA H100 80GB HBM3", "GPU-0000-h100", 80 * 2**30, 2**30,
                               (9, 0)))


@pytest.fixture
def no_cache_size(monkeypatch):
    """CUDA_CACHE_MAXSIZE unset now and as it was after the test."""
    monkeypatch.setenv(CACHE_SIZE, "")
    monkeypatch.delenv(CACHE_SIZE)


@pytest.fixture
def h100_server(tmp_path, monkeypatch, no_cache_size):
    """Processes started from here find an H100 through NVML: a pynvml module that
    answers as FakeNvml does, first on their path."""
    folder = tmp_path / "h100_driver"
    folder.mkdir()
    (folder / "pynvml.py").write_text(textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(TESTS)!r})
        from support.machines import FakeNvml, NvmlDevice
        _driver = FakeNvml(NvmlDevice("NVIDIA H100 80GB HBM3", "GPU-0000-h100",
                                      80 * 2**30, 2**30, (9, 0)))

        def __getattr__(name):
            return getattr(_driver, name)
        """))
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(folder), path])))


def test_the_engine_process_sizes_the_cache_and_says_why_before_tensorflow_loads(
        h100_server):
    from mpstudio.engine.quiet_stderr import engine_log_path
    from mpstudio.engine.service import protocol as p
    from mpstudio.engine.service.framing import FrameWriter, read_frame

    proc = subprocess.Popen([sys.executable, "-m", "mpstudio.engine.service"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        FrameWriter(proc.stdin).send(p.hello())
        assert isinstance(read_frame(proc.stdout), p.Welcome)
        first = read_frame(proc.stdout)
        second = read_frame(proc.stdout) if isinstance(first, p.EngineStarting) else None
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    assert isinstance(first, p.EngineStarting), first
    assert first.note == H100_NOTE
    assert isinstance(second, p.EngineReady)
    log = engine_log_path().read_text()
    sized = log.index(f"later starts reuse them; {CACHE_SIZE}=4294967296")
    # then TensorFlow is imported, the GPUs (none here) set up, and the window told
    assert sized < log.index("0 GPU(s) set up") < log.index("Keras 3")


def test_the_window_says_it_in_the_status_line_while_the_engine_starts(
        h100_server, qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from mpstudio.ui.window.main_window import MainWindow

    from support.gui_helpers import TF_TIMEOUT_MS, close_window

    window = MainWindow(QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window, before_close_func=lambda w: w._closed or close_window(qtbot, w))
    window.confirm_close = lambda: True
    window.show()
    shown: list[tuple[str, str]] = []
    window.engine.starting.connect(lambda _note: shown.append(
        (window.status_text.text(), window.hardware.status_label.text())))
    with qtbot.waitSignal(window.hardware_jobs.checked, timeout=TF_TIMEOUT_MS):
        window.start_background()
    assert shown == [(H100_NOTE, H100_NOTE)]
    assert H100_NOTE in window.log.lines("note")
    assert window.status_text.text() == "Ready"
    close_window(qtbot, window)


def test_the_command_line_says_it_once_and_sizes_the_cache(run_cli, monkeypatch,
                                                            no_cache_size):
    monkeypatch.setitem(sys.modules, "pynvml", h100_driver())
    code, out, err = run_cli("train", "--estimate-only", "--template", "mlp")
    assert code == 0, err
    assert "memory estimate" in out  # the command did its work after saying it
    assert err.count("starting on") == 1
    assert err.splitlines()[0] == f"mpstudio train: {H100_NOTE}"
    assert os.environ[CACHE_SIZE] == "4294967296"


def test_hw_sizes_the_cache_but_only_its_measurement_says_it(run_cli, monkeypatch,
                                                            no_cache_size):
    monkeypatch.setitem(sys.modules, "pynvml", h100_driver())
    code, _out, err = run_cli("hw", "--memory-growth", "on")
    assert code == 0, err
    assert "starting on" not in err and os.environ[CACHE_SIZE] == "4294967296"
    monkeypatch.setenv(CACHE_SIZE, "1000")  # the user's own size
    code, _out, err = run_cli("hw", "--memory-growth", "off")
    assert code == 0 and "starting on" not in err and os.environ[CACHE_SIZE] == "1000"
