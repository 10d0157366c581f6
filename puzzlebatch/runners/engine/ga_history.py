"""Recording a GA run in the HDF5 store: per-generation history rows, checkpoints, resume.

History rows are buffered and committed together with each checkpoint, so after a crash the committed history
ends exactly at the checkpoint's generation and a resumed run neither loses nor repeats a generation.
Columns: ``generation``, ``best``, ``mean``, ``replaced``, ``evaluations``, ``seconds``, ``best_genome`` (G,),
``fitness`` (P,) — the whole population's fitness, as float32.
"""

from __future__ import annotations

import time

import numpy as np

from puzzlebatch.runners.engine.ga import GAState
from puzzlebatch.xp import to_host


class GARecorder:
    """``on_generation`` callback for :meth:`GeneticAlgorithm.run` that writes to a store ``Run``."""

    def __init__(self, run, checkpoint_every: float = 30.0, progress=None):
        self.run = run
        self.checkpoint_every = checkpoint_every
        self.progress = progress
        self.rows: list[dict] = []
        self.last = time.perf_counter()

    def __call__(self, state: GAState, rec: dict) -> None:
        fitness = to_host(state.fitness)  # a GPU run keeps its population on the device
        b = int(np.argmax(fitness))
        self.rows.append(rec | {"seconds": state.seconds, "best_genome": to_host(state.population[b]).copy(),
                                "fitness": fitness.astype(np.float32)})
        if self.progress is not None:
            self.progress.update(1)
            self.progress.set_postfix(best=rec["best"], mean=round(rec["mean"], 2))
        now = time.perf_counter()
        if now - self.last >= self.checkpoint_every:
            self.commit(state)
            self.last = now

    def commit(self, state: GAState) -> None:
        """Write the buffered rows, then the checkpoint of ``state``."""
        if self.rows:
            cols = {k: np.array([r[k] for r in self.rows]) for k in ("generation", "best", "mean", "replaced",
                                                                        "evaluations", "seconds")}
            cols["best_genome"] = np.stack([r["best_genome"] for r in self.rows])
            cols["fitness"] = np.stack([r["fitness"] for r in self.rows])
            self.run.append_items(**cols)
            self.run.append_series("best", cols["generation"], cols["best"])
            self.rows = []
        self.run.save_checkpoint(state.arrays(), state.meta())


def load_state(run) -> GAState | None:
    ck = run.load_checkpoint()
    if ck is None:
        return None
    return GAState.from_checkpoint(*ck)
