"""The sliding family's descriptor."""

from puzzlebatch.registry import Family, Kernels, WebTask

FAMILY = Family(
    name="sliding",
    help="sliding puzzles (8/15/24-puzzle): BFS, IDA*, pattern databases",
    commands="puzzlebatch.cli.sliding.commands:register",
    api="puzzlebatch.api.sliding",
    records="puzzlebatch.runners.sliding.records",
    warmup="puzzlebatch.cli.sliding.commands:warmup_tasks",
    jobs="puzzlebatch.cli.jobfile:sliding_boards",
    web_warm="puzzlebatch.web.tasks:warm_sliding",
    web_tasks=(WebTask("solve", "puzzlebatch.web.sliding:solve_task", 300.0),),
    kernels=(Kernels("sliding", "puzzlebatch.cpu_fallback.sliding:drivers", "puzzlebatch.gpu_kernels.sliding:launcher",
                     ("bfs_expand_batch", "pdb_expand_batch", "ida_batch", "dfs_batch")),),
)
