"""The ``mpstudio`` command line (the ``mpstudio`` script and ``python -m mpstudio``).

``main`` parses and dispatches (cli.main); each subcommand lives in its own
``*_command`` module, sharing support.py, spec_arguments.py and the rich renderers
(console.py, hardware_tables.py, history_tables.py). language.py words argparse's own
headings and errors from the catalog and lays Chinese help out in terminal columns.
"""

from mpstudio.cli.main import main

__all__ = ["main"]
