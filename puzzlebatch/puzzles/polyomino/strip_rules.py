"""Transfer-matrix rules for strip counts, one plain function per item, compiled for the CPU and for CUDA.

An *item* is one (modulus lane, target profile) pair of one cell step: the new residue of a profile is the sum
of the residues of its source profiles in the previous step, modulo the lane's prime.  Residues stay below
``2**62``, so the sum of two never overflows a signed 64-bit word, and no multiplication is needed (every edge of
the cell-step graph has multiplicity one; repeated sources are listed twice).  The float variant gives the size of
the count (for choosing how many primes) and the weights for sampling a random tiling of a band.
"""


def gather_item(old, new, lane, t, ptr_all, src_all, po, so, p):
    """``new[lane, t] = sum(old[lane, s] for the sources s of target t) mod p`` (one cell step, one item)."""
    acc = 0
    for k in range(ptr_all[po + t], ptr_all[po + t + 1]):
        acc += old[lane, src_all[so + k]]
        if acc >= p:
            acc -= p
    new[lane, t] = acc


def gather_float(old, new, t, ptr_all, src_all, po, so):
    """The same step in floating point (one lane, no modulus): ``new[t] = sum(old[s])``."""
    acc = 0.0
    for k in range(ptr_all[po + t], ptr_all[po + t + 1]):
        acc += old[src_all[so + k]]
    new[t] = acc
