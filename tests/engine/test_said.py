"""engine/said.py, the one way a sentence is kept as text and as a language-neutral
message: each stored form renders in English and in Chinese, ``english()`` and
``english_tree()`` stay English under Chinese, a pickle re-renders in the receiver's
language, nesting keeps messages (not rendered text), plain strings pass through, and
the history columns read back what they wrote."""

from __future__ import annotations

import json
import pickle

import pytest

from mpstudio.engine import i18n
from mpstudio.engine.history.stored_text import from_column, from_values, to_column, to_values
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import (
    Said,
    clauses,
    english,
    english_tree,
    items,
    message,
    render,
    said,
    stored,
)

# Sentences of the catalog, with their zh_CN translations.
CHANGED = N_("changed")  # 有变化
NVML = N_("NVML could not query {failures}")  # NVML 无法查询 {failures}
GPU_ERROR = N_("GPU {index}: {error}")  # GPU {index}：{error}


@pytest.fixture
def chinese():
    i18n.set_language("zh_CN")
    yield
    i18n.set_language("en")


@pytest.fixture(autouse=True)
def english_first():
    i18n.set_language("en")
    yield
    i18n.set_language("en")


def _sample() -> Said:
    """Every stored form at once: a message holding clauses of a message, plain text
    and an item list."""
    return said(NVML, failures=clauses(said(GPU_ERROR, index=1, error="busy"), "plain",
                                       items(["a", said(CHANGED)])))


def test_each_stored_form_renders_in_english():
    assert render(message(GPU_ERROR, index=0, error="lost")) == "GPU 0: lost"
    assert render(("a", "b", "c")) == "a; b; c"
    assert render(["a", "", None, "b"]) == "a; b"  # empty clauses left out
    assert render({"items": ["x", "y", "z"]}) == "x, y, z"
    assert render("an older record") == "an older record"
    assert render(None) == "" and render(()) == "" and render({"items": []}) == ""
    assert str(_sample()) == "NVML could not query GPU 1: busy; plain; a, changed"


def test_each_stored_form_renders_in_chinese(chinese):
    assert render(message(CHANGED)) == "有变化"
    assert render(("a", "b")) == "a；b"  # the separators are translated
    assert render({"items": ["x", "y"]}) == "x、y"
    assert render("an older record") == "an older record"
    sample = _sample()
    assert str(sample) == render(sample.stored) == "NVML 无法查询 GPU 1：busy；plain；a、有变化"
    assert english(sample) == "NVML could not query GPU 1: busy; plain; a, changed"


def test_a_said_is_its_text_in_the_language_it_was_made_in(chinese):
    made = said(CHANGED)
    assert made == "有变化" and isinstance(made, str)
    i18n.set_language("en")
    assert made == "有变化"  # the str stays; render() follows the language in force
    assert render(made) == "changed" and english(made) == "changed"


def test_nesting_keeps_messages_not_rendered_text(chinese):
    inner = said(CHANGED)
    outer = said(NVML, failures=clauses(inner, items([inner])))
    assert outer.stored == {"msg": NVML, "args": {"failures": (
        {"msg": CHANGED, "args": {}}, {"items": ({"msg": CHANGED, "args": {}},)})}}
    assert message(NVML, failures=inner) == {"msg": NVML, "args": {"failures": inner.stored}}
    assert Said(outer).stored == outer.stored  # a copy, not a message of a message
    assert stored({"a": [inner], "b": 1}) == {"a": [inner.stored], "b": 1}
    json.dumps(outer.stored)  # no Said left inside: it is plain data


def test_a_pickle_renders_again_in_the_receivers_language(chinese):
    sample = _sample()
    data = pickle.dumps([sample, said(CHANGED)])
    i18n.set_language("en")
    arrived, changed = pickle.loads(data)
    assert type(arrived) is Said and arrived.stored == sample.stored
    assert arrived == "NVML could not query GPU 1: busy; plain; a, changed"
    assert changed == "changed"


def test_english_tree_turns_every_said_english(chinese):
    tree = {"reason": said(CHANGED), "notes": [said(CHANGED), "kept", 3],
            "pair": (clauses("a", "b"),), "raw": {"msg": CHANGED, "args": {}}}
    assert english_tree(tree) == {"reason": "changed", "notes": ["changed", "kept", 3],
                                  "pair": ("a; b",), "raw": {"msg": CHANGED, "args": {}}}
    assert json.dumps(english_tree(tree), ensure_ascii=True).isascii()


def test_plain_strings_and_odd_values_pass_through():
    assert Said("plain").stored == "plain" and Said("plain") == "plain"
    assert Said(None) == "" and Said(None).stored == ""
    assert english("as it is") == "as it is" and english(None) == ""
    # a number keeps its format; a message whose translation is out of step reads English
    assert render(message(N_("loss {loss:.3g} after {steps} steps"), loss=0.123456,
                          steps=4)) == "loss 0.123 after 4 steps"
    assert render(message("{missing} field")) == "{missing} field"
    assert not clauses("", None) and clauses("", "x") == "x"


def test_the_history_columns_keep_every_form_and_older_plain_strings(chinese):
    for sentence in (said(CHANGED), clauses("a", said(CHANGED)), items(["x", "y"])):
        back = from_column(to_column(sentence))
        assert isinstance(back, Said) and back == str(sentence)
        values = from_values(json.loads(json.dumps(to_values({"note": sentence, "n": [1]}))))
        assert values["note"] == str(sentence) and values["n"] == [1]
    assert from_column("an older plain record") == "an older plain record"
    written = to_column(said(CHANGED))
    i18n.set_language("en")
    assert from_column(written) == "changed"  # recorded in Chinese, read in English


def test_events_carry_their_sentences_across_processes_in_the_readers_language():
    """``--events`` (the window relaying a multi-worker run's worker): a sentence's field
    is English, like all JSON mpstudio prints, and its stored form travels beside it, so
    the reader shows it in its own language."""
    import json

    from mpstudio.engine.event_codec import event_from_json, event_to_json
    from mpstudio.engine.events import RunFailed

    failed = RunFailed(reason=said(N_("{target} is a folder; pick another name"),
                                   target="/tmp/model.keras"), kind="error", step=3,
                       summary=None)
    i18n.set_language("zh_CN")
    try:
        line = json.loads(json.dumps(event_to_json(failed)))
        assert line["reason"] == english(failed.reason)  # English, as every --json
        back = event_from_json(line)
        assert isinstance(back.reason, Said) and back.reason == render(failed.reason)
        assert back.reason != english(failed.reason)  # in the reader's language: Chinese
    finally:
        i18n.set_language("en")
    assert event_from_json({k: v for k, v in line.items() if k != "said"}).reason == \
        english(failed.reason)  # a writer without "said": its English stands


def test_a_sentence_inside_an_events_dict_is_read_back_as_one():
    """RunStarted.hardware (dict[str, str]) holds the advisor's reason, a Said: a JSON
    reader gets a Said again (a str, as the field says), not its stored form."""
    import dataclasses
    import json

    from mpstudio.engine.event_codec import event_from_json, event_to_json

    from support.history_fakes import started

    run = dataclasses.replace(started(), hardware={"device": "CPU",
                                                   "advisor_reason": said(CHANGED)})
    back = event_from_json(json.loads(json.dumps(event_to_json(run))))
    assert back.hardware == run.hardware
    assert all(type(v) is str for k, v in back.hardware.items() if k != "advisor_reason")
    assert type(back.hardware["advisor_reason"]) is Said
