"""Two edges of the device data path that only a real GPU machine showed: CuPy installed beside numba's simulator,
and copies of empty arrays whose shapes differ."""

import sys
import types

import numpy as np
import pytest

from puzzlebatch import xp as X


def test_cupy_is_not_used_under_the_simulator(monkeypatch):
    """A CuPy that finds a GPU must not be handed the simulator's arrays or streams (every simulated count broke
    on such a machine): under the simulator, ``cupy_module()`` is None even when CuPy imports and sees a device."""
    from numba import config

    fake = types.ModuleType("cupy")
    fake.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(X, "_cupy", False)  # look again
    monkeypatch.setattr(config, "ENABLE_CUDASIM", True)
    assert X.cupy_module() is None
    monkeypatch.setattr(X, "_cupy", False)
    monkeypatch.setattr(config, "ENABLE_CUDASIM", False)
    assert X.cupy_module() is fake  # on a real machine the same CuPy is used


@pytest.mark.gpu
def test_empty_outputs_come_back_whatever_their_shape():
    """A batch with no rows to return: the reusable device buffer may be an empty array of another shape than the
    host's (numba refuses that copy on a GPU); nothing is copied and nothing is counted."""
    from puzzlebatch.gpu_kernels.device import DeviceSession

    s = DeviceSession()
    small = s.put("out", np.zeros((1, 0), np.int32))
    host = np.zeros((4, 0), np.int32)
    dev = s.put("out", host)
    assert s.get(dev, host) is host and host.shape == (4, 0)
    assert s.get(small).shape == (1, 0)
    assert s.transfers.to_json()["d2h_bytes"] == 0


@pytest.mark.parametrize("n,high", [(0, 5), (1, 5), (2, 2), (1000, 3), (5000, 1 << 40), (5000, 1 << 62)])
def test_sorted_unique_is_numpy_unique(n, high):
    """The sort-based dedup the BFS layers and the profile graphs use gives numpy's ``unique`` array, dtype too."""
    values = np.random.default_rng(n).integers(0, high, n, dtype=np.int64)
    got, want = X.sorted_unique(np, values), np.unique(values)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert len(want) > 1 or n < 2
