"""The rows of ``--all`` are stored in one order whatever the split: two runs of a count cut into launches
differently (settings forced apart, not timing), stopped and resumed, or run on a Dask cluster, store the same
rows in the same order (lexicographic, the finished run's ``row_order`` attribute says so)."""

import numpy as np
import pytest

import puzzlebatch as pb
from puzzlebatch.results.store import ResultsStore
from puzzlebatch.runners.engine.search import SearchSettings

# Eight items per launch, a budget of 4,000 nodes: many launches and splits (the planner cannot go above these);
# the same frontier size (symmetric items are merged up to it, so it decides which rows stand for which images).
TINY = SearchSettings(budget=4000, batch_size=8, frontier_target=4, first_batch_size=8)
WIDE = SearchSettings(budget=1 << 16, batch_size=1 << 16, frontier_target=4, first_batch_size=64)
CHAIN = "FJJFJJJJJJJFJFFJFJJJJJJJJJJJJFJJJJJF"  # in a 3x3x4 box


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    from puzzlebatch.results import journal

    monkeypatch.setattr(journal, "SYNC", False)  # a commit per launch: the kill-safe order, no wait for the disk


def stored(path, run_id):
    with ResultsStore(path, "r") as st:
        run = st.run(run_id)
        return run.items(), run.attrs


def is_lexicographic(columns: dict) -> bool:
    keys = [c for arr in columns.values() for c in arr.reshape(len(arr), -1).T]
    return bool(np.all(np.lexsort(keys[::-1]) == np.arange(len(keys[0]))))


def found_order_differs(rows_a, rows_b) -> bool:
    return any(not np.array_equal(rows_a[k], rows_b[k]) for k in rows_a)


def test_snake_all_rows_same_order_whatever_the_split(tmp_path, monkeypatch):
    orders = []
    from puzzlebatch.results import run as run_module

    real_sort = run_module.Run._sort_rows

    def spy(self):  # the rows as found, just before they are sorted
        orders.append(self.items())
        real_sort(self)

    monkeypatch.setattr(run_module.Run, "_sort_rows", spy)
    runs = []
    for name, settings in (("tiny", TINY), ("wide", WIDE)):
        r = pb.snake.count(CHAIN, "3x3x4", backend="cpu", all=True, out=tmp_path / f"{name}.h5",
                           settings=settings)
        assert r.complete
        runs.append((r, *stored(tmp_path / f"{name}.h5", r.run_id)))
    (ra, a, attrs_a), (rb, b, attrs_b) = runs
    assert ra.embeddings == rb.embeddings and int(a["weight"].sum()) == ra.embeddings
    assert attrs_a["row_order"] == attrs_b["row_order"] == "sorted"
    assert len(a["cells"]) > 1 and is_lexicographic(a)
    for k in a:
        assert np.array_equal(a[k], b[k])
    # the splits really differed: the rows were found in two orders, the same rows
    assert len(orders) == 2 and found_order_differs(*orders)
    assert sorted(map(tuple, orders[0]["cells"])) == sorted(map(tuple, orders[1]["cells"]))


def test_snake_all_resumed_equals_uninterrupted(tmp_path):
    whole = pb.snake.count(CHAIN, "3x3x4", backend="cpu", all=True, out=tmp_path / "whole.h5", settings=TINY)
    part = tmp_path / "part.h5"
    first = pb.snake.count(CHAIN, "3x3x4", backend="cpu", all=True, out=part, settings=TINY, max_batches=3)
    assert not first.complete
    rows, attrs = stored(part, first.run_id)
    assert attrs["status"] == "interrupted" and "row_order" not in attrs  # unfinished: the order found
    rest = pb.snake.count(CHAIN, "3x3x4", backend="cpu", all=True, out=part, settings=WIDE, resume=True)
    assert rest.complete and rest.run_id == first.run_id and rest.embeddings == whole.embeddings
    a, _ = stored(tmp_path / "whole.h5", whole.run_id)
    b, attrs = stored(part, rest.run_id)
    assert attrs["row_order"] == "sorted"
    for k in a:
        assert np.array_equal(a[k], b[k])


def test_polyomino_all_rows_same_order_whatever_the_split(tmp_path):
    docs = []
    for name, settings in (("tiny", TINY), ("wide", WIDE)):
        r = pb.polyomino.count("4x4", "dominoes", unlimited=True, all=True, backend="cpu",
                               out=tmp_path / f"{name}.h5", settings=settings)
        docs.append((r, *stored(tmp_path / f"{name}.h5", r.run_id)))
    (ra, a, attrs_a), (rb, b, _) = docs
    assert ra.solutions == rb.solutions == 36 == len(a["solution"])  # the 36 domino tilings of a 4x4 square
    assert attrs_a["row_order"] == "sorted" and is_lexicographic(a)
    assert np.array_equal(a["solution"], b["solution"])
    assert len({tuple(r) for r in a["solution"]}) == 36


def test_sort_keeps_every_row_and_marks_unsortable_runs(tmp_path, monkeypatch):
    """The sort is a permutation of the committed rows; rows over the memory limit keep their order, said once."""
    from puzzlebatch import limits

    path = tmp_path / "r.h5"
    rng = np.random.default_rng(5)
    cells = rng.integers(0, 9, (50, 4)).astype(np.int16)
    weight = rng.integers(1, 4, 50).astype(np.int64)
    with ResultsStore(path, "a") as st:
        run = st.create_run("snake", "count", backend="cpu", device="cpu", seed=None, params={})
        run.append_items(cells=cells[:20], weight=weight[:20])
        run.append_items(cells=cells[20:], weight=weight[20:])
        run.finish("done", sort_rows=True)
        rows = run.items()
    assert is_lexicographic(rows)
    assert sorted(zip(map(tuple, cells), weight)) == list(zip(map(tuple, rows["cells"]), rows["weight"]))
    with ResultsStore(tmp_path / "big.h5", "a") as st:
        run = st.create_run("snake", "count", backend="cpu", device="cpu", seed=None, params={})
        run.append_items(cells=cells, weight=weight)
        monkeypatch.setenv(limits.MEMORY.env, "1000")  # 50 rows of 16 bytes, three times over: too many
        run.finish("done", sort_rows=True)
        assert run.attrs["row_order"] == "found" and np.array_equal(run.items()["cells"], cells)


@pytest.mark.slow
def test_snake_all_on_a_cluster_stores_the_single_process_rows(tmp_path, cluster):
    one = pb.snake.count(CHAIN, "3x3x4", backend="cpu", all=True, out=tmp_path / "one.h5", settings=TINY)
    two = pb.snake.count(CHAIN, "3x3x4", backend="cpu", all=True, out=tmp_path / "two.h5", settings=TINY,
                         scheduler=cluster)
    a, _ = stored(tmp_path / "one.h5", one.run_id)
    b, attrs = stored(tmp_path / "two.h5", two.run_id)
    assert attrs["row_order"] == "sorted"
    for k in a:
        assert np.array_equal(a[k], b[k])
