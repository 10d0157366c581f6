"""The cubes family's descriptor."""

from puzzlebatch.registry import Family

FAMILY = Family(
    name="cubes",
    help="connector cubes: build figures from cubes with male/female connectors",
    commands="puzzlebatch.cli.cubes.commands:register",
    api="puzzlebatch.api.cubes",
    records="puzzlebatch.runners.cubes.records",
    warmup="puzzlebatch.cli.cubes.commands:warmup_tasks",
)
