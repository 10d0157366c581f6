"""Random numbers for batch kernels: one xorshift64 state per item in a uint64 array (numba subset).

The same stream is drawn on the CPU and on CUDA, so a generation is bit-identical on both backends.  Each function
takes ``rng``, a one-element uint64 view (the item's own state), and advances it.  Host code seeds the states
with :func:`seed_states`, which is not a rule.
"""

import math

import numpy as np

SHIFT_A = np.uint64(13)
SHIFT_B = np.uint64(7)
SHIFT_C = np.uint64(17)
SHIFT_OUT = np.uint64(11)
TWO_POW_53 = 9007199254740992.0


def rng_next(rng):
    """Advance the state (Marsaglia's xorshift64, shifts 13/7/17) and return it."""
    x = rng[0]
    x ^= x << SHIFT_A
    x ^= x >> SHIFT_B
    x ^= x << SHIFT_C
    rng[0] = x
    return x


def rand_below(rng, n):
    """A uniform integer in ``0..n-1`` (``n >= 1``; the modulo bias is below 2**-40 for n < 2**13)."""
    return np.int64((rng_next(rng) >> SHIFT_OUT) % np.uint64(n))


def rand_unit(rng):
    """A uniform float in [0, 1)."""
    return np.float64(rng_next(rng) >> SHIFT_OUT) / TWO_POW_53


def rand_normal(rng):
    """A standard normal draw (Box-Muller, one of the pair)."""
    u = 1.0 - rand_unit(rng)
    v = rand_unit(rng)
    return math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * v)
