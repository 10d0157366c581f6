"""Tunable launch settings.  Tests shrink them so that small batches span several CUDA blocks."""

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
