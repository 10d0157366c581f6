"""The generic GA engine: random streams, determinism, resume, replacement, a toy family, cubes operators."""

import numpy as np
import pytest

from puzzlebatch.ga import rng as rng_rules
from puzzlebatch.ga.compile import compile_ga_rules
from puzzlebatch.runners.engine.ga import GAConfig, GAProblem, GAState, GeneticAlgorithm, seed_states
from puzzlebatch.puzzles.cubes import model
from puzzlebatch.runners.cubes import ga as cubes_ga
from tests.ga_toy import onemax_rules
from tests.reference import cubes_oracle

MASK = (1 << 64) - 1


def xorshift_reference(x, n):
    """Marsaglia's xorshift64 (13, 7, 17) on Python ints."""
    out = []
    for _ in range(n):
        x ^= (x << 13) & MASK
        x ^= x >> 7
        x ^= (x << 17) & MASK
        out.append(x)
    return out


def test_rng_stream_plain_and_compiled_equal_the_reference():
    from numba import njit

    seed = int(seed_states(5, 1)[0])
    ref = xorshift_reference(seed, 50)
    state = np.array([seed], np.uint64)
    assert [int(rng_rules.rng_next(state)) for _ in range(50)] == ref
    rng_next = compile_ga_rules(onemax_rules, "cpu").rng_next

    @njit
    def draw(state, n, out):
        for i in range(n):
            out[i] = rng_next(state)

    state = np.array([seed], np.uint64)
    out = np.zeros(50, np.uint64)
    draw(state, 50, out)
    assert [int(v) for v in out] == ref
    state = np.array([seed], np.uint64)
    assert rng_rules.rand_below(state, 7) == (ref[0] >> 11) % 7
    assert 0.0 <= rng_rules.rand_unit(state) < 1.0


def onemax_problem(n_genes=24):
    def init(rng, n):
        return np.zeros((n, n_genes), np.int64)

    return GAProblem(rules=onemax_rules, tables=np.zeros(1, np.int64), params=np.array([0.5]), init=init,
                     target=float(n_genes), name="onemax")


@pytest.mark.parametrize("replacement", ["carrier", "plus"])
def test_toy_family_converges_and_runs_are_deterministic(replacement, cpu):
    config = GAConfig(population=32, generations=400, p_mutation=1.0, replacement=replacement)
    a, _ = GeneticAlgorithm(onemax_problem(), cpu, config, seed=7).run()
    b, _ = GeneticAlgorithm(onemax_problem(), cpu, config, seed=7).run()
    assert a.success and a.best_fitness == 24
    assert a.generation == b.generation and a.history == [
        {k: v for k, v in r.items()} for r in b.history]
    # elitism: the best never gets worse
    best = [r["best"] for r in a.history]
    assert all(x <= y for x, y in zip(best, best[1:]))


def test_resume_from_a_checkpoint_equals_the_uninterrupted_run(cpu):
    figure, cubes = model.box(3, 3, 2), model.load_cubes()
    config = GAConfig(population=40, generations=12)
    problem = cubes_ga.ga_problem(figure, cubes, cubes_ga.Operators(p_block=0.3, p_ruin=0.2))
    full, state_full = GeneticAlgorithm(problem, cpu, config, seed=3).run()
    ga = GeneticAlgorithm(problem, cpu, GAConfig(population=40, generations=5), seed=3)
    _, half = ga.run()
    saved = GAState.from_checkpoint(half.arrays(), half.meta())  # what the store keeps
    rest, state_rest = GeneticAlgorithm(problem, cpu, config, seed=3).run(saved)
    assert np.array_equal(state_full.population, state_rest.population)
    assert np.array_equal(state_full.fitness, state_rest.fitness)
    assert np.array_equal(state_full.rngs, state_rest.rngs)


def valid_partial(figure, cubes, genome):
    """Independent check with the oracle's rotations: no cube twice, every contact sums to 0."""
    rots = {tuple(map(tuple, m.tolist())): i for i, m in enumerate(model.ROTATIONS)}
    by_index = {i: m for m, i in rots.items()}
    oracle_cubes = cubes_oracle.parse(cubes.to_text())
    placed = {}
    for cell, p in zip(figure.cells.tolist(), genome.tolist()):
        if p >= 0:
            number = cubes.numbers[p // 24]
            placed[tuple(cell)] = (number, cubes_oracle.turned(oracle_cubes[number], by_index[p % 24]))
    numbers = [n for n, _ in placed.values()]
    if len(numbers) != len(set(numbers)):
        return False
    for (x, y, z), (_, faces) in placed.items():
        for d in cubes_oracle.DIRS:
            other = placed.get((x + d[0], y + d[1], z + d[2]))
            if other is not None and faces[d] + other[1][(-d[0], -d[1], -d[2])] != 0:
                return False
    return True


@pytest.mark.parametrize("ops", [cubes_ga.Operators(p_block=0.5, p_plane=0.5, p_ruin=0.3, grow=True),
                                 cubes_ga.Operators(p_block=0.5, grow=True, repair=60, radius=7),
                                 cubes_ga.Operators(p_block=0.5, grow=True, repair=60, radius=7, mrv=True)],
                         ids=["plain", "memetic-repair", "memetic-repair-mrv"])
def test_cube_operators_keep_every_genome_valid(ops, cpu):
    figure, cubes = model.box(3, 2, 2), model.load_cubes()
    ga = GeneticAlgorithm(cubes_ga.ga_problem(figure, cubes, ops), cpu,
                          GAConfig(population=48, generations=15, p_mutation=0.5, n_parents=3), seed=11)
    state = ga.start()
    for _ in range(15):
        children, child_fit, _ = ga.breed(state)
        for g, f in zip(children, child_fit):
            assert valid_partial(figure, cubes, g)
            assert f == (g >= 0).sum()
        ga.replace(state, children, child_fit, _)
        state.generation += 1
    assert state.fitness.max() >= 6


@pytest.mark.parametrize("dims", [(2, 2, 2), (3, 3, 1)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ga_builds_the_figures_the_document_could_not(dims, seed, cpu):
    figure = model.box(*dims)
    r, _ = cubes_ga.run_ga(figure, model.load_cubes(), cpu, GAConfig(population=64, generations=300),
                           cubes_ga.Operators(), seed)
    assert r.success and r.assembly is not None
    placements = {tuple(a["cell"]): (a["cube"], a["rotation"]) for a in r.assembly}
    assert model.check_assembly(figure, model.load_cubes(),
                                [placements[tuple(c)] for c in figure.cells.tolist()]) is None


def test_ruin_and_recreate_reaches_3x3x2(cpu):
    # The document's operators stall on 3x3x2 for some seeds; ruin-and-recreate mutations build it at once.
    r, _ = cubes_ga.run_ga(model.box(3, 3, 2), model.load_cubes(), cpu,
                           GAConfig(population=64, generations=200, p_mutation=0.5),
                           cubes_ga.Operators(p_ruin=1.0, grow=True), 1)
    assert r.success and r.best_cubes == 18


def test_memetic_repair_most_constrained_first_builds_3x3x3(cpu):
    # The document's operators and the scan-order repair stall at 26 of 27 cubes on most seeds; the repair that
    # branches on the most constrained cell builds the whole figure.  The assembly is checked by the oracle's
    # own rotations and contact rule (valid_partial) and by the exact search's validator.
    figure, cubes = model.box(3, 3, 3), model.load_cubes()
    ops = cubes_ga.Operators(grow=True, p_ruin=1.0, repair=300, radius=7, mrv=True)
    r, state = cubes_ga.run_ga(figure, cubes, cpu, GAConfig(population=64, generations=60, p_mutation=0.5), ops, 2)
    assert r.success and r.best_cubes == 27
    best = state.population[int(np.argmax(state.fitness))]
    assert (best >= 0).all() and valid_partial(figure, cubes, best)
    placements = {tuple(a["cell"]): (a["cube"], a["rotation"]) for a in r.assembly}
    assert model.check_assembly(figure, cubes, [placements[tuple(c)] for c in figure.cells.tolist()]) is None


def test_layer_seeding_lays_complete_layers(cpu):
    figure, cubes = model.box(2, 2, 2), model.load_cubes()
    seeds, info = cubes_ga.layer_seeds(figure, cubes, cpu, GAConfig(population=32, generations=100),
                                       cubes_ga.Operators(), 0, wanted=4)
    assert info["layer_solutions"] >= 4 and len(seeds) == 2 * info["layer_solutions"]
    for g in seeds:
        assert (g >= 0).sum() == 4 and valid_partial(figure, cubes, g)
        z = figure.cells[g >= 0][:, 2]
        assert len(set(z.tolist())) == 1


def test_bad_config_is_an_input_error():
    from puzzlebatch.errors import PuzzleInputError

    with pytest.raises(PuzzleInputError, match="--population 1"):
        GAConfig(population=1).check()
    with pytest.raises(PuzzleInputError, match="--mutation 1.5"):
        GAConfig(p_mutation=1.5).check()


def test_real_valued_genomes_with_tournament_selection(cpu):
    # Issue 8's weight tuning has float genomes and negative fitness: the engine must take both.
    from tests.ga_toy import sphere_rules

    def init(rng, n):
        return rng.uniform(-3.0, 3.0, size=(n, 4))

    problem = GAProblem(rules=sphere_rules, tables=np.zeros(1, np.int64), params=np.array([0.1]), init=init,
                        target=-1e-3, name="sphere")
    ga = GeneticAlgorithm(problem, cpu, GAConfig(population=40, generations=300, p_mutation=0.5,
                                                 selection="tournament", tournament_size=3), seed=2)
    start = ga.start()
    result, state = ga.run(GAState(0, start.population.copy(), start.fitness.copy(), start.rngs.copy()))
    assert state.population.dtype == np.float64
    assert result.best_fitness > start.fitness.max()
    assert result.success and np.allclose(result.best, 0.5, atol=0.05)


def bid_and_replace(backend, pop, fit, children, child_fit, carriers) -> int:
    """The compiled carrier replacement of ``backend`` (bids, then a launch over the slots), in place."""
    from puzzlebatch.runners.engine.twins import twin

    d = twin(backend, "ga", cubes_ga.ga_rules)
    claims, counter = np.full(len(pop), -1, np.int64), np.zeros(1, np.int64)
    d.bid_batch(child_fit, carriers, claims)
    d.replace_batch(pop, fit, children, child_fit, claims, counter)
    assert (claims == -1).all()  # every bid cleared for the next generation
    return int(counter[0])


def random_generation(seed: int, p: int = 300, g: int = 5):
    # Many ties (fitness 0..3) and carriers chosen by several children, some by none.
    rng = np.random.default_rng(seed)
    return (rng.integers(-1, 50, (p, g)).astype(np.int64), rng.integers(0, 4, p).astype(np.float64),
            rng.integers(-1, 50, (p, g)).astype(np.int64), rng.integers(0, 4, p).astype(np.float64),
            rng.integers(0, p // 3, p).astype(np.int64))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_carrier_replacement_equals_the_array_version(seed, cpu):
    from puzzlebatch.xp import replace_by_carrier

    pop, fit, children, child_fit, carriers = random_generation(seed)
    a_pop, a_fit = pop.copy(), fit.copy()
    changed_a = replace_by_carrier(np, a_pop, a_fit, children, child_fit, carriers)
    b_pop, b_fit = pop.copy(), fit.copy()
    changed_b = bid_and_replace(cpu, b_pop, b_fit, children, child_fit, carriers)
    assert changed_a == changed_b > 0
    assert np.array_equal(a_pop, b_pop) and np.array_equal(a_fit, b_fit)


def test_a_second_breed_without_replacing_drops_the_old_bids(cpu):
    # The bids of the first breed must not leak into the second generation's replacement.
    figure, cubes = model.box(2, 2, 1), model.load_cubes().subset(range(1, 13))
    problem = cubes_ga.ga_problem(figure, cubes, cubes_ga.Operators(p_ruin=0.5, grow=True))
    ga = GeneticAlgorithm(problem, cpu, GAConfig(population=40, p_mutation=0.5), seed=3)
    state = ga.start()
    ga.breed(state)
    children, child_fit, carriers = ga.breed(state)
    expect_pop, expect_fit = state.population.copy(), state.fitness.copy()
    from puzzlebatch.xp import replace_by_carrier

    changed = replace_by_carrier(np, expect_pop, expect_fit, children, child_fit, carriers)
    assert ga.replace(state, children, child_fit, carriers) == changed
    assert np.array_equal(state.population, expect_pop) and np.array_equal(state.fitness, expect_fit)
    with pytest.raises(RuntimeError, match="breed"):
        ga.replace(state, children, child_fit, carriers)


def test_islands_keep_carriers_and_donors_at_home_and_migrate_in_a_ring(cpu):
    figure, cubes = model.box(3, 2, 2), model.load_cubes()
    ops = cubes_ga.Operators(p_block=0.5, grow=True)
    config = GAConfig(population=40, generations=10, p_mutation=0.5, islands=4, migrate_every=3)
    ga = GeneticAlgorithm(cubes_ga.ga_problem(figure, cubes, ops), cpu, config, seed=5)
    state = ga.start()
    for _ in range(4):
        children, child_fit, carriers = ga.breed(state)
        assert np.array_equal(carriers // 10, np.arange(40) // 10)  # every carrier from the child's island
        for g in children:
            assert valid_partial(figure, cubes, g)
        ga.replace(state, children, child_fit, carriers)
    before_pop, before_fit = state.population.copy(), state.fitness.copy()
    ga.migrate(state)
    fit = before_fit.reshape(4, 10)
    for j in range(4):
        src = 10 * j + int(np.argmax(fit[j]))
        dst = 10 * ((j + 1) % 4) + int(np.argmin(fit[(j + 1) % 4]))
        assert np.array_equal(state.population[dst], before_pop[src]) and state.fitness[dst] == before_fit[src]
    changed = (state.population != before_pop).any(axis=1) | (state.fitness != before_fit)
    assert changed.sum() <= 4


def test_migration_settings_do_nothing_with_one_island(cpu):
    figure, cubes = model.box(3, 2, 2), model.load_cubes()
    problem = cubes_ga.ga_problem(figure, cubes, cubes_ga.Operators(p_ruin=0.5, grow=True))
    a = GeneticAlgorithm(problem, cpu, GAConfig(population=30, generations=5), seed=2).run()[1]
    b = GeneticAlgorithm(problem, cpu, GAConfig(population=30, generations=5, islands=1, migrate_every=1),
                         seed=2).run()[1]
    assert np.array_equal(a.population, b.population) and np.array_equal(a.rngs, b.rngs)


def test_bad_islands_are_input_errors():
    from puzzlebatch.errors import PuzzleInputError

    for kw in ({"population": 30, "islands": 4}, {"population": 30, "islands": 30},
               {"population": 30, "islands": 3, "replacement": "plus"}):
        with pytest.raises(PuzzleInputError, match="--islands"):
            GAConfig(**kw).check()
