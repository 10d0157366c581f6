"""The ``puzzlebatch cubes`` commands: argparse in, the family's API out."""
