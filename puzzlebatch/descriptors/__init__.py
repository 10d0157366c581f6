"""The package's own families, one descriptor module each (:data:`FAMILY`); :mod:`puzzlebatch.registry` finds them
by scanning this folder.  A family's name is written in its descriptor and nowhere else."""
