"""puzzlebatch: batch search for combinatorial puzzles on CUDA GPUs and CPUs."""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("puzzlebatch")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"

__all__ = ["__version__"]
