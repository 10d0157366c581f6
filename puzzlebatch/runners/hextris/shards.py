"""The games of a contest run split over several processes (``play_icfp2015 -c CORES``).

The compiled kernels run every game of a batch on all the cores numba is given, but the rest of the player (the
beam's bookkeeping in NumPy, the phrase weavers in Python) runs in one thread.  With ``-c N`` the games are split
into ``N`` shards of about equal work (:func:`split`: the distinct seeds of every problem, heaviest problems first,
each seed to the lightest shard; a seed's work is its problem's units × width), each shard written as official
problem files holding only its seeds and played by its own ``play_icfp2015 -c 1`` process with the same time limit;
:func:`merge` puts the answers back in problem and seed order.  A shard whose process fails or answers nothing is
played by the plain-Python player in the time left (:mod:`puzzlebatch.runners.hextris.coldstart`), so no game is
ever left without an answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Shard:
    """The seeds of each problem one process plays (problem id -> seeds, in the problems' order)."""

    seeds: dict[int, list[int]] = field(default_factory=dict)
    work: float = 0.0

    @property
    def games(self) -> int:
        return sum(len(s) for s in self.seeds.values())


def shard_seconds(end: float, seconds: float, now: float) -> float:
    """The ``-t`` of a shard process started at ``now`` (``time.perf_counter()``) when the parent, whose own limit
    is ``seconds``, waits for it until ``end``: the shard answers at 90 % of its limit less 0.7 s, counted from its
    start (:func:`puzzlebatch.runners.hextris.greedy.answer_time`), which then falls 2 % of ``seconds`` (at least
    1.5 s) before ``end``: the margin for the shard's start, exit and output.  Before, shards got 0.88 of the time
    left (here: before ``end``, less 1 s; kept where it is later, on short limits) and answered at about 79 % of
    ``seconds``, 9 % before ``end``."""
    margin = max(1.5, 0.02 * seconds)
    return max(0.5, 0.88 * (end - now) - 1.0, (end - now - margin + 0.7) / 0.9)


def split(docs: list[dict], shards: int) -> list[Shard]:
    """``docs`` (official problem documents) split into at most ``shards`` non-empty shards of about equal work."""
    out = [Shard() for _ in range(max(1, shards))]
    order = sorted(range(len(docs)), key=lambda i: -docs[i]["sourceLength"] * docs[i]["width"])
    for i in order:
        d = docs[i]
        for seed in dict.fromkeys(d["sourceSeeds"]):
            s = min(out, key=lambda sh: sh.work)
            s.seeds.setdefault(i, []).append(seed)
            s.work += d["sourceLength"] * d["width"]
    for s in out:  # the problems in the order given
        s.seeds = {i: s.seeds[i] for i in sorted(s.seeds)}
    return [s for s in out if s.seeds]


def write_shard(docs: list[dict], shard: Shard, folder: Path) -> list[Path]:
    """The shard's problem files (official format, only its seeds) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, seeds in shard.seeds.items():
        path = folder / f"problem_{i}.json"
        path.write_text(json.dumps(dict(docs[i], sourceSeeds=seeds)), encoding="utf-8")
        paths.append(path)
    return paths


def merge(docs: list[dict], answers: list[list[dict]]) -> list[dict]:
    """The shards' answers as one official document, in problem and seed order (one entry per distinct seed)."""
    got = {}
    for answer in answers:
        for e in answer:
            got.setdefault((e["problemId"], e["seed"]), e)
    out = []
    seen = set()
    for d in docs:
        for seed in dict.fromkeys(d["sourceSeeds"]):
            key = (d["id"], seed)
            if key in got and key not in seen:
                out.append(got[key])
                seen.add(key)
    return out


@dataclass
class Worker:
    """One shard's process and its output files."""

    shard: Shard
    proc: subprocess.Popen
    stdout: Path
    stderr: Path

    def answer(self) -> list[dict] | None:
        """The shard's official solutions, or None if the process printed no whole JSON list (it failed before
        answering; one stopped after printing its answer, while exiting, still answered)."""
        try:
            doc = json.loads(self.stdout.read_text(encoding="utf-8") or "null")
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, list) else None

    def stderr_lines(self) -> list[str]:
        try:
            return self.stderr.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:  # pragma: no cover - the file is ours
            return []


def launch(command: list[str], docs: list[dict], shards: list[Shard], folder: Path, env: dict | None = None) \
        -> list[Worker]:
    """Start one process per shard: ``command`` followed by ``-f FILE`` for each of its problem files."""
    workers = []
    for k, shard in enumerate(shards):
        files = write_shard(docs, shard, folder / f"shard-{k}")
        out, err = folder / f"shard-{k}.out", folder / f"shard-{k}.err"
        with open(out, "wb") as o, open(err, "wb") as e:
            argv = list(command) + [a for f in files for a in ("-f", str(f))]
            workers.append(Worker(shard, subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=o, stderr=e,
                                                          env=dict(os.environ) if env is None else env),
                                  out, err))
    return workers


def wait_all(workers: list[Worker], deadline: float) -> None:
    """Wait until every worker has exited or ``time.perf_counter()`` passes ``deadline``; then stop the others
    (their shards count as failed)."""
    while any(w.proc.poll() is None for w in workers) and time.perf_counter() < deadline:
        time.sleep(0.02)
    for w in workers:
        if w.proc.poll() is None:
            w.proc.kill()
            w.proc.wait()
