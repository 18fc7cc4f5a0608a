"""``--float32-layer NAME``: keep a layer in float32 under a mixed policy, and the
suggestion a diverged run prints: the same command again with the layer the
diagnosis named pinned (pin_advice decides which)."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Sequence
from typing import Any

from mpstudio.engine.i18n import _
from mpstudio.engine.pin_advice import layers_to_pin, pin_cost_from_history, pin_offer_text
from mpstudio.engine.spec import RunSpec

OPTION = "--float32-layer"
# Options a rerun leaves out: where the output goes is not the run's setting.
_NOT_RERUN = ("float32_layer", "save_config", "json", "events", "help")


def add_pin_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(OPTION, action="append", metavar=_("LAYER"), dest="float32_layer",
                        help=_("keep this layer in float32 under a mixed policy (repeat for "
                               "more; replaces the config's list)"))


def apply_pin_option(args: argparse.Namespace, spec: RunSpec) -> RunSpec:
    if args.float32_layer is None:
        return spec
    return spec.replace(float32_layers=list(args.float32_layer))


def rerun_command(args: argparse.Namespace, add_options: Callable[[argparse.ArgumentParser], None],
                  layers: Sequence[str]) -> str:
    """The command line that runs ``args`` again with ``layers`` pinned: every option
    given, read back through the command's own parser, so nothing is lost or guessed."""
    parser = argparse.ArgumentParser(add_help=False)
    add_options(parser)
    words = ["mpstudio", args.command]
    for action in parser._actions:
        if not action.option_strings or action.dest in _NOT_RERUN:
            continue
        value = getattr(args, action.dest, None)
        if value is None or value is False or value == action.default:
            continue
        option = next(o for o in action.option_strings if o.startswith("--"))
        if value is True:
            words.append(option)
        elif isinstance(value, list):
            for item in value:
                words += [option, str(item)]
        else:
            words += [option, str(value)]
    for layer in layers:
        words += [OPTION, layer]
    return shlex.join(words)


def print_pin_advice(args: argparse.Namespace, add_options: Callable[[argparse.ArgumentParser],
                                                                     None],
                     results: Sequence[Any], stored: Sequence[Any]) -> None:
    """After the runs: the rerun a diverged run's diagnosis calls for, or what a pinned
    run cost against the all-mixed and float32 runs in the history (on stderr)."""
    for result in results:
        layers = layers_to_pin(result.spec.float32_layers, getattr(result, "diagnosis", None))
        if layers:
            print(_("{offer}: {command}").format(offer=pin_offer_text(layers[-1]),
                                                command=rerun_command(args, add_options,
                                                                      layers)),
                  file=sys.stderr)
            return
    pinned = [run for run in stored if run.spec.get("float32_layers")
              and run.spec.get("precision") != "float32" and run.status == "finished"]
    if not pinned:
        return
    from mpstudio.engine.history.store import RunStore

    try:
        with RunStore(read_only=True) as store:
            line = pin_cost_from_history(store, pinned[-1])
    except Exception as exc:  # the cost line is extra: a history problem never fails the run
        line = _("cannot compare with the history: {error}").format(error=exc)
    if line:
        print(line, file=sys.stderr)
