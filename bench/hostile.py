"""A broad hostile-input probe: hundreds of bad inputs over every verb, file format and the web API, each outcome
classified, the totals printed by outcome (for bench/RESULTS.md)::

    python bench/hostile.py                        # every case, 2 at a time (about 10 minutes on 2 cores)
    python bench/hostile.py --limit 50 --jobs 1    # a quick look
    python bench/hostile.py --json hostile.json    # also every case's outcome

The cases come from generators, one per class of input: numbers out of range or not numbers, sizes too large or
malformed, input files that are missing, folders, empty, binary, not UTF-8, a device that never ends, a line of
5 MB or a nesting bomb; output names that are empty, folders, in a missing folder; job files whose outputs point
outside their folder; results files that are not results files; and web requests with bad bodies, sizes and paths.
Every case is one that puzzlebatch must refuse: one line on stderr and exit status 2 (a web request: a 4xx answer
with an ``error``, and the server still answering ``/api/health``).

Each command runs in its own temporary folder (``case/``) beside a folder ``outside/``, under ``timeout`` and
``prlimit --as``.  Outcomes:

``ok``          refused as promised (one line on stderr, exit 2; a 4xx answer with its one-line error)
``traceback``   a Python traceback, an exit status other than 0..3, or a 5xx answer
``hang``        still running at the time limit
``memory``      ran out of the ``prlimit`` address space (an allocation failure said or a kill), or the server died
``escape``      a file appeared or changed in ``outside/`` (or a device/link was replaced)
``silent``      accepted (exit 0, or a 2xx answer)
``unclear``     refused, but not in one line (exit 2 with several lines, or exit 1)
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBLEM_1 = ROOT / "puzzlebatch" / "data" / "icfp2015" / "problems" / "problem_1.json"
PY = sys.executable

# -- hostile values by class ------------------------------------------------------------------------------------
BAD_POSITIVE = ["-1", "0", "abc", "", " ", "1.5", "1e3", "0x10", "nan", "9223372036854775808",
                "99999999999999999999999999"]
BAD_SEED = ["-1", "abc", "", "1.5", "nan", "-99999999999999999999"]
BAD_SECONDS = ["-1", "0", "abc", "", "nan", "inf", "-inf", "1e999"]
BAD_CHECKPOINT = ["-1", "abc", "", "nan", "inf", "-inf", "1e999"]  # 0: after every launch
BAD_PROBABILITY = ["-0.1", "1.5", "abc", "", "nan", "inf"]
BAD_BOX = ["", "x", "0x0x0", "-3x3x3", "3x3x3x3", "axbxc", "100000x100000x100000", "99999999999x2x2",
           "3x3x0", "1e3x1x1"]
BAD_BOARD = ["", "x", "0x0", "-3x3", "3x", "axb", "100000x100000", "99999999999x9", "6x0", "3x3x3x3"]
BAD_SCHEDULER = ["", "local:0", "local:-1", "local:abc", "local:100000", "tcp://localhost:abc", "tcp://:99999999"]
BAD_OUT = ["", "dir.h5/", "nodir/x.h5", "{case}/adir"]


def infiles(case: Path, wanted=None) -> dict[str, str]:
    """Hostile input files, made in the case's folder (name -> path; only those in ``wanted`` if given)."""
    made = {}
    for name, data in (("empty.txt", b""), ("binary.bin", bytes(range(256)) * 8), ("latin1.txt", b"\xff\xfe caf\xe9\n"),
                       ("longline.txt", b"x" * 5_000_000), ("nest.json", b"[" * 100_000 + b"]" * 100_000),
                       ("nul.txt", b"\x00" * 1000)):
        if wanted is not None and name not in wanted:
            continue
        p = case / name
        p.write_bytes(data)
        made[name] = str(p)
    (case / "adir").mkdir(exist_ok=True)
    made["adir"] = str(case / "adir")
    made["missing"] = str(case / "missing.txt")
    made["dev-zero"] = "/dev/zero"
    return made


def cli_cases() -> list[dict]:
    """(argv template, what it tests): {case} is the case's folder, {in:NAME} a hostile input file."""
    cases = []

    def family(base: list[str], options: dict[str, list[str]], infile_options=(), positional_files=False,
               outs=("--out",)):
        for opt, values in options.items():
            for v in values:
                cases.append({"argv": base + [f"{opt}={v}" if v.startswith("-") else opt, *([] if v.startswith("-")
                                                                                         else [v])],
                              "what": f"{' '.join(base[:2])} {opt} {v!r}"})
        for opt in infile_options:
            for name in ("empty.txt", "binary.bin", "latin1.txt", "longline.txt", "nest.json", "nul.txt", "adir",
                         "missing", "dev-zero"):
                cases.append({"argv": base + [opt, "{in:" + name + "}"], "what": f"{' '.join(base[:2])} {opt} "
                                                                                   f"<{name}>"})
        if positional_files:
            for name in ("empty.txt", "binary.bin", "latin1.txt", "longline.txt", "nest.json", "nul.txt", "adir",
                         "missing", "dev-zero"):
                cases.append({"argv": base + ["{in:" + name + "}"], "what": f"{' '.join(base[:2])} <{name}>"})
        for opt in outs:
            for v in BAD_OUT:
                cases.append({"argv": base + [opt, v], "what": f"{' '.join(base[:2])} {opt} {v!r}"})

    search = {"--budget": BAD_POSITIVE, "--batch-size": BAD_POSITIVE, "--frontier": BAD_POSITIVE}
    count = {**search, "--checkpoint-every": BAD_CHECKPOINT, "--max-batches": BAD_POSITIVE[:-2],
             "--scheduler": BAD_SCHEDULER, "--item-seconds": BAD_SECONDS}
    family(["snake", "solve", "3,2,3,2,3", "--box", "3x3x1"], {**search, "--box": BAD_BOX})
    family(["snake", "count", "3,2,3,2,3", "--box", "3x3x1"], {**count, "--box": BAD_BOX})
    family(["snake", "generate", "--box", "2x2x2"], {"--box": BAD_BOX + ["100x100x100", "1000x1000x1"],
                                                      "--seed": BAD_SEED, "--count": BAD_POSITIVE}, outs=())
    for chain in ["", "FXJ", "3,0,3", "3,-2,3", "F" * 10_000, "3,99999999999", "1", "a,b"]:
        cases.append({"argv": ["snake", "count", chain], "what": f"snake count chain {chain[:20]!r}"})
    family(["cubes", "solve", "--figure", "2x2x2"], {**search, "--figure": BAD_BOX}, infile_options=("--cubes",),
           outs=("--out", "--png"))
    family(["cubes", "count", "--figure", "2x2x1"], {**count, "--figure": BAD_BOX}, infile_options=("--cubes",))
    family(["cubes", "ga", "--figure", "2x2x2", "--generations", "1", "--population", "4"],
           {"--population": BAD_POSITIVE, "--generations": BAD_POSITIVE[:-2], "--seed": BAD_SEED,
            "--mutation": BAD_PROBABILITY})
    family(["polyomino", "solve", "--board", "4x5", "--pieces", "tetrominoes"],
           {**search, "--board": BAD_BOARD, "--copies": BAD_POSITIVE, "--seed": BAD_SEED,
            "--time-limit": BAD_SECONDS},
           infile_options=("--level",), outs=("--out", "--png", "--text"))
    for pieces in ["", "nosuchset", "pentominoes+", "+", "heptominoes"]:
        cases.append({"argv": ["polyomino", "solve", "--board", "6x10", "--pieces", pieces],
                      "what": f"polyomino solve --pieces {pieces!r}"})
    for name in ("empty.txt", "binary.bin", "latin1.txt", "longline.txt", "nul.txt", "adir", "dev-zero"):
        cases.append({"argv": ["polyomino", "solve", "--board", "{in:" + name + "}", "--pieces", "dominoes",
                               "--unlimited"], "what": f"polyomino solve --board <{name}>"})
        cases.append({"argv": ["polyomino", "solve", "--board", "4x4", "--pieces", "{in:" + name + "}"],
                      "what": f"polyomino solve --pieces <{name}>"})
    for h in ["a,b", "0", "-1", "100", "1000000", ","]:
        cases.append({"argv": ["polyomino", "solve", "--board", "8x8", "--pieces", "dominoes", "--unlimited",
                               "--method", "band", f"--band-heights={h}"], "what": f"--band-heights {h!r}"})
    cases.append({"argv": ["polyomino", "solve", "--board", "6x10", "--pieces", "pentominoes", "--copies", "2",
                           "--unlimited"], "what": "--copies with --unlimited"})
    cases.append({"argv": ["polyomino", "solve", "--pieces", "iq-puzzler-pro"], "what": "solve without --board"})
    family(["polyomino", "count", "--board", "4x4", "--pieces", "dominoes", "--unlimited"],
           {**count, "--board": BAD_BOARD})
    family(["polyomino", "levels", "generate", "--pieces", "iq-puzzler-pro"],
           {"--count": BAD_POSITIVE + ["1000000000"], "--difficulty": BAD_POSITIVE, "--seed": BAD_SEED,
            "--out-dir": ["", "{case}/nodir/x"]}, outs=())
    family(["polyomino", "generate", "--random-cut", "6x6", "--text", "{case}/p.txt"],
           {"--random-cut": BAD_BOARD, "--sizes": ["", "0-3", "5-2", "a-b", "-1-4", "1-99999999999"],
            "--seed": BAD_SEED}, outs=("--text",))
    for name in ("empty.txt", "binary.bin", "latin1.txt", "adir", "missing", "dev-zero"):  # (any words: items)
        cases.append({"argv": ["polyomino", "dlx", "solve", "{in:" + name + "}"], "what": f"dlx solve <{name}>"})
    family(["polyomino", "dlx", "export", "--board", "4x4", "--pieces", "dominoes", "--unlimited"],
           {"--board": BAD_BOARD}, outs=("--text",))
    family(["hextris", "show", "1"], {"--seed": BAD_SEED, "--fps": BAD_POSITIVE[:-2],
                                      "--max-frames": BAD_POSITIVE[:-2]},
           infile_options=("--phrases",), outs=("--png", "--gif"))
    family(["hextris", "play", "1", "-t", "1"], {"--seed": BAD_SEED, "--beam": BAD_POSITIVE,
                                                 "--keep": BAD_POSITIVE, "-t": BAD_SECONDS,
                                                 "--checkpoint-every": BAD_CHECKPOINT},
           infile_options=("--phrases", "--weights"), outs=("--out",))
    cases.append({"argv": ["hextris", "play", "1", "-p", "ei!" * 40_000], "what": "hextris play -p of 120,000 "
                                                                                  "characters"})
    family(["hextris", "tune", "--generations", "1", "--population", "2", "--problems", "1"],
           {"--problems": ["5-1", "", "a", "25", "-1", "0-99999999999", "1,,2"], "--generations": BAD_POSITIVE,
            "--population": BAD_POSITIVE, "--p-major": BAD_PROBABILITY, "--seed": BAD_SEED},
           outs=("--out", "--png", "--save-weights"))
    for name in ("empty.txt", "binary.bin", "latin1.txt", "longline.txt", "nest.json", "nul.txt", "adir", "missing",
                 "dev-zero"):
        cases.append({"argv": ["hextris", "score", "{in:" + name + "}", "{in:empty.txt}"],
                      "what": f"hextris score problem <{name}>"})
        cases.append({"argv": ["hextris", "score", "1", "{in:" + name + "}"], "what": f"hextris score solutions "
                                                                                      f"<{name}>"})
    family(["sliding", "bfs", "2x3"], {"--max-layers": BAD_POSITIVE[:-2], "--checkpoint-every": BAD_CHECKPOINT},
           outs=("--out",))
    for size in BAD_BOARD + ["1x1", "1x2", "7x7", "100x100"]:
        cases.append({"argv": ["sliding", "bfs", size], "what": f"sliding bfs {size!r}"})
    for tiles in ["", "1 2 3", "1 2 3 4 5 6 7 8 8", "a b c d e f g h i", "0 1 2 3 4 5 6 7 99",
                  " ".join(map(str, range(10_000)))]:
        cases.append({"argv": ["sliding", "solve", tiles], "what": f"sliding solve {tiles[:20]!r}"})
    for name in ("empty.txt", "binary.bin", "latin1.txt", "longline.txt", "nul.txt", "adir", "missing",
                 "dev-zero"):
        cases.append({"argv": ["sliding", "solve", "--file", "{in:" + name + "}"],
                      "what": f"sliding solve --file <{name}>"})
        cases.append({"argv": ["show", "{in:" + name + "}"], "what": f"show <{name}>"})
        cases.append({"argv": ["run", "{in:" + name + "}", "--dry-run"], "what": f"run <{name}>"})
    return cases


def job_cases() -> list[dict]:
    """Job files whose outputs leave their folder, or that are malformed."""
    bodies = {
        "absolute out-dir": 'family = "snake"\nverb = "count"\nout-dir = "{outside}"\n[instances]\n'
                            'chain = ["3,2,3,2,3"]\n[options]\nbox = "3x3x1"\n',
        "out-dir ../": 'family = "snake"\nverb = "count"\n[options]\nbox = "3x3x1"\nout-dir = "../outside/x"\n'
                       '[instances]\nchain = ["3,2,3,2,3"]\n',
        "png ../": 'family = "polyomino"\nverb = "solve"\n[options]\npieces = "dominoes"\nunlimited = true\n'
                   'png = "../outside/x.png"\n[instances]\nboard = ["4x4"]\n',
        "png list ../": 'family = "polyomino"\nverb = "solve"\n[options]\npieces = "dominoes"\nunlimited = true\n'
                        '[instances]\nboard = ["4x4"]\npng = ["../outside/x.png"]\n',
        "out absolute": 'family = "snake"\nverb = "count"\nout = "{outside}/x.h5"\n[options]\nbox = "3x3x1"\n'
                        '[instances]\nchain = ["3,2,3,2,3"]\n',
        "instance smuggles an option": 'family = "snake"\nverb = "count"\n[options]\nbox = "3x3x1"\n'
                                       '[instances]\nchain = ["--out={outside}/x.h5"]\n',
        "unknown verb": 'family = "snake"\nverb = "nosuch"\n',
        "unknown family": 'family = "nosuch"\nverb = "count"\n',
        "not toml": 'family = "snake\n',
        "spaces header": ('family = "snake"\nverb = "count"\nx = "[' + " " * 4000
                          + '"\n[instances]\nchain = ["3,2,3"]\n'),
        "nesting bomb": "a = " + "[" * 5000 + "]" * 5000 + "\n",
        "dotted keys": "\n".join(f"a.b{i}.c = 1" for i in range(20_000)) + "\n",
        "huge instances": 'family = "snake"\nverb = "generate"\n[instances]\nseed = {range}\n',
        "count in instances": 'family = "snake"\nverb = "generate"\n[options]\ncount = 1000000000\n'
                              '[instances]\nseed = [1]\n',
    }
    cases = []
    for what, body in bodies.items():
        for flags in ([], ["--dry-run"]):
            cases.append({"job": body, "argv": ["run", "{case}/job.toml", *flags], "what": f"job: {what} {flags}"})
    return cases


def h5_cases() -> list[dict]:
    """Results files that are not results files, or damaged ones."""
    cases = []
    for kind in ("not-hdf5", "empty-hdf5", "runs-a-dataset", "negative-committed", "external-link", "huge-box"):
        for argv in (["show", "{h5}"], ["show", "{h5}", "--json"], ["show", "{h5}", "--run", "snake-count-0000"],
                     ["show", "{h5}", "--run", "snake-count-0000", "--solution", "0"],
                     ["snake", "count", "3,2,3,2,3", "--box", "3x3x1", "--out", "{h5}", "--resume"]):
            cases.append({"h5": kind, "argv": argv, "what": f"{' '.join(argv[:1])} of a {kind} file"})
    return cases


def make_h5(kind: str, path: Path, outside: Path) -> None:
    import h5py
    import numpy as np

    if kind == "not-hdf5":
        path.write_bytes(b"\x89HDF\r\n" + os.urandom(4000))
        return
    with h5py.File(path, "w") as f:
        if kind == "runs-a-dataset":
            f["runs"] = np.zeros(3)
        elif kind == "negative-committed":
            g = f.create_group("runs/snake-count-0000")
            g.attrs["n_committed"] = -5
            g.attrs["params"] = "{}"
        elif kind == "external-link":
            with h5py.File(outside / "ext.h5", "w") as e:
                e["items"] = np.zeros(3)
            g = f.create_group("runs/snake-count-0000")
            g["items"] = h5py.ExternalLink(str(outside / "ext.h5"), "/items")
        elif kind == "huge-box":
            g = f.create_group("runs/snake-count-0000")
            g.attrs["params"] = json.dumps({"box": "1000x1000x400", "chain": "F" * 8})
            g.attrs["n_committed"] = 1


# -- running one case -----------------------------------------------------------------------------------------------
def snapshot(folder: Path) -> dict[str, tuple[int, float]]:
    out = {}
    for p in folder.rglob("*"):
        try:
            st = p.lstat()
        except OSError:
            continue
        out[str(p)] = (st.st_size, st.st_mtime)
    return out


def devices() -> dict[str, tuple]:
    out = {}
    for p in ("/dev/null", "/dev/full", "/dev/zero", "/dev/stdout"):
        try:
            st = os.lstat(p)
            out[p] = (st.st_mode, st.st_ino)
        except OSError:
            pass
    return out


def classify(rc: int, err: str, out: str) -> str:
    if rc in (124, -9, 137) or rc == -15:
        return "hang" if rc in (124, -15) else "memory"
    if "Traceback (most recent call last)" in err or "Segmentation fault" in err or rc not in (0, 1, 2, 3, 130):
        return "traceback"
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("compiling ")]
    if "out of memory" in err or "MemoryError" in err:
        return "memory"
    if rc == 0:
        return "silent"
    if rc == 2 and len(lines) == 1:
        return "ok"
    return "unclear"


def run_cli(case: dict, timeout: float, memory: int, sandbox: Path) -> dict:
    top = Path(tempfile.mkdtemp(dir=sandbox))
    work, outside = top / "case", top / "outside"
    work.mkdir()
    outside.mkdir()
    files = infiles(work, {a[4:-1] for a in case["argv"] if a.startswith("{in:")})
    if "job" in case:
        body = case["job"].replace("{outside}", str(outside)).replace("{range}", str(list(range(1_100_000))))
        (work / "job.toml").write_text(body)
    h5 = None
    if "h5" in case:
        h5 = work / "r.h5"
        make_h5(case["h5"], h5, outside)
    argv = []
    for a in case["argv"]:
        a = a.replace("{case}", str(work)).replace("{h5}", str(h5))
        if a.startswith("{in:"):
            a = files[a[4:-1]]
        argv.append(a)
    before, dev_before = snapshot(outside), devices()
    t0 = time.monotonic()
    if FORK:
        rc, err, out = run_forked(argv, work, timeout, memory)
    else:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        try:
            proc = subprocess.run(["timeout", "-k", "5", str(timeout), "prlimit", f"--as={memory}", PY, "-m",
                                   "puzzlebatch", *argv], cwd=work, capture_output=True, env=env,
                                  stdin=subprocess.DEVNULL, timeout=timeout + 30)
            rc, err, out = proc.returncode, proc.stderr.decode(errors="replace"), proc.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired:
            rc, err, out = 124, "", ""
    seconds = time.monotonic() - t0
    outcome = classify(rc, err, out)
    if snapshot(outside) != before or devices() != dev_before:
        outcome = "escape"
    shutil.rmtree(top, ignore_errors=True)
    last = [ln for ln in err.strip().splitlines() if ln][-1:] or [""]
    return {"what": case["what"], "outcome": outcome, "rc": rc, "seconds": round(seconds, 2),
            "stderr": last[0][:300]}


FORK = True  # each case in a child forked from a worker that imported puzzlebatch once (--spawn: a new process)


def run_forked(argv: list[str], work: Path, timeout: float, memory: int) -> tuple[int, str, str]:
    """``puzzlebatch ARGV`` in a forked child: its own folder, ``RLIMIT_AS`` (what ``prlimit --as`` sets) and an
    alarm at ``timeout`` (exit status 124 as ``timeout`` gives; SIGKILL 5 s later).  Called in a single-threaded
    pool worker, so that forking is safe."""
    import resource
    import signal

    out_path, err_path = work / ".stdout", work / ".stderr"
    pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            os.chdir(work)
            fd_in = os.open(os.devnull, os.O_RDONLY)
            fd_out = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            fd_err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd_in, 0)
            os.dup2(fd_out, 1)
            os.dup2(fd_err, 2)
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            signal.signal(signal.SIGALRM, lambda *a: os._exit(124))
            signal.alarm(max(1, int(timeout)))
            from puzzlebatch.cli import main as cli_main

            code = cli_main(argv)
        except BaseException:  # noqa: BLE001 - what escapes main is what the probe looks for
            import traceback

            traceback.print_exc()
            code = 1
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code if isinstance(code, int) else 1)
    deadline = time.monotonic() + timeout + 5
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            status = 124 << 8
            break
        time.sleep(0.02)
    rc = os.waitstatus_to_exitcode(status)
    read = lambda p: p.read_text(errors="replace") if p.exists() else ""  # noqa: E731
    return rc, read(err_path), read(out_path)


def _pool_run(args):
    return run_cli(*args)


# -- the web API ----------------------------------------------------------------------------------------------------
def web_cases() -> list[dict]:
    cases = []
    big = 10**9
    for body in [{"board": "x"}, {"board": "100000x100000", "pieces": "dominoes"},
                 {"board": "4x4", "pieces": "nosuch"}, {"board": "4x4", "pieces": "dominoes", "copies": big},
                 {"board": "4x4", "pieces": "dominoes", "copies": -1}, {"board": "", "pieces": ""},
                 {"board": "4x4", "pieces": "dominoes", "unlimited": "maybe"}, {"board": ["4x4"], "pieces": 3},
                 {"board": "9" * 5000, "pieces": "dominoes"}]:
        for ep in ("/api/polyomino/check", "/api/polyomino/solve", "/api/polyomino/count",
                   "/api/polyomino/generate", "/api/polyomino/export", "/api/polyomino/pieces"):
            cases.append({"method": "POST", "path": ep, "body": body, "what": f"POST {ep} {json.dumps(body)[:60]}"})
    for body in [{"tiles": "x"}, {"tiles": [1, 2, 3]}, {"tiles": list(range(10_000))},
                 {"tiles": [0, 1, 2, 3, 4, 5, 6, 7, 7]}, {"size": "100x100", "moves": big},
                 {"size": "3x3", "moves": -1}, {"size": "", "moves": 3}]:
        for ep in ("/api/sliding/check", "/api/sliding/shuffle", "/api/sliding/solve"):
            cases.append({"method": "POST", "path": ep, "body": body, "what": f"POST {ep} {json.dumps(body)[:60]}"})
    for body in [{"problem": 99}, {"problem": -1}, {"problem": 1, "seed": -1}, {"problem": 1, "commands": "\x00"},
                 {"problem": {"width": 10**6, "height": 10**6}}, {"problem": 1, "commands": "a" * 2_000_000}]:
        cases.append({"method": "POST", "path": "/api/hextris/replay", "body": body,
                      "what": f"POST replay {json.dumps(body)[:60]}"})
    for path in ["/api/results/file?path=../../etc/passwd", "/api/results/file?path=/etc/passwd",
                 "/api/results/file?path=%2e%2e/%2e%2e/etc/passwd", "/api/results/file?path=nosuch.h5",
                 "/api/results/items?path=r.h5&run=x&start=-1", "/api/results/items?path=r.h5&run=x&count=999999999",
                 "/api/results/solution?path=r.h5&run=snake-count-0000&row=-1",
                 "/api/results/solution?path=bigbox.h5&run=snake-count-0000&row=0",
                 "/api/results/solution?path=link.h5&run=snake-count-0000&row=0",
                 "/api/results/items.csv?path=../x.h5&run=a", "/api/hextris/problems/99", "/api/hextris/problems/-1",
                 "/api/hextris/problems/abc", "/api/jobs/nosuch", "/api/jobs/../../etc", "/api/jobs/nosuch/events"]:
        cases.append({"method": "GET", "path": path, "what": f"GET {path}"})
    for raw in [b"", b"{", b"[]", b"null", b"\xff\xfe", b"{" * 100_000 + b"}" * 100_000, b'{"board": ' + b"9" * 100_000
                + b"}"]:
        for ep in ("/api/polyomino/check", "/api/sliding/check", "/api/hextris/replay"):
            cases.append({"method": "POST", "path": ep, "raw": raw, "what": f"POST {ep} raw {raw[:12]!r}"})
    return cases


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port: int, case: dict, timeout: float) -> tuple[int, str]:
    data = None
    if case["method"] == "POST":
        data = case["raw"] if "raw" in case else json.dumps(case["body"]).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{case['path']}", data=data, method=case["method"],
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read(2000).decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(2000).decode(errors="replace")


def run_web(cases: list[dict], timeout: float, memory: int, sandbox: Path) -> list[dict]:
    top = Path(tempfile.mkdtemp(dir=sandbox))
    results_dir, outside = top / "results", top / "outside"
    results_dir.mkdir()
    outside.mkdir()
    make_h5("huge-box", results_dir / "bigbox.h5", outside)
    make_h5("external-link", results_dir / "link.h5", outside)
    port = free_port()
    log = open(top / "serve.log", "wb")
    server = subprocess.Popen(["prlimit", f"--as={memory}", PY, "-m", "puzzlebatch", "serve", "--port", str(port),
                               "--results", str(results_dir), "--workers", "1"], stdout=log, stderr=subprocess.STDOUT,
                              cwd=top)
    out = []
    try:
        for _ in range(120):
            try:
                request(port, {"method": "GET", "path": "/api/health"}, 2)
                break
            except OSError:
                time.sleep(0.5)
        before = snapshot(outside)
        for case in cases:
            t0 = time.monotonic()
            try:
                status, body = request(port, case, timeout)
            except (TimeoutError, socket.timeout):
                status, body = -1, ""
            except OSError as exc:
                status, body = -2, str(exc)
            if status == -1:
                outcome = "hang"
            elif status == -2:
                outcome = "memory"  # the server is gone
            elif status >= 500:
                outcome = "traceback"
            elif status < 400:
                outcome = "silent"
            else:
                outcome = "ok" if '"error"' in body or '"detail"' in body else "unclear"
            if case["method"] == "POST" and status == 202:
                outcome = job_outcome(port, body, timeout)
            if snapshot(outside) != before:
                outcome = "escape"
            try:
                request(port, {"method": "GET", "path": "/api/health"}, 10)
            except OSError:
                outcome = "memory" if outcome == "ok" else outcome
            out.append({"what": case["what"], "outcome": outcome, "rc": status,
                        "seconds": round(time.monotonic() - t0, 2), "stderr": body[:300]})
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        shutil.rmtree(top, ignore_errors=True)
    return out


def job_outcome(port: int, body: str, timeout: float) -> str:
    """A job was accepted: it must end in a one-line error (ok), not in a crash or run past the limit."""
    try:
        job = json.loads(body)["id"]
    except (ValueError, KeyError, TypeError):
        return "unclear"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, text = request(port, {"method": "GET", "path": f"/api/jobs/{job}"}, timeout)
        try:
            doc = json.loads(text)
        except ValueError:
            return "unclear"
        state = doc.get("state") or doc.get("status")
        if state in ("error", "failed"):
            err = str(doc.get("error", ""))
            return "traceback" if "Traceback" in err else "ok"
        if state in ("done", "finished", "cancelled"):
            return "silent"
        time.sleep(0.3)
    return "hang"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2, help="cases run at a time (default 2)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds a case may run (default 30)")
    ap.add_argument("--memory", type=int, default=3 << 30, help="prlimit --as bytes per process (default 3 GiB)")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N command-line cases")
    ap.add_argument("--no-web", action="store_true", help="leave out the web API")
    ap.add_argument("--json", help="write every case's outcome here")
    ap.add_argument("--spawn", action="store_true", help="start every case as a new process under timeout and "
                                                         "prlimit (slower: one import each)")
    args = ap.parse_args(argv)
    global FORK
    FORK = not args.spawn
    cases = cli_cases() + job_cases() + h5_cases()
    if args.limit:
        cases = cases[: args.limit]
    web = [] if args.no_web else web_cases()
    print(f"{len(cases)} command-line cases, {len(web)} web requests; {args.jobs} at a time; load "
          f"{os.getloadavg()[0]:.2f}", flush=True)
    sandbox = Path(tempfile.mkdtemp(prefix="puzzlebatch-hostile-"))
    results = []
    t0 = time.monotonic()
    try:
        if FORK:
            import multiprocessing

            import importlib

            for name in ("puzzlebatch.cli", "puzzlebatch.cli.app", "numpy", "numba", "h5py", "puzzlebatch.api.snake",
                         "puzzlebatch.api.polyomino", "puzzlebatch.api.cubes", "puzzlebatch.api.hextris",
                         "puzzlebatch.api.sliding", "puzzlebatch.cli.jobfile"):
                importlib.import_module(name)  # once, before the workers fork: every case starts warm
            from puzzlebatch.cli.app import build_parser

            build_parser()

            pool = multiprocessing.get_context("fork").Pool(args.jobs, maxtasksperchild=200)
            mapped = pool.imap(_pool_run, [(c, args.timeout, args.memory, sandbox) for c in cases])
        else:
            pool = cf.ThreadPoolExecutor(args.jobs)
            mapped = pool.map(lambda c: run_cli(c, args.timeout, args.memory, sandbox), cases)
        for k, r in enumerate(mapped, 1):
            results.append(r)
            if r["outcome"] != "ok":
                print(f"  {r['outcome']:9} {r['what'][:90]} (exit {r['rc']}): {r['stderr'][:160]}", flush=True)
            if k % 100 == 0:
                print(f"{k} done, {time.monotonic() - t0:.0f} s", flush=True)
        if FORK:
            pool.close()
            pool.join()
        else:
            pool.shutdown()
        if web:
            for r in run_web(web, args.timeout, args.memory, sandbox):
                results.append(r)
                if r["outcome"] != "ok":
                    print(f"  {r['outcome']:9} {r['what'][:90]} ({r['rc']}): {r['stderr'][:160]}", flush=True)
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)
    totals = collections.Counter(r["outcome"] for r in results)
    print(f"{len(results)} inputs in {time.monotonic() - t0:.0f} s (load {os.getloadavg()[0]:.2f}):")
    for k in ("ok", "traceback", "hang", "memory", "escape", "silent", "unclear"):
        print(f"  {k:10} {totals.get(k, 0)}")
    if args.json:
        Path(args.json).write_text(json.dumps({"totals": totals, "cases": results}, indent=1))
    return 0 if totals.get("ok", 0) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
