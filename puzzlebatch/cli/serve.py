"""``puzzlebatch serve``: the local web app (level workshop, hex Tetris replay, sliding puzzles, results)."""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

from puzzlebatch.errors import PuzzleInputError


def run(args) -> int:
    try:
        import uvicorn

        from puzzlebatch.web.app import LOCAL_HOSTS, create_app
    except ImportError as exc:
        raise PuzzleInputError(f"serve needs the web extra ({exc.name} is missing): "
                               "pip install 'puzzlebatch[web]'") from None
    if args.workers < 1 or args.workers > 16:
        raise PuzzleInputError(f"--workers {args.workers}: must be between 1 and 16")
    results = Path(args.results)
    if results.exists() and not results.is_dir():
        raise PuzzleInputError(f"--results {args.results}: not a folder")
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        sock.close()
        raise PuzzleInputError(f"--host {args.host} --port {args.port}: cannot listen ({exc.strerror or exc})") \
            from None
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    hosts = None if args.host in ("0.0.0.0", "::") else tuple(dict.fromkeys(LOCAL_HOSTS + (args.host, shown)))
    warm = tuple(w.strip() for w in args.warm.split(",") if w.strip()) if args.warm else ()
    from puzzlebatch import registry

    warmable = [f.name for f in registry.families() if f.web_warm]
    for w in warm:
        if w not in warmable:
            raise PuzzleInputError(f"--warm: {w!r} is not one of {', '.join(warmable)}")
    app = create_app(results, workers=args.workers, warm=warm, allowed_hosts=hosts)
    url = f"http://{shown if args.host not in ('0.0.0.0', '::') else '127.0.0.1'}:{port}/"
    print(f"puzzlebatch serve: {url}  (results: {results}/, {args.workers} worker process"
          f"{'es' if args.workers > 1 else ''}; Ctrl-C stops)", flush=True)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"puzzlebatch serve: listening on {args.host}: anyone who can reach this machine can use it",
              file=sys.stderr)
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    if args.open:
        import webbrowser

        def opener():
            while not server.started and not server.should_exit:
                threading.Event().wait(0.05)
            if server.started:
                webbrowser.open(url)

        threading.Thread(target=opener, daemon=True).start()
    server.run(sockets=[sock])
    return 0


def _port(text: str) -> int:
    """A TCP port number, 0..65535 (argparse turns the ValueError into a one-line usage error)."""
    import argparse

    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0 to 65535; 0 picks a free one)")
    return port


def register(sub) -> None:
    p = sub.add_parser("serve", help="the web app: build and solve levels, replay hex Tetris, sliding puzzles, "
                                     "browse results (needs the web extra)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=_port, default=8765, help="port (default 8765; 0 picks a free one)")
    p.add_argument("--results", default="results", metavar="DIR",
                   help="the results folder to browse (default results/); nothing outside it is served")
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    p.add_argument("--workers", type=int, default=2, help="worker processes for solves, counts and replays (default 2)")
    p.add_argument("--warm", default="polyomino", metavar="FAMILIES",
                   help="kernels each worker compiles at start, comma-separated: polyomino, sliding (default "
                        "polyomino; others compile on first use)")
    p.set_defaults(func=run)
