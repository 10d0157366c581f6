"""The ``puzzlebatch snake`` commands: argparse in, the family's API out."""
