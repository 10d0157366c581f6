"""CUDA kernels of hex Tetris playouts: one game per thread (grid-stride), the same per-game rules as the CPU.

Same function names and signatures as :mod:`puzzlebatch.cpu_fallback.hextris`, taking host numpy arrays; the
launchers keep the tables on the device, copy the games in, run the kernel and copy the game arrays back.
"""

# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache

import numpy as np
from numba import cuda  # a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch import jit
from puzzlebatch.gpu_kernels.device import DeviceSession
from puzzlebatch.puzzles.hextris import evaluation, rules
from puzzlebatch.transfers import Transfers


@jit.kernel
def init_kernel(tables, prob, seeds, states, boards, vis):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for g in range(start, states.shape[0], stride):
        init_game(states[g], boards[g], vis[g], tables[prob[g]], seeds[g])


@jit.kernel
def commands_kernel(tables, prob, cmds, offsets, states, boards, vis):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for g in range(start, states.shape[0], stride):
        play_commands(states[g], boards[g], vis[g], tables[prob[g]], cmds, offsets[g], offsets[g + 1])


@jit.kernel
def policy_kernel(tables, prob, weights, max_units, states, boards, vis, work, feats, out, n_out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for g in range(start, states.shape[0], stride):
        n_out[g] = play_policy(states[g], boards[g], vis[g], tables[prob[g]], work[g], weights[g], feats[g],
                               max_units, out[g], out.shape[1])


@jit.kernel
def placements_kernel(tables, prob, targets, n_targets, states, boards, vis, work, out, n_out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for g in range(start, states.shape[0], stride):
        n_out[g] = play_placements(states[g], boards[g], vis[g], tables[prob[g]], work[g], targets[g],
                                   n_targets[g], out[g], out.shape[1])


@jit.kernel
def lockable_kernel(tables, prob, states, boards, vis, work, out, feats, n_out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for g in range(start, states.shape[0], stride):
        n_out[g] = lockable_positions(states[g], boards[g], vis[g], tables[prob[g]], work[g], out[g],
                                      feats[g], out.shape[1])


@jit.kernel
def evaluate_kernel(tables, prob, states, boards, vis, work, scratch, out, feats, n_out):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for g in range(start, states.shape[0], stride):
        n_out[g] = evaluate_placements(states[g], boards[g], vis[g], tables[prob[g]], work[g], scratch[g], out[g],
                                       feats[g], out.shape[1])


@jit.kernel
def board_eval_kernel(tables, prob, boards, scratch, feats):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for g in range(start, boards.shape[0], stride):
        board_eval(boards[g], tables[prob[g]], feats[g], scratch[g])


class HextrisKernels:
    """The CUDA kernels (``*_kernel``) and their host launchers (``init_batch`` ...), with the device memory of one
    set of playouts (one launcher per :class:`~puzzlebatch.runners.hextris.playouts.Playouts`: :func:`launcher`): the
    problems' tables go to the device once; the games' arrays, which every call changes, go in and come back."""

    def __init__(self, unit: jit.Unit) -> None:
        self.unit = unit
        for name in ("init_kernel", "commands_kernel", "policy_kernel", "placements_kernel", "lockable_kernel",
                     "evaluate_kernel", "board_eval_kernel"):
            setattr(self, name, getattr(unit, name))
        self._session: DeviceSession | None = None

    @property
    def session(self) -> DeviceSession:
        if self._session is None:  # made on first use: compiling to PTX needs no device
            self._session = DeviceSession()
        return self._session

    @property
    def transfers(self) -> Transfers:
        return self.session.transfers

    def _launch(self, name, n, tables, inputs, outputs, scratch=frozenset()):
        """Run kernel ``name`` over ``n`` games: ``tables`` stays on the device; ``outputs`` (host arrays) are
        copied in and back, except those whose position is in ``scratch`` (the BFS work arrays: copied in, zeroed
        by the caller, never back)."""
        if n == 0:
            return
        s = self.session
        d_in = [s.put(f"{name}:in{k}", a) if isinstance(a, np.ndarray) else a for k, a in enumerate(inputs)]
        d_out = [s.put(f"{name}:out{k}", a) for k, a in enumerate(outputs)]
        s.launch(name, getattr(self, name), n, s.resident("tables", tables), *d_in, *d_out)
        for k, (host, dev) in enumerate(zip(outputs, d_out)):
            if k not in scratch:
                s.get(dev, host)

    def init_batch(self, tables, prob, seeds, states, boards, vis):
        self._launch("init_kernel", states.shape[0], tables, (prob, seeds), (states, boards, vis))

    def commands_batch(self, tables, prob, cmds, offsets, states, boards, vis):
        self._launch("commands_kernel", states.shape[0], tables, (prob, cmds, offsets), (states, boards, vis))

    def policy_batch(self, tables, prob, weights, max_units, states, boards, vis, work, feats, out, n_out):
        self._launch("policy_kernel", states.shape[0], tables, (prob, weights, max_units),
                     (states, boards, vis, work, feats, out, n_out), scratch={3, 4})

    def placements_batch(self, tables, prob, targets, n_targets, states, boards, vis, work, out, n_out):
        self._launch("placements_kernel", states.shape[0], tables, (prob, targets, n_targets),
                     (states, boards, vis, work, out, n_out), scratch={3})

    def lockable_batch(self, tables, prob, states, boards, vis, work, out, feats, n_out):
        self._launch("lockable_kernel", states.shape[0], tables, (prob, states, boards, vis),
                     (work, out, feats, n_out), scratch={0})

    def evaluate_batch(self, tables, prob, states, boards, vis, work, scratch, out, feats, n_out):
        self._launch("evaluate_kernel", states.shape[0], tables, (prob, states, boards, vis),
                     (work, scratch, out, feats, n_out), scratch={0, 1})

    def board_eval_batch(self, tables, prob, boards, scratch, feats):
        self._launch("board_eval_kernel", boards.shape[0], tables, (prob, boards), (scratch, feats), scratch={0})


@lru_cache(maxsize=None)
def drivers() -> HextrisKernels:
    """The kernels compiled together with the hex Tetris rules (built on first use, cached on disk)."""
    return HextrisKernels(jit.unit("hextris", "cuda", rules=[rules, evaluation], templates=[sys.modules[__name__]]))


def launcher() -> HextrisKernels:
    """A launcher of its own (its own device memory, stream and transfer counts) for one set of playouts."""
    return HextrisKernels(drivers().unit)
