"""``mpstudio predict`` fed what a new user types by mistake: each is one line that names
the problem, exit 2, and nothing is predicted from a guess (round 4 of the reliability
issues: a typo read as another shape, a KeyError, a FIFO called a folder, a what-if
model too large to build, a batch larger than the card, an argument not in UTF-8)."""

from __future__ import annotations

import json
import os

import pytest


@pytest.mark.parametrize("args, says", [
    (["--input-shape", "32,,3"], "--input-shape takes positive sizes separated by commas, "
                                 "like 32,32,3; got '32,,3'"),
    (["--input-shape", "32,0,3"], "got '32,0,3'"),
    (["--template", "nosuch"], "unknown template 'nosuch'; choose from: mlp, "),
    (["--classes", "1000"], "--classes goes with --input-shape"),
    (["--template", "/no/such/model.keras"], "model file /no/such/model.keras does not "
                                             "exist"),
])
def test_a_mistake_is_one_line_and_exit_2(run_cli, args, says):
    code, out, err = run_cli("predict", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and says in err, err


def test_a_fifo_named_like_a_model_is_not_called_a_folder(run_cli, tmp_path):
    fifo = tmp_path / "m.keras"
    os.mkfifo(fifo)
    code, _out, err = run_cli("predict", "--template", str(fifo))
    assert code == 2
    assert f"model file {fifo} is not a regular file (a pipe or a device)" in err


def test_a_model_too_large_to_build_here_says_so(run_cli):
    """A what-if prediction builds the model with its real weights: 8x8x1 inputs into
    a billion classes cannot be (1024 x 10^9 floats); one line, not an unhandled
    ResourceExhaustedError."""
    code, out, err = run_cli("predict", "--input-shape", "8,8,1", "--classes", "1000000000")
    assert code == 2 and out == ""
    assert err.strip() == ("mpstudio predict: error: mlp for input 8x8x1 and 1,000,000,000 "
                           "classes has more weights than this machine's memory holds, so "
                           "it cannot be costed here: give a smaller --input-shape or "
                           "--classes"), err


def test_a_batch_larger_than_the_card_is_said_with_the_largest_that_fits(run_cli):
    code, out, _err = run_cli("predict", "--batch-size", "1000000000000", "--device",
                              "A100 40GB")
    assert code == 0
    said = " ".join(out.split())
    assert "At batch 1,000,000,000,000 the step needs more memory than A100 40GB has" in said
    assert "a run would run out of memory. The largest batch that fits:" in said
    code, out, _err = run_cli("predict", "--batch-size", "1000000000000", "--device",
                              "A100 40GB", "--json")
    predictions = json.loads(out)["predictions"]
    for name, p in predictions.items():
        assert p["fits"] is False and 0 < p["largest_batch_that_fits"] < 10**12, name
    code, out, _err = run_cli("predict", "--batch-size", "64", "--device", "A100 40GB",
                              "--json")
    assert all("fits" not in p for p in json.loads(out)["predictions"].values())


def test_an_argument_that_is_not_utf8_is_logged_and_refused_without_a_logging_error(
        tmp_path):
    """A byte that is not UTF-8 in an argument (in its own process: the real argv; in
    this one its surrogate would reach pytest's own reports): the log writes it escaped,
    the refusal is one JSON document, no "--- Logging error ---"."""
    import subprocess
    import sys

    env = dict(os.environ, MPSTUDIO_LOG_DIR=str(tmp_path / "log"), MPSTUDIO_LANG="en")
    done = subprocess.run([sys.executable, "-m", "mpstudio", "predict", "--device",
                           os.fsdecode(b"\xff"), "--json"], capture_output=True, env=env,
                          timeout=120)
    err = done.stderr.decode("utf-8", "backslashreplace")
    assert done.returncode == 2 and "Logging error" not in err and "Traceback" not in err
    assert json.loads(done.stdout)["error"].startswith("no rates for a GPU called '\\udcff'")
    assert "--device \\udcff" in (tmp_path / "log" / "cli.log").read_text()
