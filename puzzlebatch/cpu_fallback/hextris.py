"""CPU drivers of hex Tetris playouts: numba ``prange`` over the games, each running the shared per-game rules.

Same function names and signatures as :mod:`puzzlebatch.gpu_kernels.hextris`.  Every array is one row per game
(``states``, ``boards``, ``vis``, ``work``, ``feats``, ``out``) except ``tables`` (one row per problem, picked by
``prob[g]``) and the flat ``cmds`` with ``offsets``.  The drivers write their results into those arrays.
"""

from __future__ import annotations

from functools import lru_cache

from numba import njit, prange

from puzzlebatch.jit import compile_rules
from puzzlebatch.puzzles.hextris import rules


@lru_cache(maxsize=None)
def drivers():
    """The compiled CPU drivers (built on first use): ``init_batch``, ``commands_batch``, ``policy_batch``,
    ``placements_batch``, ``lockable_batch``, ``evaluate_batch`` (every lockable position with the features of the
    board it leaves) and ``board_eval_batch`` (the features of given boards)."""
    r = compile_rules(rules, "cpu", inline=False)  # a large rule set: see jit.compile_rules
    init_game, play_commands, play_policy, play_placements = (r.init_game, r.play_commands, r.play_policy,
                                                              r.play_placements)
    lockable_positions, evaluate_placements, board_eval = r.lockable_positions, r.evaluate_placements, r.board_eval

    @njit(parallel=True)
    def init_batch(tables, prob, seeds, states, boards, vis):
        for g in prange(states.shape[0]):
            init_game(states[g], boards[g], vis[g], tables[prob[g]], seeds[g])

    @njit(parallel=True)
    def commands_batch(tables, prob, cmds, offsets, states, boards, vis):
        for g in prange(states.shape[0]):
            play_commands(states[g], boards[g], vis[g], tables[prob[g]], cmds, offsets[g], offsets[g + 1])

    @njit(parallel=True)
    def policy_batch(tables, prob, weights, max_units, states, boards, vis, work, feats, out, n_out):
        for g in prange(states.shape[0]):
            n_out[g] = play_policy(states[g], boards[g], vis[g], tables[prob[g]], work[g], weights[g], feats[g],
                                   max_units, out[g], out.shape[1])

    @njit(parallel=True)
    def placements_batch(tables, prob, targets, n_targets, states, boards, vis, work, out, n_out):
        for g in prange(states.shape[0]):
            n_out[g] = play_placements(states[g], boards[g], vis[g], tables[prob[g]], work[g], targets[g],
                                       n_targets[g], out[g], out.shape[1])

    @njit(parallel=True)
    def lockable_batch(tables, prob, states, boards, vis, work, out, feats, n_out):
        for g in prange(states.shape[0]):
            n_out[g] = lockable_positions(states[g], boards[g], vis[g], tables[prob[g]], work[g], out[g],
                                          feats[g], out.shape[1])

    @njit(parallel=True)
    def evaluate_batch(tables, prob, states, boards, vis, work, scratch, out, feats, n_out):
        for g in prange(states.shape[0]):
            n_out[g] = evaluate_placements(states[g], boards[g], vis[g], tables[prob[g]], work[g], scratch[g], out[g],
                                           feats[g], out.shape[1])

    @njit(parallel=True)
    def board_eval_batch(tables, prob, boards, scratch, feats):
        for g in prange(boards.shape[0]):
            board_eval(boards[g], tables[prob[g]], feats[g], scratch[g])

    class _Drivers:
        pass

    d = _Drivers()
    d.init_batch, d.commands_batch, d.policy_batch, d.placements_batch = (init_batch, commands_batch, policy_batch,
                                                                          placements_batch)
    d.lockable_batch, d.evaluate_batch, d.board_eval_batch = lockable_batch, evaluate_batch, board_eval_batch
    return d


@lru_cache(maxsize=None)
def weave_rules():
    """The compiled CPU rules (``reverse_distances`` for the phrase weaver)."""
    return compile_rules(rules, "cpu", inline=False)
