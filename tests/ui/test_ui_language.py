"""The window in Simplified Chinese: which language it starts in (and tells its engine
process), View > Language, the menus and Help in Chinese, Qt's own buttons in Chinese,
the catalogs in step with the code, and a note when no font can draw Chinese.

The windows here never start their engine. Every test that installs the Chinese
translators removes them again, so the tests after it see the English window."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from PySide6.QtCore import QSettings, QTranslator
from PySide6.QtWidgets import QDialogButtonBox, QMessageBox

from devtools.catalogs import TRANSLATED
from devtools.qt_catalogs import messages, problems, qm_path, ts_path
from mpstudio.ui import translations
from mpstudio.ui.translations import missing_font_note, resolve_language
from mpstudio.ui.window.gui_settings import GuiSettings, open_settings
from mpstudio.ui.window.help_dialogs import AboutDialog, MixedPrecisionHelp
from mpstudio.ui.window.window_actions import stop_text

from support.gui_helpers import bare_window, menu_actions
from support.language_check import LATIN_NAMES, english_words, setup_names, visible_text

CJK = range(0x4E00, 0xA000)








def _has_chinese(text: str) -> bool:
    return any(ord(c) in CJK for c in text)


@pytest.mark.parametrize(("saved", "environ", "ui_languages", "expected"), [
    ("system", {"LANG": "zh_CN.UTF-8"}, ["en-US"], "zh_CN"),
    ("system", {"LANG": "en_US.UTF-8"}, ["zh-CN"], "en"),  # the environment before Qt's
    ("system", {"LANGUAGE": "zh_CN:en", "LANG": "en_US.UTF-8"}, [], "zh_CN"),  # POSIX order
    ("system", {"LC_ALL": "C"}, ["zh-CN"], "en"),
    ("system", {}, ["zh-Hans-CN", "en-US"], "zh_CN"),  # macOS, Windows: only Qt knows
    ("system", {}, ["en-GB"], "en"),
    ("system", {}, [], "en"),
    ("en", {"LANG": "zh_CN.UTF-8"}, ["zh-CN"], "en"),  # the saved choice before the system
    ("zh_CN", {"LANG": "en_US.UTF-8"}, ["en-US"], "zh_CN"),
    ("system", {"MPSTUDIO_LANG": "zh_CN", "LANG": "en_US.UTF-8"}, [], "zh_CN"),  # --lang
    ("en", {"MPSTUDIO_LANG": "zh_CN"}, [], "en"),
    ("system", {"MPSTUDIO_LANG": "klingon", "LANG": "en_US.UTF-8"}, [], "en"),
])
def test_the_language_is_the_saved_choice_else_the_systems(saved, environ, ui_languages,
                                                            expected):
    assert resolve_language(saved, environ, ui_languages) == expected


LAUNCH = textwrap.dedent("""
    import json, os, subprocess, sys
    os.environ["MPSTUDIO_EXIT_AFTER_SHOW"] = "1"
    from mpstudio.ui import app
    assert app.launch([]) == 0
    from PySide6.QtGui import QFontDatabase
    from PySide6.QtWidgets import QApplication
    from mpstudio.ui.window.main_window import MainWindow
    window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
    # the engine process is started with this process's environment (EngineLink)
    engine = subprocess.run(
        [sys.executable, "-c", "from mpstudio.engine import i18n; print(i18n.language())"],
        capture_output=True, text=True, env=dict(os.environ), check=True)
    print(json.dumps({
        "env": os.environ.get("MPSTUDIO_LANG"),
        "engine": engine.stdout.strip(),
        "menus": [a.text() for a in window.menuBar().actions()],
        "log": window.log.lines(),
        "chinese_fonts": QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese),
    }))
""")


def test_launch_starts_in_the_saved_language_and_passes_it_to_the_engine():
    """launch() reads View > Language from the window's settings file, installs the
    translators before the window is built, and puts the language in the environment
    the engine process inherits; with no Chinese font, the log says how to get one."""
    GuiSettings(open_settings()).save_language("zh_CN")  # the fixture's config folder
    env = dict(os.environ, LANG="en_US.UTF-8", QT_QPA_PLATFORM="offscreen")
    for name in ("MPSTUDIO_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        env.pop(name, None)
    proc = subprocess.run([sys.executable, "-c", LAUNCH], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["env"] == "zh_CN"
    assert seen["engine"] == "zh_CN"
    assert seen["menus"] == ["文件(&F)", "运行(&R)", "视图(&V)", "引擎(&E)", "帮助(&H)"]
    assert not [line for line in seen["log"] if "translations not found" in line]
    font_notes = [line for line in seen["log"] if "fonts-noto-cjk" in line]
    assert len(font_notes) == (0 if seen["chinese_fonts"] else 1)


def test_every_menu_and_action_is_chinese(qtbot, tmp_path, chinese):
    """Titles, actions, submenus, tips: no English beyond the Latin names; each still
    has a keyboard path, one letter per action (the Chinese way: "文件(&F)")."""
    window = bare_window(qtbot, tmp_path / "window.ini")
    menus = [a.menu() for a in window.menuBar().actions() if a.menu() is not None]
    assert len(menus) == 5
    english = {}
    seen = 0
    for menu in menus:
        texts = [menu.title()]
        for action in menu_actions(menu):
            texts += [action.text(), action.statusTip(), action.toolTip()]
            assert "&" in action.text() or not action.shortcut().isEmpty(), action.text()
        for text in texts:
            seen += 1
            if english_words(text):
                english[text] = english_words(text)
            elif text and visible_text(text) != "English":  # the one name in its own language
                assert _has_chinese(text), text
        own = [a.text() for a in menu.actions() if "&" in a.text()]
        letters = [text[text.index("&") + 1].lower() for text in own]
        assert len(set(letters)) == len(letters), own
    assert not english
    assert seen > 60
    assert not english_words(stop_text(True)) and _has_chinese(stop_text(True))
    view = window.view_menu
    assert view.language_actions["en"].text() == "&English"
    assert view.language_actions["zh_CN"].text() == "简体中文(&C)"
    assert view.language_actions["system"].text() == "跟随系统(&S)"


def test_the_english_window_keeps_each_language_in_its_own_name(qtbot, tmp_path):
    window = bare_window(qtbot, tmp_path / "window.ini")
    assert window.menuBar().actions()[0].text() == "&File"
    assert [a.text() for a in window.view_menu.language_actions.values()] == [
        "&System", "&English", "简体中文(&C)"]


def test_qt_dialog_buttons_are_chinese_and_english_again_after(qapp):
    def texts() -> list[str]:
        box = QMessageBox(QMessageBox.Icon.Question, "t", "x",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        return [box.button(QMessageBox.StandardButton.Yes).text(),
                box.button(QMessageBox.StandardButton.No).text(), close.buttons()[0].text()]

    translations.install("zh_CN", qapp)
    try:
        assert texts() == ["是(&Y)", "否(&N)", "关闭"]  # from Qt's qtbase_zh_CN.qm
        assert translations.language_in_force() == "zh_CN"
    finally:
        translations.remove(qapp)
    assert texts() == ["&Yes", "&No", "Close"]
    assert translations.language_in_force() == "en"


def test_help_and_about_are_chinese(qtbot, chinese):
    versions = {"mpstudio": "0.1.0", "Python": "3.11.9", "PySide6": "6.11.3"}
    for dialog in (MixedPrecisionHelp(), AboutDialog(versions, tensorflow_loaded=False)):
        qtbot.addWidget(dialog)
        body = dialog.browser.toPlainText()
        assert english_words(dialog.windowTitle()) == [] and _has_chinese(dialog.windowTitle())
        assert english_words(body) == [], body
        assert _has_chinese(body)
        close = dialog.findChild(QDialogButtonBox).buttons()[0].text()
        assert close == "关闭"
    assert "TensorFlow 仍在加载" in body  # tensorflow_loaded=False: said in Chinese too


def test_view_language_is_remembered_for_the_next_start(qtbot, tmp_path):
    """Picking a language saves it and says it applies at the next start (the window is
    not retranslated in place); the next window shows the choice checked."""
    settings = tmp_path / "window.ini"
    window = bare_window(qtbot, settings)
    assert window.view_menu.language == "system"
    assert window.view_menu.language_actions["system"].isChecked()
    window.view_menu.language_actions["zh_CN"].trigger()
    note = window.view_menu.language_note
    assert note is not None and note.isVisible()
    assert "next time mpstudio starts" in note.text()
    note.close()
    assert window.menuBar().actions()[0].text() == "&File"  # nothing changed in place
    assert QSettings(str(settings), QSettings.Format.IniFormat).value("view/language") == \
        "zh_CN"
    window.close()

    again = bare_window(qtbot, settings)
    assert again.view_menu.language == "zh_CN"
    assert again.view_menu.language_actions["zh_CN"].isChecked()
    again.view_menu.language_actions["zh_CN"].trigger()  # the same choice: nothing to say
    assert again.view_menu.language_note is None


def test_an_unknown_saved_language_is_the_systems(tmp_path):
    store = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    store.setValue("view/language", "tlh")  # a language a later release dropped
    assert GuiSettings(store).language() == "system"


def test_a_missing_chinese_font_is_explained_in_both_languages(chinese):
    """Without a CJK font the Chinese would be boxes: the note is in Chinese and in
    English, and only when Chinese is chosen and no font can draw it."""
    note = missing_font_note("zh_CN", [])
    assert note is not None
    chinese_part, english_part = note.split("\n")
    assert _has_chinese(chinese_part) and "`sudo apt install fonts-noto-cjk`" in chinese_part
    assert english_part.startswith("No font with Chinese characters")
    assert missing_font_note("zh_CN", ["Noto Sans CJK SC"]) is None
    assert missing_font_note("en", []) is None


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_catalogs_are_in_step_with_the_code(lang):
    """Every string the GUI code translates is in the .ts, translated; the .ts has none
    the code dropped (the .qm: the test below). A failure says what to do: run
    scripts/update_translations.py and translate what it lists."""
    assert problems(lang) == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_committed_qm_says_what_the_ts_says(lang):
    translator = QTranslator()
    assert translator.load(str(qm_path(lang)))
    catalog = messages(ts_path(lang))
    assert len(catalog) > 40
    for (context, source, comment), text in catalog.items():
        assert translator.translate(context, source, comment or None) == text, source


def test_the_latin_names_are_not_english_words():
    assert english_words("在 TensorBoard 中打开(&B)\tCtrl+Shift+T") == []
    assert english_words("用 .npz 文件（命令行：`mpstudio train --config`）") == []
    assert english_words("Save &charts…") == ["Save", "charts"]
    assert english_words("mixed_float16 比 float32 快，V100 上") == []
    assert "Keras" in LATIN_NAMES


def test_the_setup_panel_is_chinese(qtbot, chinese):
    """Group titles, folding headers, form labels, buttons, check boxes, combo items and
    the visible hints of the setup panel (its default, folded state): no English words
    beyond the Latin names and the data's own names; the keys stay English."""
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QGroupBox, QLabel

    from mpstudio.ui.setup.setup_panel import SetupPanel

    panel = SetupPanel()
    qtbot.addWidget(panel)
    panel.resize(420, 1400)
    panel.show()
    qtbot.waitExposed(panel)
    texts = []
    for label in panel.findChildren(QLabel):
        # the template's note names Keras layers (test_zh_setup checks it)
        if label.isVisible() and label is not panel.template_note:
            texts.append(label.text())
    texts += [g.title() for g in panel.findChildren(QGroupBox) if g.isVisible()]
    for button in panel.findChildren(QAbstractButton):
        if button.isVisible():
            texts += [button.text(), button.toolTip()]
    for combo in panel.findChildren(QComboBox):
        if combo.isVisible():
            texts += [combo.itemText(i) for i in range(combo.count())] + [combo.toolTip()]
    texts += [panel.batch_size.toolTip(), panel.trials.toolTip()]
    names = setup_names()
    english = {t: english_words(t, names) for t in texts if english_words(t, names)}
    assert not english
    shown = [t for t in texts if t]
    assert len(shown) > 30
    assert "与 float32 对比" in texts
    assert [g.header.text() for g in panel.folding.values()] == ["分布式训练", "训练辅助",
                                                                "缩放参数"]
    assert panel.run_button.text() == "运行" and panel.stop_button.text() == "停止"
    assert panel.spec().loss_scaling.mode in ("dynamic", "fixed", "off")  # keys unchanged
    assert panel.xla.currentData() in ("auto", "on", "off")
