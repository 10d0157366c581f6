"""Test setup: CUDA kernels run in numba's simulator unless a real GPU is asked for.

``NUMBA_ENABLE_CUDASIM`` must be set before numba.cuda is first imported, hence here, at collection time.
Set ``PUZZLEBATCH_REAL_GPU=1`` on a CUDA machine to run the ``gpu`` tests on the device instead.
"""

import os
import sys
from pathlib import Path

if os.environ.get("PUZZLEBATCH_REAL_GPU", "0") in ("", "0"):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

# pytest-xdist runs a worker a core, and each worker's numba runs a thread a core: more threads than cores. With
# OpenMP's default wait policy an idle thread spins for its next parallel region and takes the core a busy one
# needs; a count cut into thousands of tiny launches then ran 10x slower (three such processes at once on two
# cores: 79-113 s against 9-12 s, passive). Read once, when numba first loads its OpenMP layer, hence here.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.reference importable

import pytest  # noqa: E402

from puzzlebatch.config import launch  # noqa: E402

# Small blocks so that a batch of a few dozen items spans several blocks plus a partial one.
launch.threads_per_block = 8


@pytest.fixture
def cpu():
    from puzzlebatch.runners.engine.backend import select_backend

    return select_backend("cpu")


@pytest.fixture
def gpu():
    from puzzlebatch.runners.engine.backend import select_backend

    return select_backend("cuda")


@pytest.fixture(scope="module")
def cluster():
    """A Dask ``local:2`` cluster (two worker processes, one thread each) for a test module, by its address."""
    pytest.importorskip("dask.distributed")
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      env={"NUMBA_NUM_THREADS": "1"}) as c:
        yield c.scheduler_address


# -- the web app (tests/test_web_*.py): one set of warm worker processes for the whole session ---------------------
@pytest.fixture(scope="session")
def web_results(tmp_path_factory):
    return tmp_path_factory.mktemp("web-results")


@pytest.fixture(scope="session")
def web_jobs(web_results):
    pytest.importorskip("fastapi", reason="the web extra is not installed")
    from puzzlebatch.web.jobs import JobManager

    manager = JobManager(1, ("polyomino",), web_results).start()
    yield manager
    manager.close()


@pytest.fixture(scope="session")
def web_app(web_jobs, web_results):
    from puzzlebatch.web.app import create_app

    return create_app(web_results, jobs=web_jobs, allowed_hosts=("testserver", "127.0.0.1", "localhost"))
