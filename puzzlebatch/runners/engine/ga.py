"""A generic genetic algorithm whose generations run as batch kernels (CPU numba or CUDA).

The family gives a :class:`GAProblem`: a rules module of three operators (see :mod:`puzzlebatch.ga.item`), its
tables and operator parameters, a way to draw the first population, and optionally a target fitness.  The engine
keeps the population as one ``(P, G)`` array, draws one child per population slot each generation in one batch
launch (selection, crossover, mutation and scoring inside the kernel), then applies the replacement on the host:

* ``"carrier"`` (default, the seed document's elitism): a child replaces the individual it was built from (its
  carrier) only if it is at least as fit; when several children share a carrier the fittest (then the first)
  competes;
* ``"plus"``: (mu + lambda) — the P fittest of parents and children survive (children first on ties).

Every generation is a pure function of (population, fitness, per-item random states), so a run resumed from a
checkpoint continues exactly as the uninterrupted one would, on either backend.

The population, its fitness and the children's buffers stay where the kernels run between generations (allocated
once a run).  The carrier replacement and the migration are per-item rules too (:mod:`puzzlebatch.ga.item`: each
child bids for its carrier's slot as it is scored, then one launch over the slots applies the winning bids), the same
code on both backends, so a carrier generation is two launches (breed and replace) after the roulette's prefix
sum, and a migration two more; only ``"plus"`` sorts with array operations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable

import numpy as np

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.twins import twin
from puzzlebatch.xp import namespace_for, replace_plus, roulette_cumsum, to_host


@dataclass
class GAProblem:
    """What a family hands to the GA engine."""

    rules: ModuleType
    tables: np.ndarray
    params: np.ndarray
    init: Callable[[np.random.Generator, int], np.ndarray]
    target: float | None = None
    name: str = ""


@dataclass
class GAConfig:
    """How the GA runs.  Defaults are the seed document's scheme: fitness-proportional carrier, uniform donor,
    one donor, mutation with probability 1/10, carrier elitism."""

    population: int = 256
    generations: int = 1000
    p_mutation: float = 0.1
    n_parents: int = 2
    selection: str = "roulette"  # or "tournament"
    tournament_size: int = 2
    replacement: str = "carrier"  # or "plus"
    islands: int = 1  # equal contiguous islands of the population: selection and donors stay inside each one
    migrate_every: int = 10  # generations between migrations (each island's best replaces the next one's worst)

    def check(self) -> None:
        from puzzlebatch.errors import PuzzleInputError

        if self.population < 2:
            raise PuzzleInputError(f"--population {self.population}: needs at least 2 individuals")
        if self.generations < 0:
            raise PuzzleInputError(f"--generations {self.generations}: must be >= 0")
        if not 0.0 <= self.p_mutation <= 1.0:
            raise PuzzleInputError(f"--mutation {self.p_mutation}: a probability in [0, 1]")
        if self.n_parents < 1:
            raise PuzzleInputError(f"--parents {self.n_parents}: at least 1 (the carrier)")
        if self.selection not in ("roulette", "tournament"):
            raise PuzzleInputError(f"--selection {self.selection!r}: roulette or tournament")
        if self.selection == "tournament" and not 1 <= self.tournament_size <= self.population:
            raise PuzzleInputError(f"--tournament {self.tournament_size}: between 1 and the population "
                                   f"({self.population})")
        if self.replacement not in ("carrier", "plus"):
            raise PuzzleInputError(f"--replacement {self.replacement!r}: carrier or plus")
        if self.islands < 1 or self.population % self.islands or self.population // self.islands < 2:
            raise PuzzleInputError(f"--islands {self.islands}: must divide the population ({self.population}) into "
                                   f"islands of at least 2")
        if self.islands > 1 and self.replacement == "plus":
            raise PuzzleInputError("--islands: islands need --replacement carrier")
        if self.migrate_every < 1:
            raise PuzzleInputError(f"--migrate-every {self.migrate_every}: at least 1")


@dataclass
class GAState:
    """Everything needed to continue a run."""

    generation: int
    population: np.ndarray
    fitness: np.ndarray
    rngs: np.ndarray
    evaluations: int = 0
    seconds: float = 0.0

    def arrays(self) -> dict[str, np.ndarray]:
        """The population, fitness and random states on the host (during a GPU run they live on the device)."""
        return {"population": to_host(self.population), "fitness": to_host(self.fitness),
                "rngs": to_host(self.rngs)}

    def meta(self) -> dict:
        return {"generation": self.generation, "evaluations": self.evaluations, "seconds": self.seconds}

    @classmethod
    def from_checkpoint(cls, arrays: dict, meta: dict) -> "GAState":
        return cls(int(meta["generation"]), arrays["population"].copy(), arrays["fitness"].copy(),
                   arrays["rngs"].astype(np.uint64).copy(), int(meta["evaluations"]), float(meta["seconds"]))


@dataclass
class GAResult:
    success: bool
    generation: int
    best_fitness: float
    best: np.ndarray
    evaluations: int
    seconds: float
    evaluations_per_second: float
    history: list[dict] = field(default_factory=list)


def seed_states(seed: int, n: int) -> np.ndarray:
    """``n`` independent non-zero xorshift states from one seed (numpy SeedSequence)."""
    s = np.random.SeedSequence(seed).generate_state(n, dtype=np.uint64)
    s[s == 0] = 1
    return s


class GeneticAlgorithm:
    """Run a :class:`GAProblem` on one backend.

    Parameters
    ----------
    problem, backend, config
        The family's problem, where kernels run, and the GA settings.
    seed
        Seeds the first population and every per-item random stream.
    """

    def __init__(self, problem: GAProblem, backend: Backend, config: GAConfig, seed: int = 0):
        config.check()
        self.problem, self.backend, self.config, self.seed = problem, backend, config, seed
        self._d = twin(backend, "ga", problem.rules)
        self.xp = namespace_for(backend)  # where the population lives between generations
        self._buffers: tuple | None = None  # children, their fitness, carriers and bids, reused every generation
        self._replaced = 0  # the replacement counter's last value (it only counts up)
        self._bids_pending = False  # breed() left bids that replace() has not applied
        self._moving: tuple | None = None  # the migrants of a migration and their fitness

    @property
    def transfers(self) -> dict:
        """Bytes moved to and from the device and launches so far (``h2d_bytes``, ``d2h_bytes``, ``launches``)."""
        return self._d.transfers.to_json()

    def _resident(self, state: GAState) -> GAState:
        """The state's arrays in the run's namespace (moved to the device once, at the start of a run)."""
        if self.xp is not np and isinstance(state.population, np.ndarray):
            for name in ("population", "fitness", "rngs"):
                host = getattr(state, name)
                self._d.transfers.h2d(host.nbytes)
                setattr(state, name, self.xp.asarray(host))
        return state

    # -- population ------------------------------------------------------------------------------------------
    def evaluate(self, genomes: np.ndarray) -> np.ndarray:
        out = np.zeros(len(genomes), np.float64)
        self._d.fitness_batch(np.ascontiguousarray(to_host(genomes)), out, self.problem.tables)
        return out

    def start(self, initial: np.ndarray | None = None) -> GAState:
        """Generation 0: ``initial`` genomes (seeding from sub-solutions), topped up by the family's ``init``."""
        p = self.config.population
        rng = np.random.default_rng(self.seed)
        pop = self.problem.init(rng, p)
        if initial is not None and len(initial):
            k = min(len(initial), p)
            pop[:k] = initial[:k]
        pop = np.ascontiguousarray(pop)
        state = self._resident(GAState(0, pop, self.evaluate(pop), seed_states(self.seed, p), evaluations=p))
        self.warm_up(state)
        return state

    def warm_up(self, state: GAState) -> None:
        """Compile the breeding kernel on a throw-away copy, so that generation timings exclude compilation."""
        k = min(2 * self.config.islands, len(state.population))  # islands of 2
        scratch = GAState(0, state.population[:k].copy(), state.fitness[:k].copy(), state.rngs[:k].copy())
        self.breed(scratch)

    # -- one generation --------------------------------------------------------------------------------------
    def breed(self, state: GAState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One batch launch: a child per slot.  Returns (children, child_fitness, carriers); advances the
        random states in ``state``."""
        c = self.config
        xp = self.xp
        pop, fit = state.population, state.fitness
        cum = roulette_cumsum(xp, fit)
        children, child_fit, carriers, claims, _ = self._children_buffers(pop)
        if c.replacement != "carrier":
            claims = np.empty(0, np.int64)  # no bids (a host array: moved as nothing on a device)
        elif self._bids_pending:  # bred again without replacing: the old bids go
            claims.fill(-1)
        tournament = c.tournament_size if c.selection == "tournament" else 0
        self._d.breed_batch(pop, fit, cum, children, child_fit, carriers, claims, state.rngs, c.n_parents,
                            c.p_mutation, tournament, c.islands, self.problem.params, self.problem.tables)
        self._bids_pending = c.replacement == "carrier"
        return children, child_fit, carriers

    def _children_buffers(self, pop) -> tuple:
        """The children's arrays, the bids for the slots (-1: none) and the replacement counter for a population
        shaped like ``pop``: made once a run, where the population lives, and written over every generation.  The
        children of a generation are valid until the next :meth:`breed`."""
        b = self._buffers
        if b is None or b[0].shape != pop.shape:
            xp = self.xp
            b = self._buffers = (xp.empty_like(pop), xp.zeros(len(pop), np.float64), xp.zeros(len(pop), np.int64),
                                 xp.full(len(pop), -1, np.int64), xp.zeros(1, np.int64))
            self._bids_pending, self._replaced = False, 0
        return b

    def replace(self, state: GAState, children: np.ndarray, child_fit: np.ndarray, carriers: np.ndarray) -> int:
        """Apply the replacement policy in place; returns how many slots changed."""
        if self.config.replacement == "plus":
            state.population, state.fitness, changed = replace_plus(self.xp, state.population, state.fitness,
                                                                    children, child_fit)
            return changed
        claims, counter = self._children_buffers(state.population)[3:]
        if not self._bids_pending:
            raise RuntimeError("replace() needs the bids of the breed() just before it")
        self._d.replace_batch(state.population, state.fitness, children, child_fit, claims, counter)
        self._bids_pending = False
        total = int(counter[0])
        changed, self._replaced = total - self._replaced, total
        return changed

    def migrate(self, state: GAState) -> None:
        """Ring migration, in place: the fittest individual of each island (the first on ties) replaces the least
        fit (the first on ties) of the next island."""
        xp, k = self.xp, self.config.islands
        if self._moving is None or self._moving[0].shape != (k, state.population.shape[1]):
            self._moving = (xp.empty((k, state.population.shape[1]), state.population.dtype),
                            xp.empty(k, state.fitness.dtype))
        self._d.migrate_pick_batch(state.population, state.fitness, k, *self._moving)
        self._d.migrate_put_batch(state.population, state.fitness, k, *self._moving)

    def step(self, state: GAState) -> dict:
        t0 = work_clock()
        children, child_fit, carriers = self.breed(state)
        changed = self.replace(state, children, child_fit, carriers)
        state.generation += 1
        if self.config.islands > 1 and state.generation % self.config.migrate_every == 0:
            self.migrate(state)
        state.evaluations += len(children)
        state.seconds += work_clock() - t0
        return {"generation": state.generation, "best": float(state.fitness.max()),
                "mean": float(state.fitness.mean()), "replaced": changed, "evaluations": state.evaluations}

    def solved(self, state: GAState) -> bool:
        t = self.problem.target
        return t is not None and bool(state.fitness.max() >= t)

    # -- whole runs ------------------------------------------------------------------------------------------
    def run(self, state: GAState | None = None, on_generation: Callable[[GAState, dict], None] | None = None,
            until_solved: int = 1) -> tuple[GAResult, GAState]:
        """Run until ``until_solved`` individuals reach the target (1: the first success) or the generation limit.

        ``state`` resumes an earlier run; ``on_generation(state, record)`` is called after every generation.
        """
        c = self.config
        if state is None:
            state = self.start()
        else:
            state = self._resident(state)
            self.warm_up(state)
        history = []

        def n_solved(s: GAState) -> int:
            t = self.problem.target
            return 0 if t is None else int((s.fitness >= t).sum())

        while state.generation < c.generations and n_solved(state) < until_solved:
            rec = self.step(state)
            history.append(rec)
            if on_generation is not None:
                on_generation(state, rec)
        b = int(self.xp.argmax(state.fitness))
        eps = state.evaluations / state.seconds if state.seconds > 0 else 0.0
        return GAResult(success=n_solved(state) >= until_solved, generation=state.generation,
                        best_fitness=float(state.fitness[b]), best=to_host(state.population[b]).copy(),
                        evaluations=state.evaluations, seconds=state.seconds, evaluations_per_second=eps,
                        history=history), state
