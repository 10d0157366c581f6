"""Errors a user can cause.  The command line prints them as one line and exits with status 2."""


class PuzzleInputError(ValueError):
    """Bad input: a malformed chain or file, an impossible board, an unknown name.

    The message is one line that names the problem and the place (argument, file and line).
    """


class BackendUnavailableError(RuntimeError):
    """A backend was asked for that this machine cannot run (``--backend cuda`` without a GPU)."""


class NothingToDo(PuzzleInputError):
    """``--resume`` of a run (or a job) that already finished: nothing is left to compute.

    The command line says so in one line and exits with :data:`EXIT_OK` (the Python API raises it, a kind of
    :class:`PuzzleInputError`); ``path`` and ``run_id`` name the finished run."""

    def __init__(self, message: str, path: str = "", run_id: str = "") -> None:
        super().__init__(message)
        self.path, self.run_id = path, run_id


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


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a stored run: the run was checkpointed and marked interrupted first.

    ``out`` and ``run_id`` name it; the same call (or command) with ``resume=True`` (``--resume``) and the same
    ``out`` continues it.  A ``KeyboardInterrupt``, so code that stops on Ctrl-C still stops."""

    def __init__(self, out=None, run_id: str | None = None, hint: str | None = None) -> None:
        super().__init__(f"interrupted; resume from {out} (run {run_id})" if out else (hint or "interrupted"))
        self.out = out
        self.run_id = run_id
        self.hint = hint  # what to do next, for work kept outside a results file
