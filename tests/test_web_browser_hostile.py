"""The web page against what froze or misled it: a huge board typed in the workshop (refused in the page, with
the server's limits), a hex Tetris run in the results browser (the page stays within the window), stale text after
an edit, and the "warming up kernels" line of a cold server.  Screenshots go to the test's temporary folder (and
to ``$PUZZLEBATCH_SCREENSHOT_DIR`` when set)."""

import socket
import threading
import time

import numpy as np
import pytest

from tests.test_web_browser import WAIT_MS, browser, shot, wait_outcome  # noqa: F401  (browser: a fixture)

pytest.importorskip("fastapi", reason="the web extra is not installed")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from puzzlebatch.web.app import create_app
    from puzzlebatch.web.jobs import JobManager

    root = tmp_path_factory.mktemp("served")
    _hex_file(root / "hex.h5")
    jobs = JobManager(1, (), root).start()  # nothing to compile: the worker is ready as soon as it has started
    app = create_app(root, jobs=jobs, allowed_hosts=None)
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}", jobs
    srv.should_exit = True
    thread.join(10)
    jobs.close()


def _hex_file(path):
    from puzzlebatch.results.store import ResultsStore
    from puzzlebatch.web.hextris import references

    (pid, seed), entry = max(references().items(), key=lambda kv: len(kv[1]["solution"]))
    with ResultsStore(path, "w") as store:
        run = store.create_run("hextris", "play", backend="cpu", device="cpu", seed=None,
                               params={"problems": str(pid)})
        run.append_items(problemId=np.array([pid]), seed=np.array([seed]), solution=[entry["solution"]],
                         move_score=np.array([0]), end=["done"])


@pytest.fixture
def page(browser, served):  # noqa: F811
    pg = browser.new_page(viewport={"width": 1000, "height": 800})
    pg.set_default_timeout(WAIT_MS)
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    pg.close()
    assert not errors, errors


def _width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def _too_wide(page, width: int) -> list[str]:
    """The elements that reach past the window (for the failure message)."""
    return page.evaluate("""(w) => [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > w + 1 && e.offsetParent !== null)
        .slice(0, 6).map((e) => `${e.tagName}#${e.id} ${Math.round(e.getBoundingClientRect().right)}`)""",
                         width)


def test_a_huge_board_is_refused_in_the_page(page, served, tmp_path):
    url, _ = served
    page.goto(url + "/#workshop")
    page.wait_for_selector("#ws-boards svg rect.cell")
    cells_before = page.locator("#ws-boards rect.cell").count()
    page.fill("#ws-board", "1000x1000")
    page.dispatch_event("#ws-board", "change")
    page.wait_for_selector("#ws-message.error")
    message = page.inner_text("#ws-message")
    limits = page.evaluate("fetch('/api/limits').then(r => r.json())")
    assert "1000x1000" in message and f"1..{limits['board_side']}" in message, message
    assert page.locator("#ws-boards rect.cell").count() == cells_before  # nothing drawn for it
    assert page.input_value("#ws-board") != "1000x1000"
    shot(page, tmp_path, "hostile-huge-board")
    # an edit clears the error: the board that is accepted is drawn and nothing stale is left
    page.fill("#ws-board", "6x5")
    page.dispatch_event("#ws-board", "change")
    page.wait_for_selector("#ws-boards rect.cell[data-cell='10,0']", state="detached")
    assert page.locator("#ws-boards rect.cell").count() == 30
    assert page.inner_text("#ws-message").strip() == ""
    assert page.locator("#ws-message.error").count() == 0


def test_hex_run_stays_within_the_window(page, served, tmp_path):
    url, _ = served
    for width in (1000, 420):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(url + "/#results")
        page.click("#rs-files li")
        page.wait_for_selector("#rs-runs tr.selectable")
        page.locator("#rs-runs tr.selectable").first.click()
        page.wait_for_selector("#rs-items table.grid td")
        page.wait_for_selector("#rs-drawing a")  # the row's "Replay problem ..." link
        assert _width(page) <= width, f"page {_width(page)} px wide in a {width} px window: {_too_wide(page, width)}"
        shot(page, tmp_path, f"hostile-hex-results-{width}")


def test_sliding_result_does_not_outlive_its_board(page, served, tmp_path):
    url, _ = served
    page.goto(url + "/#sliding")
    page.wait_for_selector("#sl-board")
    page.evaluate("document.getElementById('sl-message').textContent = '57 moves (optimal)'")
    page.fill("#sl-tiles", "2 1 3 4 5 6 7 8 0")  # one swap from the goal: unsolvable
    page.wait_for_selector("#sl-parity.error")
    assert "57 moves" not in page.inner_text("#sl-message")
    shot(page, tmp_path, "hostile-sliding-unsolvable")


def test_warming_line_goes_away(page, served, tmp_path):
    url, jobs = served
    page.goto(url + "/#workshop")
    page.wait_for_selector("#server-status:has-text('workers ready 1/1')")
    page.wait_for_selector("#warming", state="hidden")
    assert page.evaluate("fetch('/favicon.ico').then(r => r.status)") == 200


def _palette(page) -> list[str]:
    page.wait_for_selector("#ws-palette .piece")
    return page.eval_on_selector_all("#ws-palette .piece", "els => els.map((e) => e.dataset.piece)")


def _pick(page, name: str) -> None:
    page.dispatch_event(f"#ws-palette .piece[data-piece='{name}']", "pointerdown")
    page.wait_for_selector(f"#ws-palette .piece.selected[data-piece='{name}']")


def _cell(page, at: str):
    return page.locator(f"#ws-boards rect.cell[data-cell='{at}']")


def test_clicking_a_placed_piece_with_another_in_hand_does_not_swap(page, served, tmp_path):
    url, _ = served
    page.goto(url + "/#workshop")
    page.wait_for_selector("#ws-boards svg rect.cell")
    a, b = _palette(page)[:2]
    _pick(page, a)
    _cell(page, "4,0").click()  # the anchor cell of a piece of 4 columns at most either side, on 11x5
    assert _cell(page, "4,0").get_attribute("data-owner") == a
    owned = page.eval_on_selector_all(f"#ws-boards rect.cell[data-owner='{a}']",
                                      "els => els.map((e) => e.dataset.cell)")
    _pick(page, b)
    _cell(page, "4,0").click()
    page.wait_for_selector("#ws-message.error")
    message = page.inner_text("#ws-message")
    assert f"{a} is placed there" in message and b in message, message
    # nothing moved: the placed piece lies where it was, the other one is still the one in hand
    assert page.eval_on_selector_all(f"#ws-boards rect.cell[data-owner='{a}']",
                                     "els => els.map((e) => e.dataset.cell)") == owned
    assert page.locator(f"#ws-boards rect.cell[data-owner='{b}']").count() == 0
    assert page.locator(f"#ws-palette .piece.selected[data-piece='{b}']").count() == 1
    shot(page, tmp_path, "hostile-no-swap")
    # with nothing in hand (Esc drops it), clicking the placed piece picks it up: the way to move a piece
    page.keyboard.press("Escape")
    page.wait_for_selector("#ws-palette .piece.selected", state="detached")
    _cell(page, "4,0").click()
    page.wait_for_selector(f"#ws-palette .piece.selected[data-piece='{a}']")
    assert page.locator(f"#ws-boards rect.cell[data-owner='{a}']").count() == 0


def _hover(page, at: str) -> None:
    box = _cell(page, at).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _pixel(page, at: str) -> tuple:
    """The colour near the top middle of a cell (inside a ghost's outline, off its cross), as drawn."""
    import io

    from PIL import Image

    box = _cell(page, at).bounding_box()
    x, y = int(box["x"] + box["width"] * 0.5), int(box["y"] + box["height"] * 0.25)
    png = page.screenshot(clip={"x": x, "y": y, "width": 1, "height": 1})
    return Image.open(io.BytesIO(png)).convert("RGB").getpixel((0, 0))


def test_the_doesnt_fit_ghost_is_not_a_piece(page, served, tmp_path):
    url, _ = served
    page.goto(url + "/#workshop")
    page.wait_for_selector("#ws-boards svg rect.cell")
    names = _palette(page)
    _pick(page, names[0])
    _cell(page, "4,0").click()  # a placed piece, to compare with
    placed = _pixel(page, "4,0")
    _pick(page, names[1])
    _hover(page, "10,4")  # the bottom-right corner: any piece of more than one cell reaches past the board
    page.wait_for_selector("#ws-boards .ghost-bad")
    bad = page.eval_on_selector_all("#ws-boards rect.ghost-bad",
                                    "els => els.map((e) => [e.getAttribute('fill'), e.dataset.dash || "
                                    "e.getAttribute('stroke-dasharray')])")
    assert bad and all(fill == "none" and dash for fill, dash in bad), bad  # an outline, dashed: never filled
    assert page.locator("#ws-boards path.ghost").count() == len(bad)  # each crossed out
    shot(page, tmp_path, "hostile-ghost-bad")
    corner = _pixel(page, "10,4")
    colours = page.eval_on_selector_all("#ws-palette .piece rect",
                                        "els => [...new Set(els.map((e) => e.getAttribute('fill')))]")
    assert corner[0] > 200 and corner[1] > 200 and corner[2] > 200, corner  # the empty cell shows through
    assert abs(sum(corner) - sum(placed)) > 60, (corner, placed, colours)  # unlike the placed piece
    _hover(page, "0,3")  # left of the placed piece, two rows from the bottom: room for any piece of this set
    page.wait_for_selector("#ws-boards .ghost-bad", state="detached")
    good = page.eval_on_selector_all("#ws-boards rect.ghost", "els => els.map((e) => e.getAttribute('fill'))")
    assert good and set(good) == {"#2457c5"} and "#2457c5" not in colours  # a fitting ghost: one blue, no piece's
    shot(page, tmp_path, "hostile-ghost-good")


def test_a_replay_from_results_names_its_own_problem(page, served, tmp_path):
    url, _ = served
    from puzzlebatch.results.store import ResultsStore

    with ResultsStore(served[1].results_dir / "hex.h5", "r") as st:
        items = st.run(st.run_ids()[0]).items()
    pid, seed = int(items["problemId"][0]), int(items["seed"][0])
    page.goto(url + "/#replay")
    page.wait_for_selector("#rp-problem option", state="attached")
    other = next(v for v in page.eval_on_selector_all("#rp-problem option", "els => els.map((e) => e.value)")
                 if v != str(pid))
    page.select_option("#rp-problem", other)  # the toolbar shows another problem before the replay is opened
    page.goto(url + "/#results")
    page.click("#rs-files li")
    page.wait_for_selector("#rs-runs tr.selectable")
    page.locator("#rs-runs tr.selectable").first.click()
    page.wait_for_selector("#rs-drawing a")
    page.click("#rs-drawing a")
    wait_outcome(page, f"body[data-replay-loaded='{pid}:{seed}']", "#rp-message.error")  # the server replays it
    assert page.input_value("#rp-problem") == str(pid) and page.input_value("#rp-seed") == str(seed)
    assert page.input_value("#rp-source") == "results"  # not "reference solution", left from before
    assert page.inner_text("#rp-message").startswith(f"Problem {pid} seed {seed}")
    shot(page, tmp_path, "hostile-replay-from-results")
