"""CUDA kernels of the generic GA: one thread per child, slot or island (grid-stride), the same per-item code as
the CPU; and the atomic steps those rules call on this target (``cas``, ``read_bid``, ``publish``, ``count_one``).

Same driver names and signatures as :mod:`puzzlebatch.cpu_fallback.ga`, on host numpy arrays or device arrays.
The kernels are templates compiled together with a family's operators (:func:`puzzlebatch.ga.compile.ga_unit`).
"""
# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import math
import sys
from functools import lru_cache
from types import ModuleType

import numpy as np
from numba import cuda  # a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch import jit
from puzzlebatch.gpu_kernels.device import DeviceSession
from puzzlebatch.transfers import Transfers


def cas(claims, c, old, new):
    return cuda.atomic.cas(claims, c, old, new)


def read_bid(child_fit, k):
    # Through L2, not this SM's L1: a line cached before child ``k`` was scored would be stale.  max(x, -inf) is x
    # (a plain add of 0.0 would turn -0.0 into 0.0).
    return cuda.atomic.max(child_fit, k, -math.inf)


def publish():
    cuda.threadfence()


def count_one(counter):
    cuda.atomic.add(counter, 0, 1)


@jit.kernel
def breed_kernel(pop, fit, cum, children, child_fit, carriers, claims, rngs, n_parents, p_mutation, tournament,
                 islands, params, tables):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, children.shape[0], stride):
        breed_item(i, pop, fit, cum, children, child_fit, carriers, claims, rngs, n_parents, p_mutation,
                   tournament, islands, params, tables)


@jit.kernel
def bid_kernel(child_fit, carriers, claims):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, child_fit.shape[0], stride):
        claim_child(i, carriers[i], child_fit, claims)


@jit.kernel
def replace_kernel(pop, fit, children, child_fit, claims, counter):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for j in range(start, pop.shape[0], stride):
        replace_item(j, pop, fit, children, child_fit, claims, counter)


@jit.kernel
def migrate_pick_kernel(pop, fit, islands, moving, moving_fit):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for k in range(start, islands, stride):
        migrate_pick_item(k, pop, fit, islands, moving, moving_fit)


@jit.kernel
def migrate_put_kernel(pop, fit, islands, moving, moving_fit):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for k in range(start, islands, stride):
        migrate_put_item(k, pop, fit, islands, moving, moving_fit)


@jit.kernel
def fitness_kernel(pop, out, tables):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, pop.shape[0], stride):
        out[i] = fitness(pop[i], tables)


class GAKernels:
    """A family's compiled GA kernels and their host launchers, with the device memory of one GA run (one
    launcher per run: :func:`launcher`).

    The tables and operator parameters go to the device once.  Arrays that live on the device (the population,
    fitness and random states of a run on a GPU with CuPy) are used where they are, and nothing comes back; numpy
    arrays are copied in, and the outputs copied back.
    """

    def __init__(self, unit: jit.Unit) -> None:
        self.unit = unit
        self.breed_kernel, self.fitness_kernel = unit.breed_kernel, unit.fitness_kernel
        self.replace_kernel, self.bid_kernel = unit.replace_kernel, unit.bid_kernel
        self.migrate_pick_kernel, self.migrate_put_kernel = unit.migrate_pick_kernel, unit.migrate_put_kernel
        self._session: DeviceSession | None = None

    @property
    def session(self) -> DeviceSession:
        if self._session is None:  # made on first use: compiling to PTX needs no device
            self._session = DeviceSession()
        return self._session

    @property
    def transfers(self) -> Transfers:
        return self.session.transfers

    def breed_batch(self, pop, fit, cum, children, child_fit, carriers, claims, rngs, n_parents, p_mutation,
                    tournament, islands, params, tables):
        s = self.session
        n = children.shape[0]
        outs = [(children, s.output("children", children)), (child_fit, s.output("child_fit", child_fit)),
                (carriers, s.output("carriers", carriers)), (claims, s.put("claims", claims)),
                (rngs, s.put("rngs", rngs))]
        s.launch("breed_kernel", self.breed_kernel, n, s.put("pop", pop), s.put("fit", fit), s.put("cum", cum),
                 *(d for _, d in outs), np.int64(n_parents), np.float64(p_mutation), np.int64(tournament),
                 np.int64(islands), s.resident("params", params), s.resident("tables", tables))
        s.get_back(outs)

    def bid_batch(self, child_fit, carriers, claims):
        s = self.session
        d_claims = s.put("claims", claims)
        s.launch("bid_kernel", self.bid_kernel, child_fit.shape[0], s.put("child_fit", child_fit),
                 s.put("carriers", carriers), d_claims)
        s.get_back([(claims, d_claims)])

    def replace_batch(self, pop, fit, children, child_fit, claims, counter):
        s = self.session
        outs = [(pop, s.put("pop", pop)), (fit, s.put("fit", fit)), (claims, s.put("claims", claims)),
                (counter, s.put("counter", counter))]
        s.launch("replace_kernel", self.replace_kernel, pop.shape[0], outs[0][1], outs[1][1],
                 s.put("children", children), s.put("child_fit", child_fit), outs[2][1], outs[3][1])
        s.get_back(outs)

    def _migrate(self, name, kernel, pop, fit, islands, moving, moving_fit):
        s = self.session
        outs = [(pop, s.put("pop", pop)), (fit, s.put("fit", fit)), (moving, s.put("moving", moving)),
                (moving_fit, s.put("moving_fit", moving_fit))]
        s.launch(name, kernel, islands, outs[0][1], outs[1][1], np.int64(islands), outs[2][1], outs[3][1])
        s.get_back(outs)

    def migrate_pick_batch(self, pop, fit, islands, moving, moving_fit):
        self._migrate("migrate_pick_kernel", self.migrate_pick_kernel, pop, fit, islands, moving, moving_fit)

    def migrate_put_batch(self, pop, fit, islands, moving, moving_fit):
        self._migrate("migrate_put_kernel", self.migrate_put_kernel, pop, fit, islands, moving, moving_fit)

    def fitness_batch(self, pop, out, tables):
        s = self.session
        d_out = s.output("fitness", out)
        s.launch("fitness_kernel", self.fitness_kernel, pop.shape[0], s.put("genomes", pop), d_out,
                 s.resident("tables", tables))
        s.get_back([(out, d_out)])


@lru_cache(maxsize=None)
def drivers(rules: ModuleType) -> GAKernels:
    from puzzlebatch.ga.compile import ga_unit

    return GAKernels(ga_unit(rules, "cuda", sys.modules[__name__]))


def launcher(rules: ModuleType) -> GAKernels:
    """A launcher of its own (its own device memory, stream and transfer counts) for one GA run."""
    return GAKernels(drivers(rules).unit)
