"""The web app's JSON API through FastAPI's test client: every endpoint, bad input, path escapes, jobs."""

import json
import os
import time

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed")

from fastapi.testclient import TestClient  # noqa: E402

from puzzlebatch.web import limits  # noqa: E402
from tests.web_helpers import wait_job  # noqa: E402

A = {"x-client-id": "api-test-a"}
B = {"x-client-id": "api-test-b"}


@pytest.fixture(scope="module")
def client(web_app):
    with TestClient(web_app) as c:
        yield c


def err(r, status):
    assert r.status_code == status, r.text
    doc = r.json()
    assert set(doc) == {"error"} and "\n" not in doc["error"] and doc["error"]
    return doc["error"]


# -- server ------------------------------------------------------------------------------------------------------
def test_health_openapi_index_and_static(client):
    from puzzlebatch import __version__

    assert client.get("/api/health").json() == {"status": "ok", "version": __version__}
    spec = client.get("/openapi.json").json()
    paths = set(spec["paths"])
    for p in ("/api/health", "/api/polyomino/solve", "/api/polyomino/count", "/api/polyomino/generate",
              "/api/hextris/replay", "/api/sliding/solve", "/api/results/items", "/api/jobs/{job_id}/events"):
        assert p in paths
    page = client.get("/")
    assert page.status_code == 200 and "puzzlebatch" in page.text and "js/main.js" in page.text
    assert "content-security-policy" in page.headers
    js = client.get("/static/js/workshop.js")
    assert js.status_code == 200 and "export async function start" in js.text
    assert "not found" in err(client.get("/api/nothing"), 404)
    assert client.get("/api/workers").json()["workers"][0]["index"] == 0


def test_guards_host_body_size_and_bad_json(client):
    assert "is not served here" in err(client.get("/api/health", headers={"host": "evil.example"}), 400)
    big = b'{"pieces_text": "' + b"x" * (limits.MAX_BODY_BYTES + 10) + b'"}'
    assert "limit" in err(client.post("/api/polyomino/check", content=big,
                                      headers={"content-type": "application/json"}), 413)
    assert err(client.post("/api/polyomino/check", content=b"{not json",
                           headers={"content-type": "application/json"}), 400).startswith("invalid JSON")
    msg = err(client.post("/api/polyomino/check", json={"board": 5}), 422)
    assert msg.startswith("board:")
    assert "Extra inputs" in err(client.post("/api/polyomino/check", json={"boad": "5x5"}), 422)


# -- level workshop ----------------------------------------------------------------------------------------------
def test_sets_pieces_check_import_export(client):
    sets = client.get("/api/polyomino/sets").json()
    assert "iq-puzzler-pro" in sets["sets"] and sets["board"] == "11x5"
    info = client.post("/api/polyomino/pieces", json={"pieces": "iq-puzzler-pro"}).json()
    assert [p["name"] for p in info["pieces"]][:3] == ["blue", "pink", "cyan"]
    # the pictures' colour table: a piece named after a colour comes in it
    assert [p["colour"] for p in info["pieces"]][:3] == ["#0000ff", "#ffc0cb", "#00ffff"]
    assert sum(p["size"] for p in info["pieces"]) == 55
    assert all(len(p["orientations"]) <= 8 for p in info["pieces"])
    ok = client.post("/api/polyomino/check", json={"placed": [{"piece": "skyblue", "cells": [[0, 0], [1, 0], [0, 1]]}]})
    assert ok.json()["ok"] and ok.json()["free"] == 52
    # the command line's one-line messages
    assert err(client.post("/api/polyomino/check", json={"placed": [{"piece": "skyblue", "cells": [[0, 0], [1, 0]]}]}),
               400) == "11x5: the cells marked L do not form piece skyblue"
    assert "outside the 11x5 board" in err(client.post("/api/polyomino/check", json={
        "placed": [{"piece": "skyblue", "cells": [[10, 4], [11, 4], [10, 3]]}]}), 400)
    assert "unknown piece set" in err(client.post("/api/polyomino/check", json={"pieces": "../../etc/passwd"}), 400)
    assert "unknown piece set" in err(client.post("/api/polyomino/check", json={"pieces": "/etc/hostname.txt"}), 400)
    assert "is not WxH" in err(client.post("/api/polyomino/check", json={"board": "/etc/passwd"}), 400)
    assert "more than the" in err(client.post("/api/polyomino/check", json={"board": "40x40x8"}), 400)
    custom = client.post("/api/polyomino/pieces", json={"pieces_text": "A:\n##\n\nB: 0,0 0,1"}).json()
    assert [p["name"] for p in custom["pieces"]] == ["A", "B"]
    assert "not connected" in err(client.post("/api/polyomino/pieces", json={"pieces_text": "A:\n#.#"}), 400)
    level = {"board": "4x2", "pieces": "dominoes", "unlimited": True, "holes": [[3, 1]],
             "placed": [{"piece": "D", "cells": [[0, 0], [1, 0]]}]}
    text = client.post("/api/polyomino/export", json={**level, "holes": []}).json()["text"]
    assert text == "DD..\n....\n"
    back = client.post("/api/polyomino/import", json={"pieces": "dominoes", "unlimited": True, "text": "DD..\n...#\n"})
    assert back.json() == {"board": "4x2", "holes": [[3, 1]], "placed": [{"piece": "D", "cells": [[0, 0], [1, 0]]}]}
    assert "unexpected character" in err(client.post("/api/polyomino/import", json={"pieces": "dominoes",
                                                                                    "text": "D?\n"}), 400)


def test_solve_iq_level_keep_and_count_and_generate(client, web_results):
    level = {"placed": [{"piece": "blue", "cells": [[0, 0], [1, 0], [2, 0], [0, 1], [0, 2]]}]}
    job = client.post("/api/polyomino/solve", json=level | {"keep": True}, headers=A)
    assert job.status_code == 202 and job.json()["status"] in ("queued", "running")
    done = wait_job(client, job.json())
    assert done["status"] == "done", done
    r = done["result"]
    assert r["solved"] and r["backend"] == "cpu"
    # the level's pieces, then the pieces the search placed
    assert r["level"] == [{"piece": "blue", "cells": sorted(level["placed"][0]["cells"])}]
    cells = [tuple(c) for p in r["level"] + r["placements"] for c in p["cells"]]
    assert len(cells) == 55 and set(cells) == {(x, y) for x in range(11) for y in range(5)}
    assert len(r["placements"]) == 11 and "blue" not in {p["piece"] for p in r["placements"]}
    stored = r["stored"]
    assert (web_results / stored["file"]).is_file()
    sol = client.get("/api/results/solution", params={"path": stored["file"], "run": stored["run"], "row": 0}).json()
    assert sol["kind"] == "polyomino" and len({tuple(c) for p in sol["placements"] for c in p["cells"]}) == 55
    from puzzlebatch.results.colours import piece_colours

    assert sol["colours"] == piece_colours(sol["pieces"]) and sol["colours"][sol["pieces"].index("red")] == "#ff0000"
    # an impossible level is an answer, not an error
    none = wait_job(client, client.post("/api/polyomino/solve", json={"board": "3x3", "pieces": "dominoes",
                                                                       "unlimited": True}, headers=A).json())
    assert none["result"]["solved"] is False and none["result"]["placements"] == []
    count = client.post("/api/polyomino/count", json={"board": "4x3", "pieces": "dominoes", "unlimited": True},
                        headers=A)
    done = wait_job(client, count.json())
    assert done["result"]["solutions"] == 11, done  # domino tilings of 3x4 (OEIS A001835: 1, 3, 11, 41, ...)
    gen = client.post("/api/polyomino/generate", json={"board": "10x6", "pieces": "pentominoes",
                                                        "pieces_left": 3, "seed": 3}, headers=A)
    done = wait_job(client, gen.json())
    assert done["status"] == "done", done["error"]
    lv = done["result"]["level"]
    assert len(lv["placed"]) == 9 and done["result"]["text"].count(".") == 15
    # the level has exactly one solution: counting it says so
    again = wait_job(client, client.post("/api/polyomino/count", json=lv, headers=A).json())
    assert again["result"]["solutions"] == 1, again
    assert "exactly fill" in err(client.post("/api/polyomino/generate", json={"board": "5x2", "pieces": "dominoes",
                                                                              "copies": 4}, headers=A), 400)


def test_one_job_per_client_and_cancel_stops_the_search(client, web_jobs):
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.web.polyomino import packing

    # far too long to finish: it must be stopped (holes that no symmetry keeps: the count runs batch after batch)
    big = {"board": "12x12", "pieces": "tetrominoes", "unlimited": True, "holes": [[3, 0], [7, 2], [0, 9], [5, 5]]}
    assert len(P.symmetries(packing(big))) == 1
    job = client.post("/api/polyomino/count", json=big, headers=B).json()
    assert "one job at a time" in err(client.post("/api/polyomino/solve", json={}, headers=B), 429)
    deadline = time.monotonic() + 1800
    while (now := client.get(f"/api/jobs/{job['id']}").json())["phase"] != "searching":
        assert time.monotonic() < deadline and now["status"] in ("queued", "running"), now
        time.sleep(0.1)
    time.sleep(1.0)
    assert client.delete(f"/api/jobs/{job['id']}").status_code == 200
    done = wait_job(client, job)
    assert done["status"] == "cancelled" and done["error"] == "cancelled"
    # stopped between two batches (the worker stays warm) or, past the grace period, by stopping the worker
    deadline = time.monotonic() + 1800
    while web_jobs.workers()[0]["state"] not in ("idle", "warming"):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert web_jobs.workers()[0]["job"] is None
    assert [j["id"] for j in client.get("/api/jobs", headers=B).json()["jobs"]] == [job["id"]]
    assert "no such job" in err(client.get("/api/jobs/nope"), 404)
    assert "no such job" in err(client.delete("/api/jobs/nope"), 404)


def test_events_stream_ends_with_the_final_record(client):
    job = client.post("/api/sliding/solve", json={"rows": 3, "cols": 3, "tiles": [1, 2, 3, 4, 5, 6, 8, 7, 0]},
                      headers=A).json()
    events = []
    with client.stream("GET", f"/api/jobs/{job['id']}/events") as s:
        assert s.headers["content-type"].startswith("text/event-stream")
        for line in s.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
    assert events[-1]["status"] == "done" and "result" not in events[-1]
    r = client.get(f"/api/jobs/{job['id']}").json()["result"]
    assert r["solvable"] is False and r["explanation"].startswith("unsolvable: 1 inversions")


# -- sliding -----------------------------------------------------------------------------------------------------
def test_sliding_check_shuffle_solve(client):
    from puzzlebatch.puzzles.sliding.model import Board, goal_board, replay

    c = client.post("/api/sliding/check", json={"tiles": [8, 6, 7, 2, 5, 4, 3, 0, 1]}).json()
    assert c["solvable"] and c["explanation"].startswith("solvable:")
    assert "appears twice" in err(client.post("/api/sliding/check", json={"tiles": [1, 1, 3, 4, 5, 6, 7, 8, 0]}), 400)
    assert err(client.post("/api/sliding/check", json={"rows": 5, "tiles": [0]}), 422).startswith("rows:")
    sh = client.post("/api/sliding/shuffle", json={"moves": 30, "seed": 4}).json()
    assert sh == client.post("/api/sliding/shuffle", json={"moves": 30, "seed": 4}).json()
    job = client.post("/api/sliding/solve", json={"tiles": [8, 6, 7, 2, 5, 4, 3, 0, 1], "keep": True},
                      headers=A).json()
    r = wait_job(client, job)["result"]
    assert r["length"] == 31  # the hardest 8-puzzle boards need 31 moves
    walk = replay(Board(3, 3, (8, 6, 7, 2, 5, 4, 3, 0, 1)), r["moves"])
    assert walk[-1] == goal_board(3, 3)
    sol = client.get("/api/results/solution", params={"path": r["stored"]["file"], "run": r["stored"]["run"]}).json()
    assert sol["kind"] == "sliding" and sol["moves"] == r["moves"] and sol["size"] == [3, 3]


# -- hex Tetris --------------------------------------------------------------------------------------------------
def test_hextris_problems_and_replay(client):
    from puzzlebatch.web.hextris import references

    probs = client.get("/api/hextris/problems").json()["problems"]
    assert len(probs) == 25 and probs[24]["reference_seeds"] == [18]
    p1 = client.get("/api/hextris/problems/1").json()
    assert p1["width"] == 15 and len(p1["units"][0]) == 6
    assert "qualifier problems are 0..24" in err(client.get("/api/hextris/problems/99"), 400)
    ref = references()[(1, 0)]
    job = client.post("/api/hextris/replay", json={"problem": 1, "seed": 0, "source": "reference"}, headers=A).json()
    r = wait_job(client, job)["result"]
    assert r["final"]["total"] == ref["total"] and r["final"]["move_score"] == ref["move_score"]
    assert r["n_commands"] == len(r["commands"]) and r["locks"]["move_score"][-1] == ref["move_score"]
    # official JSON text picks the entry for the problem and seed; a wrong seed or character is one line
    text = json.dumps([{"problemId": 1, "seed": 0, "tag": "t", "solution": ref["solution"]}])
    job = client.post("/api/hextris/replay", json={"problem": 1, "seed": 0, "source": "text", "solution": text},
                      headers=A).json()
    assert wait_job(client, job)["result"]["final"]["total"] == ref["total"]
    assert "not a seed of problem 1" in err(client.post("/api/hextris/replay", json={"problem": 1, "seed": 7},
                                                        headers=A), 400)
    assert "no solution for problem 1 seed 0" in err(client.post("/api/hextris/replay", json={
        "problem": 1, "source": "text", "solution": "[]"}, headers=A), 400)
    job = client.post("/api/hextris/replay", json={"problem": 1, "source": "text", "solution": "iii#"},
                      headers=A).json()
    assert wait_job(client, job)["error"] == "solution: character '#' is not a command (the game would score 0)"


def test_record_poses_give_the_models_cells():
    from puzzlebatch.puzzles.hextris.model import load_phrases, official_problem, score_solution
    from puzzlebatch.web.hextris import record, references

    for pid, seed in ((1, 0), (6, 0)):
        ref = references()[(pid, seed)]
        rec = record(official_problem(pid), seed, ref["solution"], load_phrases(), verify=True)
        s = score_solution(official_problem(pid), seed, ref["solution"])
        assert rec["final"]["total"] == s.total == ref["total"]


# -- results browser ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def results_files(web_results):
    """Runs laid out as the command line writes them: a snake embedding, a cubes assembly, a hex Tetris play."""
    from puzzlebatch.results.store import ResultsStore

    (web_results / "sub").mkdir(exist_ok=True)
    with ResultsStore(web_results / "sub" / "made.h5", "a") as store:
        run = store.create_run("snake", "count", backend="cpu", device="test", seed=None, params={"all": True})
        run.set_instances(chain=np.array([0, 1, 1, 1, 1, 1, 1, 0], np.int8), box=np.array([2, 2, 2]))
        # a Hamiltonian path of the 2x2x2 box (cell index x + 2y + 4z)
        run.append_items(cells=np.array([[0, 1, 3, 2, 6, 7, 5, 4]], np.int16), weight=np.array([1]))
        run.finish("done", seconds=0.1)
        run = store.create_run("cubes", "solve", backend="cpu", device="test", seed=None, params={})
        run.append_items(cell=np.array([[0, 0, 0], [1, 0, 0]]), cube=np.array([1, 2]), rotation=np.array([0, 0]),
                         faces=np.array([[1, 0, 2, 0, 0, 0], [0, 0, 0, 0, -2, 0]]))
        run.finish("done")
        run = store.create_run("hextris", "beam-play", backend="cpu", device="test", seed=None, params={})
        from puzzlebatch.web.hextris import references

        run.append_items(problemId=np.array([1]), seed=np.array([0]), total=np.array([5408]),
                         solution=np.array([references()[(1, 0)]["solution"]], dtype=object))
        run.finish("done")
    outside = web_results.parent / "outside.h5"
    outside.write_bytes(b"secret")
    (web_results / "link-out.h5").symlink_to(outside)
    return "sub/made.h5"


def test_results_files_runs_items_csv_solutions(client, results_files):
    files = [f["path"] for f in client.get("/api/results/files").json()["files"]]
    assert results_files in files and "link-out.h5" not in files
    desc = client.get("/api/results/file", params={"path": results_files}).json()
    assert desc["path"] == results_files and [r["family"] for r in desc["runs"]] == ["snake", "cubes", "hextris"]
    assert [r["drawable"] for r in desc["runs"]] == ["snake", "cubes", "hextris"]
    snake, cubes, hx = (r["id"] for r in desc["runs"])
    page = client.get("/api/results/items", params={"path": results_files, "run": snake}).json()
    assert page["columns"] == ["cells", "weight"] and page["rows"] == [[[0, 1, 3, 2, 6, 7, 5, 4], 1]]
    csv = client.get("/api/results/items.csv", params={"path": results_files, "run": snake})
    assert csv.text.splitlines() == ["row,cells,weight", "1,0 1 3 2 6 7 5 4,1"]
    assert "attachment" in csv.headers["content-disposition"]
    s = client.get("/api/results/solution", params={"path": results_files, "run": snake, "row": 0}).json()
    assert s["kind"] == "snake" and s["cells"][:3] == [[0, 0, 0], [1, 0, 0], [1, 1, 0]]
    c = client.get("/api/results/solution", params={"path": results_files, "run": cubes}).json()
    assert c["kind"] == "cubes" and c["assembly"][1]["faces"][4] == -2
    h = client.get("/api/results/solution", params={"path": results_files, "run": hx}).json()
    assert h == h | {"kind": "hextris", "problemId": 1, "seed": 0}
    job = client.post("/api/hextris/replay", json={"source": "results", "path": results_files, "run": hx, "row": 0},
                      headers=A).json()
    assert wait_job(client, job)["result"]["final"]["total"] == 5408
    long = client.get("/api/results/items", params={"path": results_files, "run": hx}).json()
    assert long["rows"][0][3].endswith("characters)")  # long solutions are cut in the table
    assert "rows 0..0" in err(client.get("/api/results/solution", params={"path": results_files, "run": snake,
                                                                          "row": 5}), 404)
    assert "not in this file" in err(client.get("/api/results/items", params={"path": results_files,
                                                                              "run": "nope"}), 404)
    assert err(client.get("/api/results/items", params={"path": results_files, "run": snake, "limit": 10_000}),
               422).startswith("query.limit")


@pytest.mark.parametrize("path, status", [
    ("../outside.h5", 403), ("sub/../../outside.h5", 403), ("/etc/passwd.h5", 403), ("/etc/passwd", 403),
    ("link-out.h5", 403), ("..%2Foutside.h5", 404), ("sub\\..\\..\\outside.h5", 403), ("C:/x.h5", 403),
    ("made.txt", 403), ("", 403), ("missing.h5", 404)])
def test_results_paths_cannot_escape(client, results_files, path, status):
    err(client.get("/api/results/file", params={"path": path}), status)
    err(client.get("/api/results/items.csv", params={"path": path, "run": "x"}), status)


def test_results_url_encoded_escape(client, results_files):
    # the query string decodes %2e%2e%2f to ../: refused like the plain form
    r = client.get("/api/results/file?path=%2e%2e%2foutside.h5")
    assert err(r, 403).endswith("'..' is not allowed")
    assert os.path.exists(client.app.state.results_dir.parent / "outside.h5")
