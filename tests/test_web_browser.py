"""The web app in headless Chromium (Debian's ``chromium`` driven by Playwright for Python, no browser download).

They skip, saying why, only when no Chromium can be had; CI sets ``PUZZLEBATCH_REQUIRE_BROWSER=1`` so that they
fail there instead.  Screenshots of every page go to the test's temporary folder (and to
``$PUZZLEBATCH_SCREENSHOT_DIR`` when set).  Waits are generous: nothing here depends on how fast the machine is.
"""

import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

WAIT_MS = 1_800_000  # a first job may wait for the worker's kernels to compile on a busy machine


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _unavailable(reason: str):
    if os.environ.get("PUZZLEBATCH_REQUIRE_BROWSER", "") not in ("", "0"):
        pytest.fail(f"browser tests required here but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright for Python is not installed (pip install -e '.[test]')")
    exe = _chromium()
    if exe is None:
        _unavailable("no Chromium on this machine (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(web_app):
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(web_app, log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture
def page(browser, server):
    pg = browser.new_page(viewport={"width": 1400, "height": 900})
    pg.set_default_timeout(WAIT_MS)
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    pg.close()
    assert not errors, errors


def shot(page, tmp_path, name):
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    extra = os.environ.get("PUZZLEBATCH_SCREENSHOT_DIR")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / path.name)
    assert path.stat().st_size > 1000
    return path


def wait_outcome(page, ok: str, error: str) -> None:
    """Wait until the page shows ``ok`` or ``error`` (CSS selectors); fail at once, with the page's message, on
    ``error`` rather than waiting out the timeout."""
    page.wait_for_selector(f"{ok}, {error}", state="attached")
    if page.locator(error).count():
        raise AssertionError(f"the page says: {page.locator(error).first.inner_text()}")


def _ghost(page):
    rects = page.eval_on_selector_all("rect.ghost", "rs => rs.map(r => [+r.getAttribute('x'), +r.getAttribute('y')])")
    return sorted((round((x - 5) / 40), round((y - 5) / 40)) for x, y in rects)


def place_by_clicks(page, name, cells):
    """Select piece ``name`` in the palette, turn it (Rotate, Flip) until the ghost over the target's anchor cell
    shows exactly ``cells``, then click to place it."""
    page.click(f'.piece[data-piece="{name}"]')
    anchor = min(cells, key=lambda c: (c[1], c[0]))
    target = sorted(tuple(c) for c in cells)
    cell = page.locator(f'rect[data-cell="{anchor[0]},{anchor[1]}"]')
    for _flips in range(2):
        for _ in range(4):
            cell.hover()
            if _ghost(page) == target:
                cell.click()
                return
            page.click("#ws-rotate")
        page.click("#ws-flip")
    raise AssertionError(f"no turn of {name} gives {target}")


def test_workshop_build_an_iq_level_by_clicks_and_solve(page, server, tmp_path):
    import httpx

    # three pieces of a known solution (from the server itself), placed by hand: the level is solvable
    job = httpx.post(f"{server}/api/polyomino/solve", json={}, headers={"x-client-id": "browser-setup"}).json()
    deadline = time.monotonic() + WAIT_MS / 1000
    while (doc := httpx.get(f"{server}/api/jobs/{job['id']}").json())["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    chosen = [p for p in doc["result"]["placements"] if p["piece"] in ("blue", "pink", "skyblue")]
    page.goto(server + "/#workshop")
    page.wait_for_selector('.piece[data-piece="blue"]')
    for p in chosen:
        place_by_clicks(page, p["piece"], p["cells"])
    owners = page.eval_on_selector_all("rect[data-cell]", "rs => rs.map(r => r.dataset.owner)")
    assert sum(1 for o in owners if o) == sum(len(p["cells"]) for p in chosen)
    shot(page, tmp_path, "workshop-level")
    page.click("#ws-solve")
    wait_outcome(page, "#ws-message.ok", "#ws-message.error")
    assert page.inner_text("#ws-message").startswith("Solved")
    cells = page.eval_on_selector_all("rect[data-cell]", "rs => rs.map(r => [r.dataset.cell, r.dataset.owner])")
    assert len(cells) == 55 and all(owner for _, owner in cells), "every cell covered"
    placed = {c: o for c, o in cells}
    for p in chosen:  # the level's pieces stay where they were put
        assert all(placed[f"{x},{y}"] == p["piece"] for x, y in p["cells"])
    from puzzlebatch.results.colours import colour_of_name

    fills = page.eval_on_selector_all("rect[data-cell]", "rs => rs.map(r => [r.dataset.owner, r.getAttribute('fill')])")
    assert all(fill == colour_of_name(owner) for owner, fill in fills), "the pictures' colour of each piece"
    print(f"\nbrowser solve: {page.evaluate('document.body.dataset.lastSolveMs')} ms from click to drawn")
    shot(page, tmp_path, "workshop")
    # a wrong level says why, with the command line's message
    page.fill("#ws-board", "11x5x0")
    page.press("#ws-board", "Enter")
    page.wait_for_selector("#ws-message.error")  # refused in the page, in the command line's words
    assert "11x5x0" in page.inner_text("#ws-message")


def test_replay_problem_24_to_the_end(page, server, tmp_path, capsys):
    from puzzlebatch.cli import main
    from puzzlebatch.web.hextris import references

    page.goto(server + "/#replay")
    page.wait_for_selector('#rp-problem option[value="24"]', state="attached")  # options are never "visible"
    page.select_option("#rp-problem", "24")
    page.select_option("#rp-seed", "18")
    page.click("#rp-load")
    wait_outcome(page, 'body[data-replay-loaded="24:18"]', "#rp-message.error")
    page.select_option("#rp-speed", "500")
    page.click("#rp-play")
    page.wait_for_timeout(1500)
    shot(page, tmp_path, "replay-playing")
    page.wait_for_selector('body[data-replay-at-end="1"]')
    total = int(page.inner_text("#rp-total").replace(",", ""))
    stats = page.evaluate("window.replayFrameStats")
    (tmp_path / "replay-frames.json").write_text(json.dumps(stats))
    print(f"\nreplay of problem 24 (298,388 commands, 500 a frame): {json.dumps(stats)}")
    assert stats["frames"] > 100
    shot(page, tmp_path, "replay")
    # the same number as `puzzlebatch hextris score`
    sol = tmp_path / "p24.json"
    sol.write_text(json.dumps([{"problemId": 24, "seed": 18, "tag": "ref",
                                "solution": references()[(24, 18)]["solution"]}]))
    capsys.readouterr()
    assert main(["hextris", "score", "24", str(sol), "--json", "--backend", "cpu"]) == 0
    [scored] = json.loads(capsys.readouterr().out)["scores"]  # one game scored
    assert total == scored["total"] == 306206
    assert page.inner_text("#rp-end-state") == scored["end"]


def test_sliding_page(page, server, tmp_path):
    page.goto(server + "/#sliding")
    page.fill("#sl-tiles", "1 2 3 4 5 6 8 7 0")
    page.wait_for_selector("#sl-parity.error")
    assert page.inner_text("#sl-parity").startswith("unsolvable: 1 inversions")
    page.fill("#sl-tiles", "8 6 7 2 5 4 3 0 1")
    page.wait_for_selector("#sl-parity.ok")
    page.click("#sl-solve")
    wait_outcome(page, "body[data-sliding-solved]", "#sl-message.error")
    assert page.evaluate("document.body.dataset.slidingSolved") == "31"
    for _ in range(12):
        page.click("#sl-next")
    shot(page, tmp_path, "sliding")


def test_results_browser_shows_a_run_made_here(page, server, tmp_path, web_results, capsys):
    from puzzlebatch.cli import main

    out = web_results / "browser" / "dominoes.h5"
    out.parent.mkdir(exist_ok=True)
    assert main(["polyomino", "count", "--board", "4x2", "--pieces", "dominoes", "--unlimited", "--all",
                 "--out", str(out), "--backend", "cpu", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["solutions"] == 5  # domino tilings of 2x4: Fibonacci(5)
    page.goto(server + "/#results")
    page.click('li[data-path="browser/dominoes.h5"]')
    page.wait_for_selector("table[data-table=runs]")
    row = page.locator("table[data-table=runs] tr.selectable").first
    assert "polyomino" in row.inner_text() and "enumerate" in row.inner_text()
    row.click()
    page.wait_for_selector("table[data-table=items]")
    assert page.locator("table[data-table=items] tr.selectable").count() == 5
    page.locator("table[data-table=items] tr.selectable").nth(2).click()
    page.wait_for_selector('#rs-drawing[data-kind="polyomino"]:has(div:text("row 3 of 5")) rect[data-owner="D"]')
    owners = page.eval_on_selector_all("#rs-drawing rect", "rs => rs.map(r => r.dataset.owner)")
    assert len(owners) == 8 and all(o == "D" for o in owners)
    from puzzlebatch.results.colours import PALETTE

    fills = page.eval_on_selector_all("#rs-drawing rect", "rs => rs.map(r => r.getAttribute('fill'))")
    assert set(fills) == {PALETTE[0]}  # the colour the PNG gives the set's first unnamed piece
    shot(page, tmp_path, "results")


def test_results_3d_view_of_a_snake(page, server, tmp_path, web_results):
    import numpy as np

    from puzzlebatch.results.store import ResultsStore

    (web_results / "browser").mkdir(exist_ok=True)
    with ResultsStore(web_results / "browser" / "snake.h5", "a") as store:
        run = store.create_run("snake", "count", backend="cpu", device="test", seed=None, params={"all": True})
        run.set_instances(chain=np.array([0, 1, 1, 1, 1, 1, 1, 0], np.int8), box=np.array([2, 2, 2]))
        run.append_items(cells=np.array([[0, 1, 3, 2, 6, 7, 5, 4]], np.int16), weight=np.array([1]))
        run.finish("done", seconds=0.1)
    page.goto(server + "/#results")
    page.click('li[data-path="browser/snake.h5"]')
    page.locator("table[data-table=runs] tr.selectable").first.click()
    page.wait_for_selector('#rs-drawing[data-kind="snake"] svg[data-view="3d"] polygon')
    before = page.eval_on_selector("svg[data-view='3d'] polyline", "p => p.getAttribute('points')")
    page.click("#rs-drawing button:has-text('⟳')")  # turn the view
    after = page.eval_on_selector("svg[data-view='3d'] polyline", "p => p.getAttribute('points')")
    assert before != after and len(before.split()) == 8
    shot(page, tmp_path, "results-3d")
