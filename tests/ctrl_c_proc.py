"""The command line with a Ctrl-C at a known moment (for test_hostile_ctrl_c.py).

Usage: ``python ctrl_c_proc.py ARGS...`` runs ``puzzlebatch ARGS...``; once the first batch of a count has been
committed (the session's per-batch hook has returned), SIGINT goes to this process's whole process group, as a
terminal's Ctrl-C reaches the command and every worker process it started.  Start it in a session of its own.
"""

import os
import signal
import sys

from puzzlebatch.runners.engine import session

_real = session.Session.on_batch
_sent = []


def _on_batch(self, front, tot):
    _real(self, front, tot)
    if not _sent:
        _sent.append(True)
        os.killpg(os.getpgrp(), signal.SIGINT)


session.Session.on_batch = _on_batch

if __name__ == "__main__":
    from puzzlebatch.cli import main

    # A shell without job control starts background jobs with SIGINT ignored, and Python keeps that: give this
    # process (and the workers it starts) the handler a command typed at a terminal has.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    raise SystemExit(main(sys.argv[1:]))
