"""Errors a user can cause.  The command line prints them as one line and exits with status 2."""


class PuzzleInputError(ValueError):
    """Bad input: a malformed chain or file, an impossible board, an unknown name.

    The message is one line that names the problem and the place (argument, file and line).
    """


class BackendUnavailableError(RuntimeError):
    """A backend was asked for that this machine cannot run (``--backend cuda`` without a GPU)."""


# The exit statuses of every command (README, "Command line"):
EXIT_OK = 0  # found, or done
EXIT_NO_SOLUTION = 1  # searched to the end: no solution exists
EXIT_BAD_INPUT = 2  # bad input, a limit, an I/O error (one line on stderr)
EXIT_INTERRUPTED = 130  # Ctrl-C (a count checkpoints first: --resume continues it)
