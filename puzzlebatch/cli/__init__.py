"""The ``puzzlebatch`` application: the parser built from the registry of families, and ``main``."""

from puzzlebatch.cli.app import build_parser, main

__all__ = ["build_parser", "main"]
