"""``puzzlebatch sliding``: JSON contracts, answers for unsolvable boards, one-line errors, stores, resume."""

import json
import re

import h5py
import pytest

from puzzlebatch.cli import main
from tests.reference import sliding_oracle

DOCUMENT_HARD = "8 6 7 2 5 4 3 0 1"  # one of the two 8-puzzle states at distance 31 (blank last)


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    """Pattern databases in a folder of the test's own (the compiled code stays in the usual cache)."""
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    real = sliding_pdb.cache_dir
    monkeypatch.setattr(sliding_pdb, "cache_dir", lambda override=None: real(override or tmp_path / "cache"))


def test_solve_json_contract_and_picture(tmp_path, capsys):
    png = tmp_path / "path.png"
    code, out, _ = run_cli(capsys, "sliding", "solve", DOCUMENT_HARD, "--json", "--backend", "cpu", "--png", str(png))
    doc = json.loads(out)
    assert code == 0 and doc["solvable"] and doc["length"] == 31 and len(doc["moves"]) == 31
    assert doc["backend"] == "cpu" and doc["nodes"] > 0 and doc["seconds"] >= 0 and png.stat().st_size > 10_000
    code, out, _ = run_cli(capsys, "sliding", "replay", DOCUMENT_HARD, " ".join(map(str, doc["moves"])), "--json")
    replayed = json.loads(out)
    assert replayed["solved"] and replayed["moves"] == doc["moves"] and replayed["length"] == 31
    assert replayed["directions"] == doc["directions"]
    code, out, _ = run_cli(capsys, "sliding", "replay", DOCUMENT_HARD, doc["directions"], "--json")
    assert json.loads(out)["moves"] == doc["moves"]


def test_unsolvable_is_an_answer_with_status_1(capsys):
    code, out, _ = run_cli(capsys, "sliding", "solve", "1 2 3 4 5 6 8 7 0", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["solvable"] is False and "odd permutation" in doc["explanation"]
    assert doc["solved"] is False and (doc["moves"], doc["length"]) == ([], 0)
    code, out, _ = run_cli(capsys, "sliding", "solve", "1 2 3 4 5 6 8 7 0")
    assert code == 1 and "unsolvable" in out


def test_the_tiles_as_separate_words_are_one_board(capsys):
    """``sliding solve 8 6 7 2 5 4 3 0 1`` unquoted, as a new user types it: the same answer as the quoted board."""
    quoted = json.loads(run_cli(capsys, "sliding", "solve", DOCUMENT_HARD, "--json", "--backend", "cpu")[1])
    code, out, _ = run_cli(capsys, "sliding", "solve", *DOCUMENT_HARD.split(), "--json", "--backend", "cpu")
    assert code == 0 and json.loads(out)["moves"] == quoted["moves"] and quoted["length"] == 31
    code, _, err = run_cli(capsys, "sliding", "solve", *"1 2 3 4 5 6 7 7 0".split())
    assert code == 2 and "tile 7 appears twice" in err


@pytest.mark.parametrize("args, message", [
    (["solve", "1 2 3 4 5 6 7 7 0"], "tile 7 appears twice"),
    (["solve", "1 2 3 4 5 6 7 8"], "8 tiles is not a square"),
    (["solve"], "give TILES"),
    (["bfs", "4x4"], "too many for a whole-space search"),
    (["bfs", "3y3"], "not a board size"),
    (["solve", "1 2 3 4 5 6 7 8 0", "--heuristic", "pdb", "--partition", "9-9"], "partition '9-9'"),
    (["replay", "1 2 3 4 5 6 7 0 8", "U D 3"], "move 3"),
    (["replay", "1 2 3 4 5 6 7 0 8", "U X"], "move 2 'X'"),
    (["solve", "1 2 3 4 5 6 7 8 0", "--png", "x.gif"], "unsupported suffix"),
    (["solve", "1 2 3 4 5 6 7 8 0", "--heuristic", "nope"], "invalid choice"),
    (["solve", "--file", "boards.txt", "--png", "x.png"], "--png: draws one board's solution"),  # never ignored
])
def test_bad_input_is_one_line_exit_2(args, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(["sliding", *args])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1


def test_bfs_json_and_store(tmp_path, capsys):
    out_file = tmp_path / "b.h5"
    code, out, _ = run_cli(capsys, "sliding", "bfs", "2x3", "--json", "--backend", "cpu", "--out", str(out_file))
    doc = json.loads(out)
    expected = sliding_oracle.depth_histogram(sliding_oracle.distances(2, 3, "blank-last"))
    assert code == 0 and doc["states"] == 360 and doc["depth_counts"] == expected
    assert doc["max_depth"] == len(expected) - 1 and doc["backend"] == "cpu" and doc["complete"]
    with h5py.File(out_file, "r") as f:
        ds = f["runs"][doc["run_id"]]["tables"]["distances"]
        assert ds.shape == (180,) and ds.attrs["goal"] == "blank-last"


def test_bfs_resume(tmp_path, capsys):
    out_file = tmp_path / "r.h5"
    common = ["sliding", "bfs", "2x4", "--json", "--backend", "cpu", "--out", str(out_file)]
    code, out, _ = run_cli(capsys, *common, "--max-layers", "6")
    assert code == 0 and not json.loads(out)["complete"]
    code, out, _ = run_cli(capsys, *common, "--resume")
    doc = json.loads(out)
    assert doc["complete"] and doc["depth_counts"] == sliding_oracle.depth_histogram(
        sliding_oracle.distances(2, 4, "blank-last"))


def test_solve_file_batch_store_and_resume(tmp_path, capsys):
    dist = sliding_oracle.distances(3, 3, "blank-first")
    picked = [s for s, d in sorted(dist.items()) if d in (12, 20, 25)][:5] + [(1, 0, 2, 3, 4, 5, 6, 8, 7)]
    lines = [" ".join(map(str, s)) + ("" if dist[s] == float("inf") else f" {dist[s]}") for s in picked]
    inst = tmp_path / "inst.txt"
    inst.write_text("# test instances\n" + "\n".join(lines) + "\n")
    out_file = tmp_path / "s.h5"
    common = ["sliding", "solve", "--file", str(inst), "--goal", "blank-first", "--json", "--backend", "cpu",
              "--out", str(out_file), "--batch", "2"]
    code, out, _ = run_cli(capsys, *common)
    summary = json.loads(out)
    docs = summary["results"]
    assert code == 0 and summary["instances"] == len(docs) == 6 and summary["solved_count"] == 5
    assert [d["length"] for d in docs[:5]] == [dist[s] for s in picked[:5]] and docs[5]["solved"] is False
    with h5py.File(out_file, "r") as f:
        run = f["runs"][list(f["runs"])[0]]
        assert run.attrs["n_committed"] == 6 and run.attrs["status"] == "done"
    # A run killed after its first batch: resume solves the rest only, and answers the same.
    with h5py.File(out_file, "a") as f:
        run = f["runs"][list(f["runs"])[0]]
        run.attrs["n_committed"] = 2
        run.attrs["status"] = "interrupted"
    code, out, _ = run_cli(capsys, *common, "--resume")
    again = json.loads(out)["results"]
    assert [d["length"] for d in again] == [d["length"] for d in docs]
    assert [d["moves"] for d in again] == [d["moves"] for d in docs]


def test_pdb_build_and_solve_with_it(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "sliding", "pdb", "build", "4-4", "--size", "3x3", "--backend", "cpu", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["complete"] and len(doc["patterns"]) == 2
    assert all(p["entries"] == 3024 for p in doc["patterns"])
    code, out, err = run_cli(capsys, "sliding", "solve", DOCUMENT_HARD, "--heuristic", "pdb", "--json")
    assert json.loads(out)["length"] == 31 and "building" not in err


def test_solve_builds_missing_databases_after_saying_so(capsys):
    code, out, err = run_cli(capsys, "sliding", "solve", DOCUMENT_HARD, "--heuristic", "pdb", "--partition", "4-4",
                             "--json")
    assert code == 0 and json.loads(out)["length"] == 31 and "building pattern database 3x3" in err


def test_one_board_with_out_is_stored(capsys, tmp_path):
    """``sliding solve BOARD --out F.h5`` stores the solution as a run of one item, as --file stores its rows."""
    from puzzlebatch.puzzles.sliding.model import Board, goal_board, replay
    from puzzlebatch.results.store import ResultsStore

    out = tmp_path / "one.h5"
    code, text, _ = run_cli(capsys, "sliding", "solve", "1 2 3 4 0 5", "--size", "2x3", "--out", str(out), "--json")
    doc = json.loads(text)
    assert code == 0 and doc["solved"] and doc["out"] == str(out)
    with ResultsStore(out, "r") as store:
        run = store.run(doc["run_id"])
        assert (run.attrs["family"], run.attrs["algorithm"], run.attrs["status"]) == ("sliding", "solve", "done")
        rows = run.items()
        assert int(rows["length"][0]) == doc["length"] == len(doc["moves"])
        moves = [int(m) for m in str(rows["moves"][0].decode() if isinstance(rows["moves"][0], bytes)
                                     else rows["moves"][0]).split()]
    assert replay(Board(2, 3, (1, 2, 3, 4, 0, 5)), moves)[-1] == goal_board(2, 3)  # the stored moves solve it


# -- what a new user meets first -----------------------------------------------------------------------------------

def _korf24_first():
    from puzzlebatch.puzzles.sliding.model import read_instances
    from tests.test_sliding_model import DATA

    board, length = read_instances(DATA / "korf24_50.txt")[0]
    return board.text(), length


def test_a_5x5_board_near_the_goal_is_solved_at_once_without_building(tmp_path, capsys):
    board = " ".join(map(str, [*range(1, 22), 0, 22, 23, 24]))  # three moves from the goal (blank last)
    code, out, err = run_cli(capsys, "sliding", "solve", board, "--json", "--backend", "cpu")
    doc = json.loads(out)
    assert code == 0 and doc["length"] == 3 and doc["heuristic"] == "linear-conflict"  # Manhattan says >= 3
    assert not (tmp_path / "cache").exists() and "building" not in err
    code, out, _ = run_cli(capsys, "sliding", "replay", board, " ".join(map(str, doc["moves"])), "--json")
    assert json.loads(out)["solved"]


def test_a_database_build_of_gigabytes_asks_for_build_first(tmp_path, capsys):
    """The 24-puzzle's 6-6-6-6 tables: one line with the estimate and the command, exit 2, nothing built."""
    board, _ = _korf24_first()
    code, out, err = run_cli(capsys, "sliding", "solve", board, "--goal", "blank-first", "--backend", "cpu")
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    for word in ("6-6-6-6", "not built", "GiB of memory", "min to build", "sliding pdb build 6-6-6-6 --size 5x5",
                 "--build"):
        assert word in lines[0]
    assert not any((tmp_path / "cache").glob("*")) if (tmp_path / "cache").exists() else True


def test_build_builds_what_the_estimate_calls_large(tmp_path, capsys, monkeypatch):
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    monkeypatch.setattr(sliding_pdb, "ASK_BUILD_BYTES", 1000)  # the 3x3's 4-4 tables (6,048 bytes) count as large
    argv = ["sliding", "solve", DOCUMENT_HARD, "--heuristic", "pdb", "--partition", "4-4", "--backend", "cpu"]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and "add --build" in err and not (tmp_path / "cache").exists()
    code, out, err = run_cli(capsys, *argv, "--build", "--json")
    assert code == 0 and json.loads(out)["length"] == 31 and "building 2 tables, 6,048 entries" in err


def test_a_search_without_databases_is_bounded(capsys):
    from puzzlebatch.runners.sliding.solver import DEFAULT_LARGE_MAX_NODES, default_max_nodes

    assert default_max_nodes(6, 6, "linear-conflict") == default_max_nodes(5, 5, "manhattan") \
        == DEFAULT_LARGE_MAX_NODES
    assert default_max_nodes(4, 4, "manhattan") is None and default_max_nodes(5, 5, "pdb") is None
    board, _ = _korf24_first()  # 95 moves: far out of reach of 20,000 nodes
    code, out, err = run_cli(capsys, "sliding", "solve", board, "--goal", "blank-first", "--heuristic",
                             "linear-conflict", "--max-nodes", "20000", "--backend", "cpu")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "within 20,000 nodes" in err and "--max-nodes" in err
    six = " ".join(map(str, [*range(1, 31), 0, 31, 32, 33, 34, 35]))  # 6x6, five moves from the goal
    code, out, err = run_cli(capsys, "sliding", "solve", six, "--max-nodes", "100000", "--json", "--backend", "cpu")
    assert code == 0 and json.loads(out)["length"] == 5


def test_instance_file_over_the_limit_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PUZZLEBATCH_MAX_INSTANCES", "3")
    inst = tmp_path / "many.txt"
    inst.write_text("# four boards\n" + "1 2 3 4 5 6 7 0 8\n" * 4)
    code, out, err = run_cli(capsys, "sliding", "solve", "--file", str(inst), "--backend", "cpu")
    assert code == 2 and out == "" and f"{inst}:5: 4 instances is over the limit of 3" in err
    assert "PUZZLEBATCH_MAX_INSTANCES" in err and len(err.strip().splitlines()) == 1


def test_boards_of_a_file_show_their_nodes_not_a_shared_time(tmp_path, capsys):
    """The boards of a batch run together: the text gives each its nodes, the batch its time; the JSON shares
    the batch's time out in proportion to the nodes."""
    dist = sliding_oracle.distances(3, 3, "blank-last")
    picked = [next(s for s, d in sorted(dist.items()) if d == want) for want in (1, 20, 31)]
    inst = tmp_path / "three.txt"
    inst.write_text("".join(" ".join(map(str, s)) + f" {dist[s]}\n" for s in picked))
    common = ["sliding", "solve", "--file", str(inst), "--backend", "cpu", "--out", str(tmp_path / "s.h5")]
    code, out, _ = run_cli(capsys, *common)
    board_lines = [line for line in out.splitlines() if line.startswith("  blank:")]
    assert code == 0 and len(board_lines) == 3 and not any(" s, " in line for line in board_lines)
    assert ": 1 move (optimal)" in out and "; 1 node, " in out and not re.search(r"\b1 (moves|nodes)", out)
    code, out, _ = run_cli(capsys, *common, "--json")
    doc = json.loads(out)
    secs, nodes = [d["seconds"] for d in doc["results"]], [d["nodes"] for d in doc["results"]]
    assert len(set(nodes)) == 3 and len(set(secs)) == 3 and sum(secs) <= doc["seconds"] + 1e-9
    assert sorted(range(3), key=secs.__getitem__) == sorted(range(3), key=nodes.__getitem__)


def test_replay_says_1_move(capsys):
    code, out, _ = run_cli(capsys, "sliding", "replay", "1 2 3 4 5 6 7 0 8", "8")
    assert code == 0 and "1 move; solved" in out


def test_a_bfs_stopped_by_ctrl_c_resumes_from_its_last_layer(tmp_path, capsys, monkeypatch):
    """Ctrl-C before the first timed checkpoint (the default: a minute): the search resumes from its last whole
    layer, not from nothing."""
    from puzzlebatch.runners.sliding import solver

    whole = sliding_oracle.depth_histogram(sliding_oracle.distances(2, 4, "blank-last"))
    real = solver.bfs_run

    def stopped(state, backend, *, on_layer=None, **kw):
        def layer(st):
            on_layer(st)
            if st.depth == 12:
                raise KeyboardInterrupt
        return real(state, backend, on_layer=layer, **kw)

    monkeypatch.setattr(solver, "bfs_run", stopped)
    argv = ["sliding", "bfs", "2x4", "--backend", "cpu", "--out", str(tmp_path / "b.h5")]
    assert main(argv) == 130
    monkeypatch.setattr(solver, "bfs_run", real)
    capsys.readouterr()
    code, out, _ = run_cli(capsys, *argv, "--resume", "--max-layers", "2", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["max_depth"] == 14 and doc["states"] == sum(whole[:15])
    assert doc["depth_counts"] == whole[:15]
