"""How an engine process ended while it had work: by which signal or exit code, during
what, and whether Stop now asked for it; in words for the log and the banner (the
user's language) and for the history (English, as everything stored is)."""

from __future__ import annotations

import signal
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

SIGNAL_MEANING = {  # how "the engine process ..." ended, and why, by its signal
    "SIGKILL": (QT_TRANSLATE_NOOP("EngineEnd", "was killed"),
                QT_TRANSLATE_NOOP("EngineEnd", "by the system, often for running out of "
                                  "memory, or from outside")),
    "SIGSEGV": (QT_TRANSLATE_NOOP("EngineEnd", "crashed"),
                QT_TRANSLATE_NOOP("EngineEnd", "a segmentation fault inside TensorFlow or "
                                  "a converter")),
    "SIGABRT": (QT_TRANSLATE_NOOP("EngineEnd", "was aborted"),
                QT_TRANSLATE_NOOP("EngineEnd", "a failed check inside TensorFlow's C++ code")),
    "SIGBUS": (QT_TRANSLATE_NOOP("EngineEnd", "crashed"),
               QT_TRANSLATE_NOOP("EngineEnd", "a bus error")),
    "SIGFPE": (QT_TRANSLATE_NOOP("EngineEnd", "crashed"),
               QT_TRANSLATE_NOOP("EngineEnd", "a floating-point exception")),
    "SIGTERM": (QT_TRANSLATE_NOOP("EngineEnd", "was terminated"),
                QT_TRANSLATE_NOOP("EngineEnd", "by a signal from outside mpstudio")),
}
OTHER_SIGNAL = QT_TRANSLATE_NOOP("EngineEnd", "was ended by a signal")
# What a job describes itself as (EngineJob.describe), in words, where no job gave its own
DOINGS = (QT_TRANSLATE_NOOP("EngineEnd", "the measurement"),
          QT_TRANSLATE_NOOP("EngineEnd", "the hardware check"),
          QT_TRANSLATE_NOOP("EngineEnd", "the training check"),
          QT_TRANSLATE_NOOP("EngineEnd", "applying the GPU memory settings"))


def _say(text: str, english: bool) -> str:
    """``text`` (marked with QT_TRANSLATE_NOOP("EngineEnd", ...)) as the user reads it,
    or as it is stored."""
    return text if english else QCoreApplication.translate("EngineEnd", text)


@dataclass(frozen=True)
class EngineEnd:
    """How an engine process ended while it still had work."""

    exit_code: int  # negative: the signal number that ended it
    doing: str  # what it was doing ("the mixed_float16 run"), "" when idle; English
    requested: bool  # True: Stop now ended it
    shown_doing: str = ""  # ``doing`` in the user's language ("": looked up)
    host: str = ""  # a server's engine, reached over a connection: how it ended is there

    @property
    def signal_name(self) -> str:
        try:
            return signal.Signals(-self.exit_code).name
        except ValueError:
            return f"signal {-self.exit_code}"

    def _how(self, english: bool) -> str:
        if self.host:  # its exit code is the bridge's: the engine's own end is in its log
            if self.requested:
                return _say(QT_TRANSLATE_NOOP("EngineEnd", "ended by Stop now"), english)
            return _say(QT_TRANSLATE_NOOP("EngineEnd", "ended on {host} (its log there says "
                                          "how)"), english).format(host=self.host)
        if self.exit_code < 0:
            name = self.signal_name
            if self.requested:
                return _say(QT_TRANSLATE_NOOP("EngineEnd", "ended by Stop now ({signal})"),
                            english).format(signal=name)
            verb, why = SIGNAL_MEANING.get(name, (OTHER_SIGNAL, ""))
            if why:
                return _say(QT_TRANSLATE_NOOP("EngineEnd", "{verb} ({signal}: {why})"),
                            english).format(verb=_say(verb, english), signal=name,
                                            why=_say(why, english))
            return _say(QT_TRANSLATE_NOOP("EngineEnd", "{verb} ({signal})"), english).format(
                verb=_say(verb, english), signal=name)
        return _say(QT_TRANSLATE_NOOP("EngineEnd", "exited with code {code}"),
                    english).format(code=self.exit_code)

    def _message(self, english: bool) -> str:
        doing = self.doing if english else (
            self.shown_doing or QCoreApplication.translate("EngineEnd", self.doing))
        if self.requested and doing:
            text = QT_TRANSLATE_NOOP("EngineEnd", "stopped now: the engine was ended during "
                                     "{doing}")
        elif self.requested:
            text = QT_TRANSLATE_NOOP("EngineEnd", "stopped now: the engine was ended")
        elif self.host:
            text = (QT_TRANSLATE_NOOP("EngineEnd", "the engine on {host} ended during {doing}; "
                                      "its log there says why") if doing else
                    QT_TRANSLATE_NOOP("EngineEnd", "the engine on {host} ended; its log there "
                                      "says why"))
            return _say(text, english).format(host=self.host, doing=doing)
        elif doing:
            text = QT_TRANSLATE_NOOP("EngineEnd", "the engine process {how} during {doing}")
        else:
            text = QT_TRANSLATE_NOOP("EngineEnd", "the engine process {how}")
        return _say(text, english).format(how=self._how(english), doing=doing)

    @property
    def how(self) -> str:
        """"was killed (SIGKILL: by the system, ...)", in the user's language."""
        return self._how(english=False)

    @property
    def message(self) -> str:
        """The log's and the banner's sentence, in the user's language."""
        return self._message(english=False)

    @property
    def reason(self) -> str:
        """The same in English: what the run history keeps."""
        return self._message(english=True)
