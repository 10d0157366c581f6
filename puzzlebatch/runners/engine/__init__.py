"""The family-independent engine: backend choice, the batch DFS and its frontier, launches of bounded length,
counts that checkpoint and resume, pools of workers (this process or Dask), progress.  No argparse here."""
