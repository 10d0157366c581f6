"""The simulator's launches shorten the thread switch interval, and give it back afterwards.

numba's CUDA simulator runs a block's threads as Python threads that hand a per-module lock to one another at every
device-function call; at the default 5 ms switch interval a launch of a few thousand nodes took minutes.
"""

import sys

import numpy as np
import pytest
from numba import cuda

from puzzlebatch.gpu_kernels import device


def test_the_interval_is_short_inside_and_restored_after_nested_uses():
    before = sys.getswitchinterval()
    with device.simulator_thread_switching():
        assert sys.getswitchinterval() == pytest.approx(device.SIMULATOR_SWITCH_INTERVAL)
        with device.simulator_thread_switching():
            assert sys.getswitchinterval() == pytest.approx(device.SIMULATOR_SWITCH_INTERVAL)
        assert sys.getswitchinterval() == pytest.approx(device.SIMULATOR_SWITCH_INTERVAL)
    assert sys.getswitchinterval() == before


def test_restored_when_the_launch_raises():
    before = sys.getswitchinterval()
    with pytest.raises(ZeroDivisionError):
        with device.simulator_thread_switching():
            raise ZeroDivisionError("a fault inside the launch")
    assert sys.getswitchinterval() == before


@pytest.mark.gpu
def test_a_simulated_launch_runs_short_and_restores(monkeypatch):
    from puzzlebatch.gpu_kernels.detect import simulator_enabled

    if not simulator_enabled():
        pytest.skip("the interval is changed only under NUMBA_ENABLE_CUDASIM=1")
    seen = []

    @cuda.jit
    def record(out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = i

    s = device.DeviceSession()
    out = cuda.device_array(40, dtype=np.int64)
    real = device.simulator_thread_switching

    def spy():
        seen.append("entered")
        return real()

    monkeypatch.setattr(device, "simulator_thread_switching", spy)
    before = sys.getswitchinterval()
    s.launch("record", record, 40, out)
    assert seen == ["entered"] and sys.getswitchinterval() == before
    assert out.copy_to_host().tolist() == list(range(40))
