"""The command line's argument parser: one-line errors, defaults in the help, whole option names, and the
:mod:`puzzlebatch.limits` checks' own messages."""

from __future__ import annotations

import argparse

from puzzlebatch.errors import EXIT_BAD_INPUT, PuzzleInputError


class _HelpFormatter(argparse.HelpFormatter):
    """Help that shows each option's default, unless its text already says it or there is none to show."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (default is None or default is False or default is argparse.SUPPRESS or "default" in text.lower()
                or not action.option_strings or action.nargs == 0):
            return text
        return f"{text} (default: %(default)s)" if text else "(default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump): ``puzzlebatch snake count: error: ...``; help texts show
    the defaults; an option is its whole name, never a prefix (``--out`` is never taken for ``--out-dir``), so a
    new option cannot change what an old command line means (every subcommand's parser is one of these: the
    families create them with ``type(parent)``)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def _get_value(self, action: argparse.Action, arg_string: str):
        # a ``type=`` function of :mod:`puzzlebatch.limits` raises PuzzleInputError with the whole message:
        # keep it (argparse would print "invalid value" for any ValueError) and name the option
        convert = self._registry_get("type", action.type, action.type)
        if callable(convert) and getattr(convert, "__module__", "") == "puzzlebatch.limits":
            try:
                return convert(arg_string)
            except PuzzleInputError as exc:
                raise argparse.ArgumentError(action, str(exc).strip()) from None
        return super()._get_value(action, arg_string)

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see --help)\n")
