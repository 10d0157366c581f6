"""The snake family's descriptor."""

from puzzlebatch.registry import Family

FAMILY = Family(
    name="snake",
    help="snake cubes: fold a chain of straight and corner cubes into a box",
    commands="puzzlebatch.cli.snake.commands:register",
    api="puzzlebatch.api.snake",
    records="puzzlebatch.runners.snake.records",
    warmup="puzzlebatch.cli.snake.commands:warmup_tasks",
    jobs="puzzlebatch.cli.jobfile:snake_chains",
)
