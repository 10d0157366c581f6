"""Sliding-puzzle work on a Dask cluster: the tasks of ``sliding solve --file --scheduler`` (a chunk of boards per
task) and ``sliding pdb build --scheduler`` (one pattern per task).  Each is a picklable callable that rebuilds what
it needs on the worker."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.transfers import transfers_of

_WORKER_PDBS: dict = {}


@dataclass(frozen=True)
class SolveTask:
    """One task of ``solve --file``: optimal solutions of a chunk of boards, on whatever worker runs it (the
    pattern databases are read from ``cache_dir`` once per worker process)."""

    goal: str
    heuristic: str
    backend: str
    partition: str | None
    cache_dir: str | None
    max_len: int
    rows: int
    cols: int
    max_nodes: int | None = None

    def __call__(self, tiles: list) -> dict:
        from puzzlebatch.puzzles.sliding.model import Board
        from puzzlebatch.runners.sliding import solver as sliding
        from puzzlebatch.runners.sliding import pdb as sliding_pdb
        from puzzlebatch.runners.engine.backend import select_backend
        from puzzlebatch.runners.engine.distributed import worker_name

        t0 = work_clock()
        backend = select_backend(self.backend)
        # One launcher per worker process and problem: the pattern database goes to the device once.
        key = (self.rows, self.cols, self.partition, self.cache_dir, backend.name)
        if key not in _WORKER_PDBS:
            _WORKER_PDBS.clear()
            pdbs = None
            if self.cache_dir is not None:
                pdbs = sliding_pdb.ensure(self.rows, self.cols, self.partition, backend, Path(self.cache_dir),
                                          say=lambda m: None)
            _WORKER_PDBS[key] = (pdbs, sliding.drivers(backend))
        pdbs, kernels = _WORKER_PDBS[key]
        before = transfers_of(kernels)
        boards = [Board(self.rows, self.cols, tuple(int(x) for x in t)) for t in tiles]
        rs = sliding.solve_batch(boards, self.goal, self.heuristic, backend, pdbs=pdbs, max_len=self.max_len,
                                 kernels=kernels, max_nodes=self.max_nodes)
        delta = {k: v - before[k] for k, v in transfers_of(kernels).items()}
        return {"results": rs, "worker": worker_name(), "backend": backend.name,
                "seconds": work_clock() - t0, "transfers": delta}


@dataclass(frozen=True)
class PdbTask:
    """Build one pattern database on a worker (resuming its partial file if one is there)."""

    rows: int
    cols: int
    partition: str
    folder: str
    backend: str
    checkpoint_every: float
    max_layers: int | None

    def __call__(self, pattern: tuple) -> dict:
        from puzzlebatch.runners.sliding import pdb as sliding_pdb
        from puzzlebatch.runners.engine.backend import select_backend
        from puzzlebatch.runners.engine.distributed import worker_name

        t0 = work_clock()
        backend = select_backend(self.backend)
        res = sliding_pdb.build_pattern(self.rows, self.cols, pattern, backend, Path(self.folder),
                                        partition_name=self.partition, checkpoint_every=self.checkpoint_every,
                                        max_layers=self.max_layers)
        return {"file": str(res), "worker": worker_name(), "backend": backend.name,
                "seconds": work_clock() - t0}


@dataclass(frozen=True)
class SplitTask:
    """One task of batch IDA* on a cluster: a bounded iteration of a slice of the work items
    (:func:`puzzlebatch.runners.sliding.split.solve_split`), the pattern databases read from ``cache_dir`` once
    per worker process (in the format the client used: ``packed``)."""

    rows: int
    cols: int
    heuristic: str
    backend: str
    partition: str | None
    cache_dir: str | None
    packed: bool
    max_len: int
    bound: int

    def __call__(self, job: tuple) -> dict:
        import numpy as np

        from puzzlebatch.runners.sliding import solver as sliding
        from puzzlebatch.runners.sliding import pdb as sliding_pdb
        from puzzlebatch.runners.engine.backend import select_backend
        from puzzlebatch.runners.engine.distributed import worker_name

        boards, g0, prev = job
        backend = select_backend(self.backend)
        key = ("split", self.rows, self.cols, self.partition, self.cache_dir, self.packed, backend.name)
        if key not in _WORKER_PDBS:
            _WORKER_PDBS.clear()
            pdbs = None
            if self.heuristic == "pdb":
                pdbs = sliding_pdb.load(self.rows, self.cols, self.partition, Path(self.cache_dir),
                                        packed=self.packed)
            _WORKER_PDBS[key] = (pdbs, sliding.drivers(backend))
        pdbs, kernels = _WORKER_PDBS[key]
        paths = np.zeros((len(boards), self.max_len), np.int64)
        stats = np.zeros((len(boards), 4), np.int64)
        kernels.dfs_batch(boards, self.rows, self.cols, sliding.HEURISTICS[self.heuristic], self.max_len,
                          *sliding.tables_for(self.heuristic, self.rows, self.cols, pdbs), g0, prev, self.bound,
                          paths, stats)
        return {"paths": paths, "stats": stats, "worker": worker_name(), "backend": backend.name}
