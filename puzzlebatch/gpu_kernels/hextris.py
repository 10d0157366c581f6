"""CUDA kernels of hex Tetris playouts: one game per thread (grid-stride), the same per-game rules as the CPU.

Same function names and signatures as :mod:`puzzlebatch.cpu_fallback.hextris`, taking host numpy arrays; the
launchers copy them to the device, run the kernel and copy the game arrays back.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import cuda  # a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch.config import launch
from puzzlebatch.jit import compile_rules
from puzzlebatch.puzzles.hextris import rules


@lru_cache(maxsize=None)
def drivers():
    """The CUDA kernels (``*_kernel``) and their host launchers (``init_batch`` ...), built on first use."""
    r = compile_rules(rules, "cuda")
    init_game, play_commands, play_policy, play_placements = (r.init_game, r.play_commands, r.play_policy,
                                                              r.play_placements)
    lockable_positions, evaluate_placements, board_eval = r.lockable_positions, r.evaluate_placements, r.board_eval

    @cuda.jit
    def init_kernel(tables, prob, seeds, states, boards, vis):
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for g in range(start, states.shape[0], stride):
            init_game(states[g], boards[g], vis[g], tables[prob[g]], seeds[g])

    @cuda.jit
    def commands_kernel(tables, prob, cmds, offsets, states, boards, vis):
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for g in range(start, states.shape[0], stride):
            play_commands(states[g], boards[g], vis[g], tables[prob[g]], cmds, offsets[g], offsets[g + 1])

    @cuda.jit
    def policy_kernel(tables, prob, weights, max_units, states, boards, vis, work, feats, out, n_out):
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for g in range(start, states.shape[0], stride):
            n_out[g] = play_policy(states[g], boards[g], vis[g], tables[prob[g]], work[g], weights[g], feats[g],
                                   max_units, out[g], out.shape[1])

    @cuda.jit
    def placements_kernel(tables, prob, targets, n_targets, states, boards, vis, work, out, n_out):
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for g in range(start, states.shape[0], stride):
            n_out[g] = play_placements(states[g], boards[g], vis[g], tables[prob[g]], work[g], targets[g],
                                       n_targets[g], out[g], out.shape[1])

    @cuda.jit
    def lockable_kernel(tables, prob, states, boards, vis, work, out, feats, n_out):
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for g in range(start, states.shape[0], stride):
            n_out[g] = lockable_positions(states[g], boards[g], vis[g], tables[prob[g]], work[g], out[g],
                                          feats[g], out.shape[1])

    @cuda.jit
    def evaluate_kernel(tables, prob, states, boards, vis, work, scratch, out, feats, n_out):
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for g in range(start, states.shape[0], stride):
            n_out[g] = evaluate_placements(states[g], boards[g], vis[g], tables[prob[g]], work[g], scratch[g], out[g],
                                           feats[g], out.shape[1])

    @cuda.jit
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

    def init_batch(tables, prob, seeds, states, boards, vis):
        _launch(init_kernel, states.shape[0], (tables, prob, seeds), (states, boards, vis))

    def commands_batch(tables, prob, cmds, offsets, states, boards, vis):
        _launch(commands_kernel, states.shape[0], (tables, prob, cmds, offsets), (states, boards, vis))

    def policy_batch(tables, prob, weights, max_units, states, boards, vis, work, feats, out, n_out):
        _launch(policy_kernel, states.shape[0], (tables, prob, weights, max_units),
                (states, boards, vis, work, feats, out, n_out), scratch={3, 4})

    def placements_batch(tables, prob, targets, n_targets, states, boards, vis, work, out, n_out):
        _launch(placements_kernel, states.shape[0], (tables, prob, targets, n_targets),
                (states, boards, vis, work, out, n_out), scratch={3})

    def lockable_batch(tables, prob, states, boards, vis, work, out, feats, n_out):
        _launch(lockable_kernel, states.shape[0], (tables, prob, states, boards, vis), (work, out, feats, n_out),
                scratch={0})

    def evaluate_batch(tables, prob, states, boards, vis, work, scratch, out, feats, n_out):
        _launch(evaluate_kernel, states.shape[0], (tables, prob, states, boards, vis),
                (work, scratch, out, feats, n_out), scratch={0, 1})

    def board_eval_batch(tables, prob, boards, scratch, feats):
        _launch(board_eval_kernel, boards.shape[0], (tables, prob, boards), (scratch, feats), scratch={0})

    class _Drivers:
        pass

    d = _Drivers()
    d.init_batch, d.commands_batch, d.policy_batch, d.placements_batch = (init_batch, commands_batch, policy_batch,
                                                                          placements_batch)
    d.init_kernel, d.commands_kernel, d.policy_kernel, d.placements_kernel = (init_kernel, commands_kernel,
                                                                              policy_kernel, placements_kernel)
    d.lockable_batch, d.lockable_kernel = lockable_batch, lockable_kernel
    d.evaluate_batch, d.evaluate_kernel = evaluate_batch, evaluate_kernel
    d.board_eval_batch, d.board_eval_kernel = board_eval_batch, board_eval_kernel
    return d
