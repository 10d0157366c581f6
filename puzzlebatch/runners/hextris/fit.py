"""Weights that fit the board: a portfolio of weight rows chosen from the board's features.

No weight vector serves every board (problem 24 wants rows part full weighed about 1, problem 18 at 6 or more,
problems 7 and 23 at 0).  :func:`fitted_weights` predicts, for each candidate row of a table learned offline
(``puzzlebatch/data/hextris/weight_fit.json``, made by ``bench/hextris_fit.py``), its score on this board relative
to the default weights: the mean over the ``k`` training boards nearest in feature space (:func:`board_features`,
each feature standardised over the training boards).  The default weights and the best ``rows - 1`` other
candidates by that prediction are played as a portfolio, the exact scorer keeping each game's best: without a clock
every game once per row in one batch; on a clock the default row first, as if alone, and the others in the time it
leaves of the board's share.

The table was learned on the 25 qualifier problems and on generated boards
(:mod:`puzzlebatch.puzzles.hextris.generate`) of other seeds than those it is judged on; ``bench/RESULTS.md``
gives the held-out comparison.
"""

from __future__ import annotations

import json
import math
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.hextris.model import Problem

FIT_FILE = Path(__file__).resolve().parent.parent.parent / "data" / "hextris" / "weight_fit.json"
#: the board's features, in :func:`board_features` order
FEATURES = ("log_width", "log_height", "fill", "log_units", "mean_unit_size", "max_unit_size", "log_length",
            "log_seeds")
NEIGHBOURS = 8  #: training boards a prediction averages over
ROWS = 3  #: candidate rows played together by default
#: rows near the default weights that a clocked player adds after the chosen ones (``fitted_weights(jitter=)``),
#: for the time the default row leaves: each non-zero weight scaled by ``exp(JITTER_SCALE * z)``, ``z`` normal,
#: drawn from a generator seeded by the board (the same board, the same rows)
JITTER_ROWS = 8
JITTER_SCALE = 0.15


def board_features(problem: Problem) -> np.ndarray:
    """The board's features (:data:`FEATURES`): its size, the share of it filled at the start, its unit set (how
    many, how large), its source length and its number of seeds."""
    sizes = [len(u.members) for u in problem.units]
    cells = problem.width * problem.height
    return np.array([math.log(problem.width), math.log(problem.height), len(problem.filled) / cells,
                     math.log(len(problem.units)), float(np.mean(sizes)), float(max(sizes)),
                     math.log(problem.source_length), math.log(len(problem.source_seeds))], dtype=np.float64)


@lru_cache(maxsize=4)
def load_fit(path: str | None = None) -> dict:
    """The learned table (default :data:`FIT_FILE`): ``candidates`` (weight rows), ``features`` (one row per
    training board) and ``relative`` (each training board's score under each candidate over the default
    weights')."""
    p = Path(path) if path else FIT_FILE
    try:
        doc = json.loads(p.read_text())
        table = {"candidates": np.array(doc["candidates"], np.float64),
                 "features": np.array([b["features"] for b in doc["boards"]], np.float64),
                 "relative": np.array([b["relative"] for b in doc["boards"]], np.float64),
                 "names": [str(b["name"]) for b in doc["boards"]]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise PuzzleInputError(f"{p}: not a weight-fit table ({e})") from None
    if table["features"].shape[1] != len(FEATURES) or table["relative"].shape[1] != len(table["candidates"]):
        raise PuzzleInputError(f"{p}: not a weight-fit table (feature or candidate counts differ)")
    return table


def predict(problem: Problem, *, k: int = NEIGHBOURS, path: str | None = None,
            exclude: str | None = None) -> np.ndarray:
    """Each candidate's predicted score on ``problem`` over the default weights' (1.0: as good): the mean over
    the ``k`` nearest training boards (``exclude``: leave out the training board of that name, for
    leave-one-out checks)."""
    return predict_features(board_features(problem), k=k, path=path, exclude=exclude)


def predict_features(x: np.ndarray, *, k: int = NEIGHBOURS, path: str | None = None,
                     exclude: str | None = None) -> np.ndarray:
    """:func:`predict` for a board given by its features ``x``."""
    t = load_fit(path)
    feats, rel = t["features"], t["relative"]
    if exclude is not None:
        keep = np.array([n != exclude for n in t["names"]])
        feats, rel = feats[keep], rel[keep]
    mu, sd = feats.mean(axis=0), feats.std(axis=0)
    sd[sd == 0] = 1.0
    z = (feats - mu) / sd
    x = (np.asarray(x, np.float64) - mu) / sd
    near = np.argsort(((z - x) ** 2).sum(axis=1), kind="stable")[: max(1, k)]
    return rel[near].mean(axis=0)


def fitted_weights(problem: Problem, *, rows: int = ROWS, k: int = NEIGHBOURS, path: str | None = None,
                   jitter: int = 0, jitter_scale: float = JITTER_SCALE) -> np.ndarray:
    """The portfolio for ``problem`` (:func:`predict`): the default weights (candidate 0) first, then the
    ``rows - 1`` other candidates of best predicted score, best first, then ``jitter`` rows near the default
    weights (:func:`jittered_rows` at ``jitter_scale``), as a ``(rows + jitter, 13)`` array; with ``rows`` 1, the
    best predicted candidate alone (a plain weight vector).  On a clock the player plays the first row as if alone
    and the others in the time it leaves (``player.play_problems``): the default weights' play is kept whole, and
    another row's game replaces its game only where it scores more.

    The default row stays in: a single row chosen by its neighbours' scores did no better than the default weights
    in the learning table's leave-one-out check, while the best of the default and two chosen rows was never
    below them there (``bench/hextris_fit.py loo``)."""
    t = load_fit(path)
    chosen = choose_rows(predict(problem, k=k, path=path), rows)
    if rows <= 1:
        return t["candidates"][chosen[0]]
    out = t["candidates"][chosen]
    if jitter > 0:
        out = np.vstack([out, jittered_rows(t["candidates"][0], jitter, board_seed(problem), jitter_scale)])
    return out


def board_seed(problem: Problem) -> int:
    """A seed that names the board (its size, fill, units, source length and seeds): :func:`jittered_rows`."""
    return zlib.crc32(np.round(board_features(problem), 9).tobytes())


def jittered_rows(base: np.ndarray, n: int, seed: int, scale: float = JITTER_SCALE) -> np.ndarray:
    """``n`` rows near ``base``: each non-zero weight times ``exp(scale * z)``, ``z`` standard normal (a zero stays
    zero: a feature the weights leave out stays out), from a generator seeded by ``seed``."""
    base = np.asarray(base, np.float64)
    z = np.random.default_rng(seed).standard_normal((int(n), len(base)))
    return base[None, :] * np.exp(scale * z)


def choose_rows(score: np.ndarray, rows: int = ROWS) -> list[int]:
    """The candidates :func:`fitted_weights` plays for predicted scores ``score``: the default (0), then the
    others best first (``rows`` 1: the best alone)."""
    best = [int(i) for i in np.argsort(-np.asarray(score), kind="stable")]
    if rows <= 1:
        return best[:1]
    return [0] + [i for i in best if i != 0][: rows - 1]


__all__ = ["FEATURES", "FIT_FILE", "JITTER_ROWS", "board_features", "board_seed", "choose_rows", "fitted_weights",
           "jittered_rows", "load_fit", "predict", "predict_features"]
