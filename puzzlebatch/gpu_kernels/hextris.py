"""CUDA kernels of hex Tetris playouts: one game per thread (grid-stride), the same per-game rules as the CPU.

Same function names and signatures as :mod:`puzzlebatch.cpu_fallback.hextris`, taking host numpy arrays; the
launchers copy them to the device, run the kernel and copy the game arrays back.
"""

# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache

import numpy as np
from numba import cuda  # a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch import jit
from puzzlebatch.config import launch
from puzzlebatch.puzzles.hextris import evaluation, rules


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


def _launch(kernel, n, inputs, outputs, scratch=frozenset()):
    """Run ``kernel`` over ``n`` games; ``outputs`` (host arrays) are copied in and back, except those whose
    position is in ``scratch`` (the BFS work arrays: copied in, zeroed by the caller, never back)."""
    if n == 0:
        return
    d_out = [cuda.to_device(a) for a in outputs]
    d_in = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in inputs]
    kernel[launch.blocks_for(n), launch.threads_per_block](*d_in, *d_out)
    for k, (host, dev) in enumerate(zip(outputs, d_out)):
        if k not in scratch:
            dev.copy_to_host(host)


class HextrisKernels:
    """The CUDA kernels (``*_kernel``) and their host launchers (``init_batch`` ...)."""

    def __init__(self, unit: jit.Unit) -> None:
        self.unit = unit
        for name in ("init_kernel", "commands_kernel", "policy_kernel", "placements_kernel", "lockable_kernel",
                     "evaluate_kernel", "board_eval_kernel"):
            setattr(self, name, getattr(unit, name))

    def init_batch(self, tables, prob, seeds, states, boards, vis):
        _launch(self.init_kernel, states.shape[0], (tables, prob, seeds), (states, boards, vis))

    def commands_batch(self, tables, prob, cmds, offsets, states, boards, vis):
        _launch(self.commands_kernel, states.shape[0], (tables, prob, cmds, offsets), (states, boards, vis))

    def policy_batch(self, tables, prob, weights, max_units, states, boards, vis, work, feats, out, n_out):
        _launch(self.policy_kernel, states.shape[0], (tables, prob, weights, max_units),
                (states, boards, vis, work, feats, out, n_out), scratch={3, 4})

    def placements_batch(self, tables, prob, targets, n_targets, states, boards, vis, work, out, n_out):
        _launch(self.placements_kernel, states.shape[0], (tables, prob, targets, n_targets),
                (states, boards, vis, work, out, n_out), scratch={3})

    def lockable_batch(self, tables, prob, states, boards, vis, work, out, feats, n_out):
        _launch(self.lockable_kernel, states.shape[0], (tables, prob, states, boards, vis),
                (work, out, feats, n_out), scratch={0})

    def evaluate_batch(self, tables, prob, states, boards, vis, work, scratch, out, feats, n_out):
        _launch(self.evaluate_kernel, states.shape[0], (tables, prob, states, boards, vis),
                (work, scratch, out, feats, n_out), scratch={0, 1})

    def board_eval_batch(self, tables, prob, boards, scratch, feats):
        _launch(self.board_eval_kernel, boards.shape[0], (tables, prob, boards), (scratch, feats), scratch={0})


@lru_cache(maxsize=None)
def drivers() -> HextrisKernels:
    """The kernels compiled together with the hex Tetris rules (built on first use, cached on disk)."""
    return HextrisKernels(jit.unit("hextris", "cuda", rules=[rules, evaluation], templates=[sys.modules[__name__]]))
