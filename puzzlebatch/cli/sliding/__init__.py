"""The ``puzzlebatch sliding`` commands: argparse in, the family's API out."""
