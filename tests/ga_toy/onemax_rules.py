"""A toy family for the generic GA engine: OneMax (maximise the number of 1 genes), numba-subset operators."""

from puzzlebatch.ga.rng import rand_below, rand_unit  # compiled alongside by compile_ga_rules


def fitness(genome, tables):
    s = 0
    for k in range(genome.shape[0]):
        s += genome[k]
    return float(s)


def crossover(child, donor, rng, params, tables):
    # Uniform crossover: each gene from the donor with probability params[0].
    for k in range(child.shape[0]):
        if rand_unit(rng) < params[0]:
            child[k] = donor[k]


def mutate(genome, rng, params, tables):
    k = rand_below(rng, genome.shape[0])
    genome[k] = 1 - genome[k]
