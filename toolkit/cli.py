"""The ``ssl-toolkit`` command line (also ``python -m toolkit``).

Sub-commands are registered by the modules that implement them, so this file only
dispatches: ``data`` (list / fetch / info, :mod:`toolkit.data`), ``reproduce`` and ``scorecard``
(papermill reproductions, :mod:`toolkit.reports`) and ``notebooks`` (copies of the templates to open).
"""
from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading

# sub-command -> module with ``register(subparsers)``; each parser sets ``func(args) -> int``
_COMMANDS = {
    "data": "toolkit.data._cli",
    "reproduce": "toolkit.reports._cli",
    "notebooks": "toolkit.reports._copy",
}


def build_parser() -> argparse.ArgumentParser:
    from toolkit import __version__

    parser = argparse.ArgumentParser(
        prog="ssl-toolkit",
        description="Semi-supervised kernel classification: data, solvers, reproductions.",
    )
    parser.add_argument("--version", action="version", version=f"ssl-toolkit {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in _COMMANDS.items():
        importlib.import_module(module).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    previous = _terminate_like_ctrl_c()
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def _terminate_like_ctrl_c():
    """SIGTERM (``kill PID``, a batch scheduler's stop) ends a command the way Ctrl-C does."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
