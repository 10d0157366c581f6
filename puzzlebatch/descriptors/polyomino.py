"""The polyomino family's descriptor."""

from puzzlebatch.registry import Family, Kernels, WebTask

FAMILY = Family(
    name="polyomino",
    help="pack polyominoes and polycubes: solve, count, enumerate, levels, DLX",
    commands="puzzlebatch.cli.polyomino.commands:register",
    api="puzzlebatch.api.polyomino",
    records="puzzlebatch.runners.polyomino.records",
    warmup="puzzlebatch.cli.polyomino.commands:warmup_tasks",
    jobs="puzzlebatch.cli.jobfile:polyomino_cuts",
    web_warm="puzzlebatch.web.tasks:warm_polyomino",
    web_tasks=(WebTask("solve", "puzzlebatch.web.polyomino:solve_task", 60.0),
               WebTask("count", "puzzlebatch.web.polyomino:count_task", 600.0),
               WebTask("generate", "puzzlebatch.web.polyomino:generate_task", 120.0)),
    kernels=(Kernels("strip", "puzzlebatch.cpu_fallback.polyomino_strip:drivers",
                     "puzzlebatch.gpu_kernels.polyomino_strip:launcher", ("run_steps",)),),
)
