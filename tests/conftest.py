"""Test setup: CUDA kernels run in numba's simulator unless a real GPU is asked for.

``NUMBA_ENABLE_CUDASIM`` must be set before numba.cuda is first imported, hence here, at collection time.
Set ``PUZZLEBATCH_REAL_GPU=1`` on a CUDA machine to run the ``gpu`` tests on the device instead.
"""

import os
import sys
from pathlib import Path

if os.environ.get("PUZZLEBATCH_REAL_GPU", "0") in ("", "0"):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.reference importable

import pytest  # noqa: E402

from puzzlebatch.config import launch  # noqa: E402

# Small blocks so that a batch of a few dozen items spans several blocks plus a partial one.
launch.threads_per_block = 8


@pytest.fixture
def cpu():
    from puzzlebatch.runners.backend import select_backend

    return select_backend("cpu")


@pytest.fixture
def gpu():
    from puzzlebatch.runners.backend import select_backend

    return select_backend("cuda")
