"""Transfer accounting: bytes moved host -> device and device -> host, and kernel launches, per run.

Every GPU-capable command reports them (``h2d_bytes``, ``d2h_bytes``, ``launches`` in its JSON document and its
HDF5 run), whatever the backend: the CUDA launchers count what their device session moves
(:mod:`puzzlebatch.gpu_kernels.device`); on the CPU nothing moves and :class:`CountingDrivers` counts the launches
of the ``prange`` drivers, so the two backends' figures sit side by side.
"""

from __future__ import annotations

from dataclasses import dataclass

KEYS = ("h2d_bytes", "d2h_bytes", "launches")


@dataclass
class Transfers:
    """Bytes copied host -> device and device -> host, and kernel launches.

    Count with :meth:`h2d`, :meth:`d2h` and :meth:`launch`: they also add to this process's totals, from which a
    command (:func:`command_transfers`) and a results-store run (:func:`since`) take their share.
    """

    h2d_bytes: int = 0
    d2h_bytes: int = 0
    launches: int = 0

    def h2d(self, nbytes: int) -> None:
        self.h2d_bytes += int(nbytes)
        PROCESS.h2d_bytes += int(nbytes)

    def d2h(self, nbytes: int) -> None:
        self.d2h_bytes += int(nbytes)
        PROCESS.d2h_bytes += int(nbytes)

    def launch(self, n: int = 1) -> None:
        self.launches += n
        PROCESS.launches += n

    def to_json(self) -> dict:
        return {"h2d_bytes": int(self.h2d_bytes), "d2h_bytes": int(self.d2h_bytes), "launches": int(self.launches)}

    def copy(self) -> "Transfers":
        return Transfers(self.h2d_bytes, self.d2h_bytes, self.launches)

    def __add__(self, other: "Transfers") -> "Transfers":
        return Transfers(self.h2d_bytes + other.h2d_bytes, self.d2h_bytes + other.d2h_bytes,
                         self.launches + other.launches)

    def __sub__(self, other: "Transfers") -> "Transfers":
        return Transfers(self.h2d_bytes - other.h2d_bytes, self.d2h_bytes - other.d2h_bytes,
                         self.launches - other.launches)


#: everything this process moved and launched (only the methods above add to it)
PROCESS = Transfers()
_command_starts: list[dict] = []  # a stack: a command may run others in process (a job file, ``warmup``)


def snapshot() -> dict:
    """This process's totals now (take the difference later with :func:`since`)."""
    return PROCESS.to_json()


def since(start: dict) -> dict:
    """What this process moved and launched since ``start`` (a :func:`snapshot`)."""
    now = PROCESS.to_json()
    return {k: now[k] - int(start.get(k, 0)) for k in KEYS}


def start_command() -> None:
    """Start counting a command (the command line calls it first; :func:`end_command` when it is done).
    Commands run by a command get their own count, on top."""
    _command_starts.append(snapshot())


def end_command() -> None:
    if _command_starts:
        _command_starts.pop()


def command_transfers() -> dict:
    """What the current command moved and launched so far (this process so far, without a command)."""
    return since(_command_starts[-1] if _command_starts else zero())


def zero() -> dict:
    return dict.fromkeys(KEYS, 0)


def add(a: dict, b: dict) -> dict:
    """Two transfer documents added up."""
    return {k: int(a.get(k, 0)) + int(b.get(k, 0)) for k in KEYS}


class CountingDrivers:
    """A CPU compile unit whose batch drivers (the names in ``counted``) count their calls as launches; every
    other attribute is the unit's."""

    def __init__(self, drivers, counted: tuple[str, ...]) -> None:
        self._drivers = drivers
        self._counted = frozenset(counted)
        self.transfers = Transfers()

    def __getattr__(self, name: str):
        if name.startswith("_"):  # not set yet (unpickling): no recursion
            raise AttributeError(name)
        fn = getattr(self._drivers, name)
        if name not in self._counted:
            return fn

        def counted(*args):
            self.transfers.launch()
            return fn(*args)

        return counted


def transfers_of(drivers) -> dict:
    """The transfer document of a launcher (CUDA) or of :class:`CountingDrivers` (CPU); zeros otherwise."""
    t = getattr(drivers, "transfers", None)
    return t.to_json() if isinstance(t, Transfers) else zero()
