"""A toy family with real-valued genomes (like player weights): maximise -sum((g - 0.5)^2)."""

from puzzlebatch.ga.rng import rand_below, rand_normal, rand_unit  # compiled alongside by compile_ga_rules


def fitness(genome, tables):
    s = 0.0
    for k in range(genome.shape[0]):
        s -= (genome[k] - 0.5) ** 2
    return s


def crossover(child, donor, rng, params, tables):
    a = rand_unit(rng)
    for k in range(child.shape[0]):
        child[k] = a * child[k] + (1.0 - a) * donor[k]


def mutate(genome, rng, params, tables):
    k = rand_below(rng, genome.shape[0])
    genome[k] += params[0] * rand_normal(rng)
