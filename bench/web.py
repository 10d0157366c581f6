"""Bench of the web app in headless Chromium: a warm Solve of IQ Puzzler Pro levels, click to drawn, and the frame
times of the hex Tetris replay of problem 24's longest game (298,388 commands).

    python bench/web.py [--levels 7] [--speed 500] [--json FILE]

Needs the web extra (``pip install -e '.[web,test]'``) and a Chromium (Debian: ``apt-get install chromium``).
The server runs in this process (uvicorn in a thread, one warm worker process); the page measures itself: the
workshop stores the milliseconds from the Solve click to the solution drawn (``body[data-last-solve-ms]``), the
replay its frame intervals and drawing times (``window.replayFrameStats``). The first Solve may wait for the
worker's kernels (loaded from the compile cache, or compiled on a first run) and is reported apart.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WAIT_MS = 1_800_000


def start_server(results: Path):
    import uvicorn

    from puzzlebatch.web.app import create_app
    from puzzlebatch.web.jobs import JobManager

    jobs = JobManager(1, ("polyomino",), results).start()
    app = create_app(results, jobs=jobs)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not srv.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", srv, jobs


def solve_times(page, url: str, levels: int) -> list[float]:
    """Generate ``levels`` IQ levels (4 pieces left, seeds 0..) in the workshop and Solve each: click to drawn."""
    page.goto(url + "/#workshop")
    page.wait_for_selector("#ws-generate")
    times = []
    for seed in range(levels):
        page.fill("#ws-left", "4")
        page.fill("#ws-seed", str(seed))
        page.evaluate("delete document.body.dataset.lastSolveMs")
        page.click("#ws-generate")
        page.wait_for_selector("#ws-message.ok, #ws-message.error")
        page.wait_for_selector("#ws-solve:not([disabled])")
        page.click("#ws-solve")
        page.wait_for_selector("body[data-last-solve-ms]", state="attached")
        if page.locator("#ws-message.error").count():
            raise SystemExit(f"level {seed}: {page.inner_text('#ws-message')}")
        times.append(float(page.evaluate("document.body.dataset.lastSolveMs")))
    return times


def replay_stats(page, url: str, speed: int) -> dict:
    page.goto(url + "/#replay")
    page.wait_for_selector('#rp-problem option[value="24"]', state="attached")
    page.select_option("#rp-problem", "24")
    page.select_option("#rp-seed", "18")
    page.click("#rp-load")
    page.wait_for_selector('body[data-replay-loaded="24:18"]')
    page.select_option("#rp-speed", str(speed))
    page.click("#rp-play")
    page.wait_for_selector('body[data-replay-at-end="1"]')
    return page.evaluate("window.replayFrameStats")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", type=int, default=7, help="IQ levels solved (default 7; the first is reported apart)")
    ap.add_argument("--speed", type=int, default=500, help="replay commands per frame (default 500)")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    exe = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
    if exe is None:
        print("bench/web.py: no Chromium on this machine (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        url, srv, jobs = start_server(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.set_default_timeout(WAIT_MS)
                solves = solve_times(page, url, args.levels)
                frames = replay_stats(page, url, args.speed)
                browser.close()
        finally:
            srv.should_exit = True
            jobs.close()
    warm = solves[1:]
    doc = {"bench": "web", "load": os.getloadavg()[0], "first_solve_ms": solves[0], "warm_solve_ms": warm,
           "warm_solve_median_ms": statistics.median(warm) if warm else None, "replay": frames,
           "replay_speed": args.speed}
    print(f"load average {doc['load']:.2f}")
    print(f"IQ Puzzler Pro Solve, click to drawn: first {solves[0]:.0f} ms; warm median "
          f"{doc['warm_solve_median_ms']:.0f} ms (max {max(warm):.0f} ms) over {len(warm)} levels")
    print(f"replay of problem 24 seed 18 at {args.speed} commands a frame: {frames['frames']} frames, interval "
          f"median {frames['median_ms']:.1f} ms ({1000 / frames['median_ms']:.0f}/s), p95 {frames['p95_ms']:.1f} ms, "
          f"max {frames['max_ms']:.1f} ms, {frames['over_20ms']} over 20 ms; drawing median "
          f"{frames['draw_median_ms']:.2f} ms, p95 {frames['draw_p95_ms']:.2f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
