"""RunMonitor's bookkeeping, driven step by step with a fake clock and optimizer state."""

from __future__ import annotations

import math

import pytest

from mpstudio.engine.events import CollectingReporter, LossScaleChanged, StepMetrics
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.monitor import RunMonitor, TrainState


class FakeTraining:
    """Clock and training state (running means, steps, loss scale) of a pretend run."""

    def __init__(self, scale: float | None = 1024.0):
        self.now = 0.0
        self.scale_value = scale
        self.applied = 0
        self.losses: list[float] = []  # per-step losses of the current epoch

    def clock(self) -> float:
        return self.now

    def scale(self) -> float | None:
        return self.scale_value

    def applied_steps(self) -> int:
        return self.applied

    def read(self) -> TrainState:
        mean = sum(self.losses) / len(self.losses)
        return TrainState(mean, 0.5, self.applied, self.scale_value)


def make_monitor(fake: FakeTraining, **kwargs) -> tuple[RunMonitor, CollectingReporter]:
    reporter = CollectingReporter()
    options = {"steps_per_epoch": 10, "total_steps": 30, "log_every": 1, "label": "test"}
    options.update(kwargs)
    monitor = RunMonitor(
        spec=RunSpec(batch_size=32, learning_rate=0.01),
        reporter=reporter,
        state=fake,
        clock=fake.clock,
        **options,
    )
    monitor.train_begin()
    monitor.epoch_begin(1)  # every test starts inside epoch 1
    return monitor, reporter


def summarize(monitor: RunMonitor):
    return monitor.summary("finished", xla=False, device="test", params=1, peak_memory=None,
                           memory_note="")


def step(monitor: RunMonitor, fake: FakeTraining, seconds: float, loss: float = 1.0,
         overflow: bool = False) -> None:
    fake.now += seconds
    fake.losses.append(loss)
    if overflow:
        fake.scale_value /= 2
    else:
        fake.applied += 1
    monitor.step_done()


def test_the_time_before_an_epochs_first_step_is_not_step_time():
    """Starting an epoch's data iterator can stall (half a second, at random epochs, in
    plain Keras too): epoch time, not steady step time."""
    fake = FakeTraining()
    monitor, _ = make_monitor(fake, steps_per_epoch=5, total_steps=10)
    for _ in range(5):
        monitor.before_step()
        step(monitor, fake, 0.1)
    monitor.epoch_end(1.0, 0.5, None, None)
    monitor.epoch_begin(2)
    fake.now += 0.5  # the new epoch's iterator starting
    for _ in range(5):
        monitor.before_step()
        step(monitor, fake, 0.1)
    monitor.epoch_end(1.0, 0.5, None, None)
    summary = summarize(monitor)
    assert summary.steady_step_time == pytest.approx(0.1)  # 8 steady steps of 0.1 s
    assert monitor.epochs[1].epoch_time == pytest.approx(1.0)  # the epoch still pays it


def test_warmup_is_excluded_from_the_steady_throughput():
    fake = FakeTraining()
    monitor, reporter = make_monitor(fake)
    step(monitor, fake, 3.0)  # tracing
    step(monitor, fake, 0.5)  # still warming up
    for _ in range(8):
        step(monitor, fake, 0.1)
    monitor.epoch_end(1.0, 0.5, None, None)
    summary = summarize(monitor)
    assert summary.time_to_first_step == pytest.approx(3.0)
    assert summary.steady_step_time == pytest.approx(0.1)
    assert summary.steady_examples_per_sec == pytest.approx(320.0)
    samples = reporter.of_type(StepMetrics)
    assert [s.warmup for s in samples[:3]] == [True, True, False]
    assert samples[2].examples_per_sec == pytest.approx(320.0)


def test_window_loss_is_recovered_from_running_means():
    fake = FakeTraining()
    monitor, reporter = make_monitor(fake, log_every=3)
    losses = [4.0, 2.0, 9.0, 1.0, 2.0, 3.0, 10.0, 20.0, 30.0, 7.0]
    for loss in losses:
        step(monitor, fake, 0.1, loss=loss)
    monitor.train_epoch_end()
    by_step = {s.step: s.loss for s in reporter.of_type(StepMetrics)}
    # samples at step 1 and 2 (warm-up), then every 3rd step of the epoch, then epoch end
    assert by_step == pytest.approx({1: 4.0, 2: 2.0, 3: 9.0, 6: 2.0, 9: 20.0, 10: 7.0})


def test_several_overflows_in_one_window():
    fake = FakeTraining(scale=2.0**15)
    monitor, reporter = make_monitor(fake, log_every=5)
    step(monitor, fake, 0.1)
    step(monitor, fake, 0.1)
    for overflow in (True, False, True, True, False):  # window of steps 3-7
        step(monitor, fake, 0.1, overflow=overflow)
    (change,) = reporter.of_type(LossScaleChanged)
    assert (change.step, change.old, change.new, change.overflow_steps) == (5, 2.0**15,
                                                                            2.0**13, 2)
    step(monitor, fake, 0.1, overflow=True)
    monitor.train_epoch_end()
    last = reporter.of_type(StepMetrics)[-1]
    assert last.overflow_steps == 4 and last.loss_scale == 2.0**11
    summary = summarize(monitor)
    assert summary.overflow_steps == 4
    assert (summary.loss_scale_min, summary.loss_scale_max) == (2.0**11, 2.0**15)


def test_budget_and_stop_decisions():
    fake = FakeTraining()
    monitor, reporter = make_monitor(fake, total_steps=3)
    step(monitor, fake, 0.1)
    assert not monitor.next_step_is_last() and not monitor.stop_before_next_step()
    step(monitor, fake, 0.1)
    assert monitor.next_step_is_last()  # step 3 is the budget's last
    assert not monitor.stop_before_next_step()
    step(monitor, fake, 0.1)
    assert monitor.stop_before_next_step()
    reporter.stop()
    assert monitor.stop_before_next_step() and monitor.stop_requested


def test_a_non_finite_loss_is_a_divergence_with_its_window():
    fake = FakeTraining()
    monitor, _ = make_monitor(fake, log_every=4)
    for loss in (1.0, 1.0, 1.0, math.inf):
        step(monitor, fake, 0.1, loss=loss)
    assert monitor.divergence is not None
    assert "between steps 3 and 4" in monitor.divergence.reason
    assert "loss scale 1024" in monitor.divergence.reason
    assert "a lower learning rate (now 0.01)" in monitor.divergence.reason
    assert monitor.next_step_is_last()


def test_automatic_sampling_keeps_a_minimum_interval():
    fake = FakeTraining()
    monitor, reporter = make_monitor(fake, min_sample_interval=0.35)
    for _ in range(10):
        step(monitor, fake, 0.1)
    monitor.train_epoch_end()
    sampled = [s.step for s in reporter.of_type(StepMetrics)]
    assert sampled == [1, 2, 6, 10]  # 0.4 s windows, then the epoch's end


def test_time_after_the_last_sample_of_an_epoch_still_counts():
    fake = FakeTraining()
    monitor, _ = make_monitor(fake, log_every=2)
    for _ in range(4):
        step(monitor, fake, 0.1)  # step 4 is a sample point
    fake.now += 0.2  # the data iterator runs out
    monitor.train_epoch_end()
    summary = summarize(monitor)
    assert summary.steady_step_time == pytest.approx((0.2 + 0.2) / 2)  # steps 3-4 + tail
