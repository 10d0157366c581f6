"""The hextris family's descriptor."""

from puzzlebatch.registry import Family, Kernels, WebTask

FAMILY = Family(
    name="hextris",
    help="hex Tetris (ICFP 2015): score solutions, show games, play",
    commands="puzzlebatch.cli.hextris.commands:register",
    api="puzzlebatch.api.hextris",
    records="puzzlebatch.runners.hextris.records",
    warmup="puzzlebatch.cli.hextris.commands:warmup_tasks",
    jobs="puzzlebatch.cli.jobfile:hextris_problems",
    web_warm="puzzlebatch.web.tasks:warm_hextris",
    web_tasks=(WebTask("replay", "puzzlebatch.web.hextris:replay_task", 120.0),),
    kernels=(Kernels("hextris", "puzzlebatch.cpu_fallback.hextris:drivers", "puzzlebatch.gpu_kernels.hextris:launcher",
                     ("init_batch", "commands_batch", "policy_batch", "placements_batch", "lockable_batch")),),
)
