"""Errors a user can cause.  The command line prints them as one line and exits with status 2."""


class PuzzleInputError(ValueError):
    """Bad input: a malformed chain or file, an impossible board, an unknown name.

    The message is one line that names the problem and the place (argument, file and line).
    """


class BackendUnavailableError(RuntimeError):
    """A backend was asked for that this machine cannot run (``--backend cuda`` without a GPU)."""
