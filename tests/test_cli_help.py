"""Every option of every verb says what it does, and the help shows the defaults."""

from __future__ import annotations

import argparse

from puzzlebatch.cli import build_parser


def _parsers(parser, path=()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def test_every_option_has_help():
    missing = [f"{' '.join(path)} {action.option_strings or action.dest}"
               for path, parser in _parsers(build_parser()) for action in parser._actions
               if not isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction))
               and not action.help]
    assert missing == []


def test_help_shows_defaults_on_every_verb(capsys):
    parsers = list(_parsers(build_parser()))
    assert len(parsers) > 30
    for path, parser in parsers:
        assert parser.formatter_class.__name__ == "_HelpFormatter", path
    snake = dict(parsers)[("snake", "generate")]
    text = snake.format_help()
    assert "(default: 3x3x3)" in text and "(default: 1)" in text
    # a help that already names its default is left as written, and flags without a value show none
    count = dict(parsers)[("polyomino", "count")].format_help()
    assert "(default: auto)" in count
    assert "print one JSON document (default" not in " ".join(count.split())  # a flag shows no default
