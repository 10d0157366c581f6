"""The GPU backend's name in this test run.

CI runs the ``gpu`` tests in numba's simulator, where the CUDA backend reports itself as ``cudasim``; on a CUDA
machine, ``PUZZLEBATCH_REAL_GPU=1`` runs the same tests on the device (see ``tests/conftest.py``), where it reports
``cuda``.  Tests compare against :data:`GPU` so that they check the same things in both places.
"""

import os

REAL_GPU = os.environ.get("PUZZLEBATCH_REAL_GPU", "0") not in ("", "0")
GPU = "cuda" if REAL_GPU else "cudasim"
