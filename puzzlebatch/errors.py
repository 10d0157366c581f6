"""Errors a user can cause.  The command line prints them as one line and exits with status 2."""


class PuzzleInputError(ValueError):
    """Bad input: a malformed chain or file, an impossible board, an unknown name.

    The message is one line that names the problem and the place (argument, file and line).
    """


class BackendUnavailableError(RuntimeError):
    """A backend was asked for that this machine cannot run (``--backend cuda`` without a GPU)."""


class CountMismatchError(RuntimeError):
    """``--verify``: the count computed a second time, along another split of the work, differs from the first.

    Never reported as complete: the command prints the two values in one line and exits with
    :data:`EXIT_MISMATCH`."""


# The exit statuses of every command (README, "Command line"):
EXIT_OK = 0  # found, or done
EXIT_NO_SOLUTION = 1  # searched to the end: no solution exists
EXIT_BAD_INPUT = 2  # bad input, a limit, an I/O error (one line on stderr)
EXIT_MISMATCH = 3  # --verify: the second count disagrees with the first (one line on stderr; nothing reported)
EXIT_INTERRUPTED = 130  # Ctrl-C (a count checkpoints first: --resume continues it)
