"""Child process of the results-file fuzz test: read every damaged file given, as ``show`` and ``--resume`` would.

Usage: ``python fuzz_results_proc.py FILE [FILE ...]``.  For each file it prints one JSON line ``{"file", "code",
"stderr"}`` after running ``puzzlebatch show FILE --json`` in this process, opening the file for writing (crash
recovery) and loading every run's checkpoint and rows.  The address space is capped, so a file that makes the
library allocate without bound ends this process instead of the machine; HDF5 runs here, not in the test runner.
"""

from __future__ import annotations

import contextlib
import io
import json
import resource
import sys


def main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    from puzzlebatch.cli import main as cli_main
    from puzzlebatch.errors import PuzzleInputError
    from puzzlebatch.results.store import ResultsStore

    for path in sys.argv[1:]:
        err, out = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = cli_main(["show", path, "--json"])
            try:
                with ResultsStore(path, "a") as store:  # a writer's open: recovery of every run
                    for run_id in store.run_ids():
                        run = store.run(run_id)
                        _ = run.attrs
                        run.items()
                        run.load_checkpoint()
            except PuzzleInputError as exc:
                print(f"puzzlebatch: error: {exc}", file=sys.stderr)
        print(json.dumps({"file": path, "code": code, "stderr": err.getvalue()}), flush=True)


if __name__ == "__main__":
    main()
