"""Tunable launch settings.  Tests shrink them so that small batches span several CUDA blocks.

On a real GPU the block count comes from the device and each kernel's registers
(:mod:`puzzlebatch.gpu_kernels.geometry`); these numbers are the threads per block it starts from and the cap, and
the whole geometry without a GPU (the simulator)."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass
class LaunchConfig:
    threads_per_block: int = int(os.environ.get("PUZZLEBATCH_THREADS_PER_BLOCK", "128"))
    max_blocks: int = int(os.environ.get("PUZZLEBATCH_MAX_BLOCKS", "65535"))

    def blocks_for(self, n_items: int) -> int:
        return max(1, min(self.max_blocks, -(-n_items // self.threads_per_block)))


launch = LaunchConfig()
