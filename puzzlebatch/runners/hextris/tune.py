"""Tuning the beam player's weights with the source document's genetic algorithm.

A genome has one integer gene per evaluation feature (``player.FEATURE_NAMES``), read in one of two codings:

- ``absolute`` (the document's): the weight is the gene times the feature's step (:data:`GENE_SCALE`: the
  features' natural scales differ, a hole costs more than a row transition), so that the gene range ``0..10``
  spans the useful weights of every feature;
- ``relative``: the genes are steps around the player's default weights (the hand vector).  The middle gene of the
  range is the default weight; each step up or down multiplies it by :data:`RELATIVE_RATIO` (a feature whose
  default weight is 0 takes half its :data:`GENE_SCALE` per step above the middle, and 0 at or below it).  The
  whole first generation then lies around a vector that already plays well, and the breeding (weighted averages
  of genes) averages weights geometrically.

The scheme (document §4, the defaults of :class:`TuneConfig`): 12 candidates a generation; the first generation
is the ancestor weights plus random genomes (integer genes in ``0..10``); after each tournament the 4 best are
kept, 6 children are bred from the 6 pairs of those 4 — per gene, 9 times in 10 the parents' average weighted by
their fitness plus a random factor, 1 time in 10 (``p_major``) a major mutation drawing the gene anew — and 2
newcomers are drawn at random.

Fitness is the total move score over a training set of (problem, seed) games, every genome of a generation
played in one batch per problem (:class:`BeamPlayer` with one weight row per game).  Phrases of power are left
out of the fitness: they do not depend on the weights.  Every evaluation is recorded in the HDF5 store and a
genome already played (this run or the run being resumed) is never played again; each generation is a
checkpoint, so ``--resume`` continues a tuning run.

This module is a thin, host-side GA on purpose: the generic GA engine (``runners/engine/ga.py``, per-child rules in
``puzzlebatch/ga``) breeds and scores inside one kernel with a per-item fitness rule, while a hex Tetris fitness is
a whole beam-search game driven from the host; the document's 12-candidate scheme is duplicated here in ~60 lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.jit.clock import work_clock
from puzzlebatch.puzzles.hextris.model import Problem
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.hextris.player import DEFAULT_WEIGHTS, FEATURE_NAMES, BeamPlayer

#: the weight of one gene step, per feature (``FEATURE_NAMES`` order)
GENE_SCALE = np.array([0.1, 1, 1, 5, 1, 1, 1, 1, 1, 1, 30, 5, 0.1], dtype=np.float64)
#: the player's default weights as genes, and the document's ancestor: every gene 1
HAND_GENES = np.rint(DEFAULT_WEIGHTS / GENE_SCALE).astype(np.int64)
ANCESTOR_GENES = np.ones(len(FEATURE_NAMES), dtype=np.int64)
#: a problem's fitness when its total equals the default weights' (``Tuner.normalise``)
NORMAL = 10_000
#: the gene codings (see the module's docstring)
CODINGS = ("absolute", "relative")
#: the factor one gene step applies to a default weight in the relative coding
RELATIVE_RATIO = 2 ** 0.5


def relative_centre(gene_low: int = 0, gene_high: int = 10) -> int:
    """The gene that stands for the default weight in the relative coding: the middle of the range."""
    return (gene_low + gene_high) // 2


def hand_genes(coding: str = "absolute", gene_low: int = 0, gene_high: int = 10) -> np.ndarray:
    """The player's default weights as a genome of ``coding``."""
    if coding == "relative":
        return np.full(len(FEATURE_NAMES), relative_centre(gene_low, gene_high), dtype=np.int64)
    return HAND_GENES.copy()


def genes_to_weights(genes, coding: str = "absolute", centre: int = 5) -> np.ndarray:
    """The player's weights of a genome (one row) or of genomes (one row each); ``centre``: the relative coding's
    gene of the default weights (:func:`relative_centre`)."""
    g = np.asarray(genes, dtype=np.float64)
    if coding == "absolute":
        return g * GENE_SCALE
    if coding != "relative":
        raise PuzzleInputError(f"gene coding {coding!r}: expected one of {', '.join(CODINGS)}")
    step = g - centre
    scaled = DEFAULT_WEIGHTS * RELATIVE_RATIO ** step
    from_zero = np.maximum(step, 0) * GENE_SCALE / 2
    return np.where(DEFAULT_WEIGHTS > 0, scaled, from_zero)


@dataclass
class TuneConfig:
    """The GA's settings (defaults: the document's scheme)."""

    population: int = 12
    elite: int = 4
    newcomers: int = 2
    gene_low: int = 0
    gene_high: int = 10
    p_major: float = 0.1
    jitter: float = 1.0  # the random factor added to a weighted average (uniform in [-jitter, jitter])
    coding: str = "absolute"
    #: the first generation's fixed genomes (None: the document's ancestor, then the player's default weights; in
    #: the relative coding, the default weights alone)
    ancestors: list | None = None

    def __post_init__(self) -> None:
        if self.ancestors is None:
            hand = hand_genes(self.coding, self.gene_low, self.gene_high).tolist()
            self.ancestors = [hand] if self.coding == "relative" else [ANCESTOR_GENES.tolist(), hand]

    @property
    def centre(self) -> int:
        return relative_centre(self.gene_low, self.gene_high)

    def check(self) -> None:
        if self.elite < 2 or self.population < self.elite + self.newcomers:
            raise PuzzleInputError(f"--population {self.population}: needs at least elite ({self.elite}) + "
                                   f"newcomers ({self.newcomers}), and elite >= 2")
        if self.gene_low > self.gene_high:
            raise PuzzleInputError(f"gene bounds {self.gene_low}..{self.gene_high}: empty range")
        if self.coding not in CODINGS:
            raise PuzzleInputError(f"--genes {self.coding}: expected one of {', '.join(CODINGS)}")


def first_generation(cfg: TuneConfig, rng: np.random.Generator) -> np.ndarray:
    """The ancestors, then random genomes."""
    n_genes = len(FEATURE_NAMES)
    pop = [list(a) for a in cfg.ancestors][: cfg.population]
    while len(pop) < cfg.population:
        pop.append(rng.integers(cfg.gene_low, cfg.gene_high + 1, n_genes).tolist())
    return np.array(pop, dtype=np.int64)


def next_generation(pop: np.ndarray, fit: np.ndarray, cfg: TuneConfig, rng: np.random.Generator) -> np.ndarray:
    """The document's breeding: the elite kept, children of every elite pair, random newcomers."""
    order = np.argsort(-fit, kind="stable")
    elite, efit = pop[order[: cfg.elite]], fit[order[: cfg.elite]].astype(np.float64)
    n_genes = pop.shape[1]
    hi = max(cfg.gene_high, int(pop.max()))
    out = [g for g in elite]
    pairs = [(a, b) for a in range(cfg.elite) for b in range(a + 1, cfg.elite)]
    n_children = cfg.population - cfg.elite - cfg.newcomers
    for k in range(n_children):
        a, b = pairs[k % len(pairs)]
        fa, fb = max(efit[a], 1.0), max(efit[b], 1.0)  # the fitter parent weighs slightly more
        child = (fa * elite[a] + fb * elite[b]) / (fa + fb) + rng.uniform(-cfg.jitter, cfg.jitter, n_genes)
        child = np.clip(np.rint(child), cfg.gene_low, hi).astype(np.int64)
        major = rng.random(n_genes) < cfg.p_major
        child[major] = rng.integers(cfg.gene_low, cfg.gene_high + 1, int(major.sum()))
        out.append(child)
    for _ in range(cfg.newcomers):
        out.append(rng.integers(cfg.gene_low, cfg.gene_high + 1, n_genes))
    return np.array(out, dtype=np.int64)


def evaluate(genomes: np.ndarray, games: list[tuple[Problem, int]], backend: Backend, *, beam: int = 1,
             keep: int = 4, fitness: str = "move", coding: str = "absolute", centre: int = 5,
             search_beam: int | None = None, scales: dict | None = None) -> np.ndarray:
    """Total score of each genome over the training games: per problem, every genome × seed in one batch.

    ``fitness="move"``: the planned move score; ``"exact"``: the exact scorer's total (move + power) of the
    solutions the deployed player emits (plans spelled with the 18 phrases,
    :func:`~puzzlebatch.runners.hextris.player.spell`; ``search_beam``: the searching weaver's states per row,
    None the player's default, 0 the greedy weavings alone).  ``coding`` and ``centre``: how genes read as
    weights (:func:`genes_to_weights`).  ``scales``: problem id -> factor applied to that problem's total before
    the sum (rounded), so that a large board does not outweigh the others (:meth:`Tuner.normalised`)."""
    fit = np.zeros(len(genomes), dtype=np.int64)
    by_problem: dict[int, tuple[Problem, list[int]]] = {}
    for p, s in games:
        by_problem.setdefault(p.id, (p, []))[1].append(s)
    for p, seeds in by_problem.values():
        rows = np.repeat(genes_to_weights(genomes, coding, centre), len(seeds), axis=0)
        plans = BeamPlayer(p, backend, rows, beam, keep).plan([s for _ in genomes for s in seeds])
        if fitness == "exact":
            from puzzlebatch.puzzles.hextris.model import load_phrases
            from puzzlebatch.runners.hextris.player import SEARCH_BEAM, spell

            phrases = load_phrases()
            width = SEARCH_BEAM if search_beam is None else search_beam
            vals = []
            for g in range(len(genomes)):  # spelled per genome: the games of a seed differ between genomes
                solved = spell(plans[g * len(seeds):(g + 1) * len(seeds)], backend, phrases, search_beam=width)
                vals.append([sum(x.total for x in solved if x.entry["seed"] == sd) for sd in seeds])
            scores = np.array(vals, dtype=np.int64)
        else:
            scores = np.array([pl.move_score for pl in plans], dtype=np.int64).reshape(len(genomes), len(seeds))
        total = scores.sum(axis=1)
        fit += total if scales is None else np.rint(total * float(scales[p.id])).astype(np.int64)
    return fit


@dataclass
class Tuner:
    """A tuning run: the population, the fitness cache (genome -> fitness) and the history per generation."""

    games: list[tuple[Problem, int]]
    backend: Backend
    cfg: TuneConfig = field(default_factory=TuneConfig)
    seed: int = 0
    beam: int = 1
    keep: int = 4
    fitness: str = "move"
    search_beam: int | None = None  # the exact fitness's searching weaver (evaluate())
    normalise: bool = False  # each problem's total relative to the default weights' (NORMAL = as good)
    scales: dict | None = None  # problem id -> NORMAL / the default weights' total there (normalise)
    cache: dict = field(default_factory=dict)
    history: list = field(default_factory=list)  # per generation: (best fitness, mean fitness, best genome)
    pop: np.ndarray | None = None
    generation: int = 0
    evaluator: object = None  # evaluate()'s stand-in, e.g. hextris_dist.pool_evaluator (None: this process)

    def __post_init__(self) -> None:
        self.cfg.check()
        self.rng = np.random.default_rng(self.seed)

    def step(self, on_new=None) -> dict:
        """Play one generation (new genomes only), record it, breed the next population."""
        if self.pop is None:
            self.pop = first_generation(self.cfg, self.rng)
        t0 = work_clock()
        if self.normalise and self.scales is None:
            self.scales = self.normalised()
        keys = [tuple(int(v) for v in g) for g in self.pop]
        new = [k for k in dict.fromkeys(keys) if k not in self.cache]
        if new:
            fit = (self.evaluator or evaluate)(np.array(new), self.games, self.backend, **self.eval_kwargs())
            for k, f in zip(new, fit):
                self.cache[k] = int(f)
            if on_new is not None:
                on_new(self.generation, new, fit)
        fit = np.array([self.cache[k] for k in keys], dtype=np.int64)
        best = int(np.argmax(fit))
        rec = {"generation": self.generation, "best": int(fit[best]), "mean": float(fit.mean()),
               "genome": list(keys[best]), "evaluated": len(new), "seconds": work_clock() - t0}
        self.history.append(rec)
        self.pop = next_generation(self.pop, fit, self.cfg, self.rng)
        self.generation += 1
        return rec

    def normalised(self) -> dict:
        """The factor of each training problem that makes the default weights' total there :data:`NORMAL`: the
        fitness is then the sum over problems of each total relative to the default's (a 50×50 board's hundred
        thousand points no longer outweigh a 10×10 board's ten thousand)."""
        hand = hand_genes(self.cfg.coding, self.cfg.gene_low, self.cfg.gene_high)[None, :]
        kwargs = dict(self.eval_kwargs(), scales=None)
        out = {}
        for pid in dict.fromkeys(p.id for p, _ in self.games):
            games = [(p, s) for p, s in self.games if p.id == pid]
            total = int((self.evaluator or evaluate)(hand, games, self.backend, **kwargs)[0])
            out[pid] = NORMAL / max(total, 1)
        return out

    def eval_kwargs(self) -> dict:
        """:func:`evaluate`'s keyword arguments for this run (also those of the held-out games)."""
        return {"beam": self.beam, "keep": self.keep, "fitness": self.fitness, "coding": self.cfg.coding,
                "centre": self.cfg.centre, "search_beam": self.search_beam, "scales": self.scales}

    def weights(self, genes) -> np.ndarray:
        """The player's weights of a genome of this run."""
        return genes_to_weights(genes, self.cfg.coding, self.cfg.centre)

    def best(self) -> tuple[list[int], int]:
        k = max(self.cache, key=self.cache.get)
        return list(k), self.cache[k]

    # checkpoint ----------------------------------------------------------------------------------------------------
    def checkpoint(self) -> tuple[dict, dict]:
        arrays = {"population": self.pop}
        meta = {"generation": self.generation, "history": [dict(h) for h in self.history],
                "scales": None if self.scales is None else [[int(k), v] for k, v in self.scales.items()],
                "cache": [[list(k), v] for k, v in self.cache.items()],
                "rng": self.rng.bit_generator.state}
        return arrays, meta

    def restore(self, arrays: dict, meta: dict) -> None:
        pop = np.asarray(arrays["population"], dtype=np.int64)
        if pop.ndim != 2 or pop.shape[1] != len(FEATURE_NAMES):
            raise PuzzleInputError(f"checkpoint: its genomes have {pop.shape[-1]} genes, this version's evaluation "
                                   f"has {len(FEATURE_NAMES)} features ({', '.join(FEATURE_NAMES)}): start a "
                                   "new run (another --checkpoint file)")
        self.pop = pop
        self.generation = int(meta["generation"])
        self.history = list(meta["history"])
        if meta.get("scales") is not None:
            self.scales = {int(k): float(v) for k, v in meta["scales"]}
        self.cache = {tuple(k): int(v) for k, v in meta["cache"]}
        self.rng.bit_generator.state = meta["rng"]
