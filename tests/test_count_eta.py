"""The time a count has left: the share of the tree searched (``SearchTotals.done``) only grows, is 1 exactly when
the work is done, carries over a checkpoint, and gives the progress bar's ETA (a fake clock here, never a timer)."""

import numpy as np
import pytest

from puzzlebatch.api.snake import problem_of
from puzzlebatch.runners.engine import session as session_module
from puzzlebatch.runners.engine.progress import eta_seconds, eta_text
from puzzlebatch.runners.engine.search import Frontier, SearchSettings, SearchTotals, spread
from puzzlebatch.runners.snake import solver

CHAIN = "FJJFJJJJJJJFJFFJFJJJJJJJJJJJJFJJJJJF"  # in a 3x3x4 box
SMALL = SearchSettings(budget=2000, batch_size=8, frontier_target=4, first_batch_size=8)


def test_spread_shares_out_the_total_halving_per_level():
    shares = spread(0.5, np.array([3, 4, 3, 6], np.int32))
    assert shares.sum() == pytest.approx(0.5)
    assert shares[0] == shares[2] == pytest.approx(2 * shares[1]) == pytest.approx(8 * shares[3])
    assert spread(1.0, np.zeros(0, np.int32)).shape == (0,)


def test_done_grows_to_one_and_carries_over_a_stop(cpu):
    chain, box = problem_of(CHAIN, "3x3x4")
    seen = []

    def on_batch(front, tot):
        seen.append((tot.done, len(front)))

    whole, rest, totals = solver.count(chain, box, cpu, SMALL, on_batch=on_batch)
    assert whole.complete and not len(rest) and totals.done == 1.0
    done = [d for d, _ in seen]
    assert len(done) > 10 and all(0.0 <= d <= 1.0 for d in done)
    assert all(b >= a for a, b in zip(done, done[1:]))  # never goes back
    assert done[len(done) // 2] > 0.0  # progress is seen before the end
    assert [d for d, n in seen if n == 0] == [1.0]
    # stopped early, then resumed from the returned work and totals: the share done goes on from where it was
    part, left, t1 = solver.count(chain, box, cpu, SMALL, max_batches=len(seen) // 2)
    assert not part.complete and 0.0 < t1.done < 1.0
    stopped_at = t1.done
    later = []
    res, _, t2 = solver.count(chain, box, cpu, SMALL, frontier=left, totals=t1,
                              on_batch=lambda f, t: later.append(t.done))
    assert res.embeddings == whole.embeddings and t2.done == 1.0 and min(later) >= stopped_at


def test_eta_at_the_pace_so_far():
    assert eta_seconds(0.25, 0.0, 10.0) == pytest.approx(30.0)
    assert eta_seconds(0.5, 0.25, 10.0) == pytest.approx(20.0)  # a resumed run: this process's pace only
    assert eta_seconds(0.25, 0.25, 10.0) is None and eta_seconds(0.0, 0.0, 0.0) is None
    assert eta_seconds(1.0, 0.0, 5.0) == 0.0
    assert [eta_text(x) for x in (None, 4.4, 65, 3 * 3600 + 7 * 60, 50 * 3600, 1e9)] == \
        ["?", "4s", "1m05s", "3h07m", "2d02h", ">99d"]


def test_session_progress_shows_the_eta(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(session_module, "work_clock", lambda: clock[0])
    shown = []

    class Bar:
        def update(self, n):
            pass

        def set_postfix(self, **kw):
            shown.append(kw)

        def close(self):
            pass

    monkeypatch.setattr(session_module.Session, "progress", lambda self, *a, **k: Bar())
    front = Frontier(np.zeros((3, 2), np.int64), np.zeros(3, np.int32), np.zeros(3, np.int32), np.ones(3, np.int64))
    with session_module.Session(session_module.RunOptions(progress=False, keep=False), "test", "count", {}, None,
                                pool=False) as s:
        for t, done in ((110.0, 0.0), (120.0, 0.2), (140.0, 0.6)):
            clock[0] = t
            s.on_batch(front, SearchTotals(count=1, nodes=10, batches=1, done=done))
        assert s.eta == pytest.approx(40.0 * 0.4 / 0.6)
    assert [k["eta"] for k in shown] == ["?", "1m20s", "27s"]
    assert [k["done"] for k in shown] == ["0.0%", "20.0%", "60.0%"]
