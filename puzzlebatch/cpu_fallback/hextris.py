"""CPU drivers of hex Tetris playouts: numba ``prange`` over the games, each running the shared per-game rules.

Same function names and signatures as :mod:`puzzlebatch.gpu_kernels.hextris`.  Every array is one row per game
(``states``, ``boards``, ``vis``, ``work``, ``feats``, ``out``) except ``tables`` (one row per problem, picked by
``prob[g]``) and the flat ``cmds`` with ``offsets``.  The drivers write their results into those arrays.
"""

# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache

from numba import prange

from puzzlebatch import jit
from puzzlebatch.puzzles.hextris import evaluation, rules


@jit.driver(parallel=True, nogil=True)
def init_batch(tables, prob, seeds, states, boards, vis):
    for g in prange(states.shape[0]):
        init_game(states[g], boards[g], vis[g], tables[prob[g]], seeds[g])


@jit.driver(parallel=True, nogil=True)
def commands_batch(tables, prob, cmds, offsets, states, boards, vis):
    for g in prange(states.shape[0]):
        play_commands(states[g], boards[g], vis[g], tables[prob[g]], cmds, offsets[g], offsets[g + 1])


@jit.driver(parallel=True, nogil=True)
def policy_batch(tables, prob, weights, max_units, states, boards, vis, work, feats, out, n_out):
    for g in prange(states.shape[0]):
        n_out[g] = play_policy(states[g], boards[g], vis[g], tables[prob[g]], work[g], weights[g], feats[g],
                               max_units, out[g], out.shape[1])


@jit.driver(parallel=True, nogil=True)
def placements_batch(tables, prob, targets, n_targets, states, boards, vis, work, out, n_out):
    for g in prange(states.shape[0]):
        n_out[g] = play_placements(states[g], boards[g], vis[g], tables[prob[g]], work[g], targets[g],
                                   n_targets[g], out[g], out.shape[1])


@jit.driver(parallel=True, nogil=True)
def lockable_batch(tables, prob, states, boards, vis, work, out, feats, n_out):
    for g in prange(states.shape[0]):
        n_out[g] = lockable_positions(states[g], boards[g], vis[g], tables[prob[g]], work[g], out[g],
                                      feats[g], out.shape[1])


@jit.driver(parallel=True, nogil=True)
def evaluate_batch(tables, prob, states, boards, vis, work, scratch, out, feats, n_out):
    for g in prange(states.shape[0]):
        n_out[g] = evaluate_placements(states[g], boards[g], vis[g], tables[prob[g]], work[g], scratch[g], out[g],
                                       feats[g], out.shape[1])


@jit.driver(parallel=True, nogil=True)
def board_eval_batch(tables, prob, boards, scratch, feats):
    for g in prange(boards.shape[0]):
        board_eval(boards[g], tables[prob[g]], feats[g], scratch[g])


@lru_cache(maxsize=None)
def drivers() -> jit.Unit:
    """The compiled CPU drivers (built on first use, from the disk cache when it has them): ``init_batch``,
    ``commands_batch``, ``policy_batch``, ``placements_batch``, ``lockable_batch``, ``evaluate_batch`` (every
    lockable position with the features of the board it leaves), ``board_eval_batch`` (the features of given
    boards), and every rule (e.g.
    ``reverse_distances`` for the phrase weaver).  A large rule set: plain njit rules compile several times faster
    than force-inlined ones."""
    return jit.unit("hextris", "cpu", rules=[rules, evaluation], templates=[sys.modules[__name__]], inline=False)


def weave_rules() -> jit.Unit:
    """The compiled CPU rules (``reverse_distances`` for the phrase weaver): the drivers' unit."""
    return drivers()
