"""The ``puzzlebatch polyomino`` commands: argparse in, the family's API out."""
