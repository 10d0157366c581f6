"""Long differential fuzz run: random instances of every family, each checked against its independent oracle and
across every way the package computes it (tests/differential/).

Each family module in ``tests/differential/`` gives ``draw(rng)`` (a random small instance) and ``check(inst)``
(the list of disagreements: empty when the oracle and every way agree).  This script draws instances round-robin
over the families, from one seed, until the count or the time is reached, and writes a JSON summary (instances and
disagreements per family, each disagreement with its instance) for bench/RESULTS.md::

    python bench/fuzz.py --instances 10000 --seed 1 --out fuzz.json       # hours on 2 cores
    python bench/fuzz.py --seconds 600 --families polyomino snake        # a shorter run

The CUDA simulator is left out (``check(inst)`` runs the CPU ways only): it is too slow for thousands of instances;
the CI suite checks it on its own subset.  Exit status 1 when any disagreement was found.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def families() -> list[str]:
    """The family modules of tests/differential/ (those with ``draw`` and ``check``)."""
    names = []
    for path in sorted((ROOT / "tests" / "differential").glob("*.py")):
        if path.name.startswith(("_", "test_")):
            continue
        mod = importlib.import_module(f"tests.differential.{path.stem}")
        if hasattr(mod, "draw") and hasattr(mod, "check"):
            names.append(path.stem)
    return names


def run(names: list[str], instances: int, seconds: float, seed: int, say=print) -> dict:
    mods = {n: importlib.import_module(f"tests.differential.{n}") for n in names}
    rng = random.Random(seed)
    per = {n: {"instances": 0, "disagreements": 0, "errors": 0, "seconds": 0.0, "examples": []} for n in names}
    t_end = time.monotonic() + seconds
    done = 0
    last_say = time.monotonic()
    while done < instances and time.monotonic() < t_end:
        name = names[done % len(names)]
        inst_seed = rng.randrange(1 << 62)
        t0 = time.perf_counter()
        row = per[name]
        try:
            inst = mods[name].draw(random.Random(inst_seed))
            bad = mods[name].check(inst)
        except Exception as exc:  # a crash is a disagreement too: keep the seed to replay it
            inst, bad = {"seed": inst_seed}, [f"{type(exc).__name__}: {exc}"]
            row["errors"] += 1
            traceback.print_exc(file=sys.stderr)
        row["seconds"] += time.perf_counter() - t0
        row["instances"] += 1
        if bad:
            row["disagreements"] += 1
            if len(row["examples"]) < 20:
                row["examples"].append({"seed": inst_seed, "instance": inst, "messages": bad[:5]})
            say(f"{name} seed {inst_seed}: {bad[0]}")
        done += 1
        if time.monotonic() - last_say > 60:
            last_say = time.monotonic()
            say(f"{done} instances, " + ", ".join(f"{n} {r['instances']} ({r['disagreements']} disagreeing)"
                                                 for n, r in per.items()))
    return {"seed": seed, "instances": done, "disagreements": sum(r["disagreements"] for r in per.values()),
            "families": per}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", type=int, default=10_000, help="stop after this many instances (all families)")
    ap.add_argument("--seconds", type=float, default=float("inf"), help="or after this long")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--families", nargs="*", help="default: every module of tests/differential/")
    ap.add_argument("--out", help="write the JSON summary here too")
    a = ap.parse_args(argv)
    names = a.families or families()
    t0 = time.perf_counter()
    doc = run(names, a.instances, a.seconds, a.seed, say=lambda m: print(m, file=sys.stderr, flush=True))
    doc["wall_seconds"] = time.perf_counter() - t0
    text = json.dumps(doc, indent=2, default=str)
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n", encoding="utf-8")
    return 1 if doc["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
