"""Random-cut puzzles solved back region by region: the deal of the pieces, tilings checked by the independent
oracle (tests/reference/cut_oracle.py), the repair where regions meet, time limits on a fake clock, resume after
Ctrl-C through the Session, a Dask local:2 cluster, the CUDA simulator against the CPU, the command line."""

import numpy as np
import pytest

from puzzlebatch.puzzles.polyomino import cut as K
from puzzlebatch.runners.polyomino import bigcut as BC
from puzzlebatch.runners.polyomino import cutsolve as CS
from puzzlebatch.runners.polyomino import regions as RG
from tests.reference.cut_oracle import check_solution
from tests.backends import GPU


def _puzzle(w, h, seed, mask=None):
    mask = np.ones((h, w), bool) if mask is None else mask
    cut = BC.cut_mask(mask, 4, 6, seed)
    cells = [cut.piece_cells(p) for p in range(cut.n_pieces)]
    return mask, K.Cut((w, h), cells).piece_objects(), cells


def _check(mask, cells, labels):
    check_solution(mask.tolist(), cells, labels.tolist())


def test_allocation_closes_every_part_exactly():
    rng = np.random.default_rng(0)
    sizes = rng.integers(4, 7, 600)
    total = int(sizes.sum())
    areas = [400, 401, 399, 407]
    areas.append(total - sum(areas))
    parts = RG.allocate(areas, sizes, 3)
    assert parts is not None
    assert [int(sizes[p].sum()) for p in parts] == areas
    assert sorted(np.concatenate(parts).tolist()) == list(range(len(sizes)))  # each piece dealt once
    assert RG.allocate([7, total - 7], np.full(600, 4), 0) is None  # 7 is no sum of 4s


@pytest.mark.parametrize("w, h, region, seed", [(60, 48, 20, 1), (50, 37, 16, 2)])
def test_regions_tile_and_pass_the_oracle(cpu, w, h, region, seed):
    mask, pieces, cells = _puzzle(w, h, seed)
    seen = []
    res = RG.solve_regions(mask, pieces, cpu, seed=seed, region=region, on_progress=lambda k, n: seen.append(k))
    boxes = (len(RG.split_axis(w, region)) - 1) * (len(RG.split_axis(h, region)) - 1)
    assert res.solved and res.boxes == boxes == -(-w // region) * -(-h // region)
    assert seen[-1] == res.boxes and seen == sorted(seen)
    _check(mask, cells, res.labels)


def test_board_with_holes(cpu):
    mask = np.ones((40, 44), bool)
    mask[10:14, 5:30] = False
    mask[25:38, 30:33] = False
    mask, pieces, cells = _puzzle(44, 40, 5, mask)
    res = RG.solve_regions(mask, pieces, cpu, seed=5, region=15)
    assert res.solved
    _check(mask, cells, res.labels)


def test_regions_out_of_allowance_are_repaired_with_a_neighbour(cpu):
    mask, pieces, cells = _puzzle(48, 40, 4)
    # one node per region before it is handed to the repair: every region is tiled again with a neighbour
    res = RG.solve_regions(mask, pieces, cpu, seed=4, region=16, allowance=0, min_nodes=1)
    assert res.solved and res.repairs >= res.boxes // 2
    assert len(set(res.comp.tolist())) < res.boxes  # regions tiled together
    _check(mask, cells, res.labels)


class FakeClock:
    def __init__(self, step):
        self.t, self.step = 0.0, step

    def __call__(self):
        self.t += self.step
        return self.t


def test_time_limit_on_a_fake_clock_then_resume(cpu):
    mask, pieces, cells = _puzzle(60, 40, 6)
    res = RG.solve_regions(mask, pieces, cpu, seed=6, region=20, time_limit=5.0, clock=FakeClock(1.0))
    assert not res.solved and res.done.sum() < res.boxes
    assert all((res.labels[y0:y1, x0:x1] >= 0).all() for (x0, y0, x1, y1), d in
               zip(RG.make_plan(mask, pieces, 20, 6).boxes, res.done) if d)
    again = RG.solve_regions(mask, pieces, cpu, seed=6, region=20, labels=res.labels, done=res.done, comp=res.comp)
    assert again.solved
    kept = np.repeat(np.repeat(res.done.reshape(2, 3), 20, 0), 20, 1)
    assert np.array_equal(again.labels[kept], res.labels[kept])  # the regions tiled before are kept
    _check(mask, cells, again.labels)


def test_cut_search_honours_its_time_limit_on_a_fake_clock(cpu):
    from puzzlebatch.runners.polyomino import large as L

    mask, pieces, _ = _puzzle(40, 40, 7)
    classes, _ = CS.shape_classes(pieces)
    # the limit is over before the first round could start: no round runs
    res = CS.solve(mask, classes, cpu, time_limit=5.0, clock=FakeClock(10.0))
    assert not res.solved and not res.proved_none and res.rounds == 0
    # a round's budget is cut to what the measured rate fits in the time left
    assert CS.round_budget(10**9, 1000, 1.0, 2.0, 2) == 1000  # 500 nodes/s an item, 2 s left
    assert CS.round_budget(300, 1000, 1.0, 100.0, 1) == 300
    assert CS.round_budget(10**9, 0, 0.0, 100.0, 1) == 2_000  # no rate yet: a short first round
    # an item whose round was cut goes on from where it stopped: the search still finds the tiling
    mask, pieces, _ = _puzzle(110, 110, 7)  # over 2,000 pieces: more than one round of 2,000 nodes
    classes, _ = CS.shape_classes(pieces)
    budgets = []
    res = CS.solve(mask, classes, cpu, time_limit=1e6, clock=FakeClock(1e-3),
                   on_round=lambda r, b, n: budgets.append(b))
    assert res.solved and budgets[0] == 2_000 and len(budgets) >= 2
    L.validate_tiling(classes, 110, 110, res.placements)


def test_ctrl_c_keeps_the_regions_tiled_and_resume_finishes(cpu, tmp_path, monkeypatch):
    from puzzlebatch.api import polyomino as api
    from puzzlebatch.errors import Interrupted
    from puzzlebatch.runners.engine.session import RunOptions

    mask, pieces, cells = _puzzle(60, 40, 8)
    out = tmp_path / "r.h5"
    calls = []
    real = RG.place

    def interrupt_third(*a, **k):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(RG, "place", interrupt_third)
    opts = RunOptions(out=out, progress=False, checkpoint_every=1e9)
    with pytest.raises(Interrupted):
        api.solve("60x40", pieces, method="cut", region=20, seed=8, backend="cpu", options=opts)
    monkeypatch.setattr(RG, "place", real)
    r = api.solve("60x40", pieces, method="cut", region=20, seed=8, backend="cpu",
                  options=RunOptions(out=out, resume=True, progress=False))
    assert r.solved and r.validated and r.regions == 6 and r.out == str(out)
    labels = np.full((40, 60), -1)
    index = {p.name: i for i, p in enumerate(pieces)}
    for row in r.placements:
        for x, y in row["cells"]:
            labels[y, x] = index[row["piece"]]
    _check(mask, cells, labels)
    # the results browser shows the stored tiling as one picture, and `show` describes it
    from puzzlebatch.web.results import solution

    doc = solution(tmp_path, "r.h5", r.run_id, 0)
    assert doc["kind"] == "polyomino" and doc["image"].startswith("data:image/png;base64,")
    assert doc["n_pieces"] == len(pieces) and doc["size"] == [60, 40]


def test_dask_local_2_workers(cpu, cluster):
    from puzzlebatch.runners.engine.distributed import open_pool

    mask, pieces, cells = _puzzle(60, 40, 9)
    pool = open_pool(cluster, "cpu")
    try:
        res = RG.solve_regions(mask, pieces, cpu, seed=9, region=20, pool=pool)
        work = pool.work.to_json()
    finally:
        pool.close()
    assert res.solved and res.workers == 2
    assert sum(v["items"] for v in work["workers"].values()) == res.boxes
    _check(mask, cells, res.labels)


@pytest.mark.gpu
def test_regions_on_the_simulator_match_the_cpu(cpu, gpu):
    from puzzlebatch.puzzles.polyomino import cutsearch_rules as R
    from puzzlebatch.runners.engine.twins import twin

    mask, pieces, cells = _puzzle(16, 6, 3)  # two regions (the simulator runs a region's search in Python)
    plan = RG.make_plan(mask, pieces, 8, 3)
    assert len(plan.boxes) == 2
    items = RG.build_items(plan, mask, range(len(plan.boxes)), 3, window=16)
    got = []
    for be in (cpu, gpu):
        res = RG.search_items(items.pb.tables, items.roots, items.bases, items.goal, twin(be, "search", R,
                                                                                           inline=False))
        got.append(res)
    assert np.array_equal(got[0].status, got[1].status) and np.array_equal(got[0].states, got[1].states)
    assert (got[0].status == 1).all()
    res = RG.solve_regions(mask, pieces, gpu, seed=3, region=6)
    assert res.solved and res.backend == GPU
    _check(mask, cells, res.labels)


def test_cli_regions_picture_memory_and_bad_region(tmp_path, capsys, monkeypatch):
    # in process (puzzlebatch.cli.main): the compiled search is shared with the tests above
    from puzzlebatch.cli import main

    pieces = tmp_path / "p.txt"
    assert main(["polyomino", "generate", "--random-cut", "50x40", "--seed", "2", "--text", str(pieces)]) == 0
    png = tmp_path / "s.png"
    capsys.readouterr()
    assert main(["polyomino", "solve", "--board", "50x40", "--pieces", str(pieces), "--method", "cut", "--region",
                 "20", "--png", str(png), "--backend", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "placed in 6 regions" in out and "validated" in out and png.stat().st_size > 10_000

    def one_line_error(*args):
        try:
            code = main(["polyomino", "solve", "--board", "50x40", "--pieces", str(pieces), "--method", "cut", *args])
        except SystemExit as exc:  # argparse
            code = exc.code
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        return err

    assert "--region" in one_line_error("--region", "-3")
    assert "--out" in one_line_error("--out", str(tmp_path / "x.h5"))  # one search: nothing to checkpoint
    monkeypatch.setenv("PUZZLEBATCH_MAX_MEMORY", "100000")
    assert "--method cut" in one_line_error("--region", "20")
