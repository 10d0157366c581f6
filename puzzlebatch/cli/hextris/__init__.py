"""The ``puzzlebatch hextris`` commands: argparse in, the family's API out."""
