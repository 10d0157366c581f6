"""What the cubes verbs share on the command line: their inputs, common options and text renderings (used by
:mod:`.commands` and :mod:`.ga`)."""

from __future__ import annotations


from puzzlebatch.cli.options import add_backend_argument


def cube_inputs(args):
    """The figure and the cube set named by ``--figure`` and ``--cubes``, checked to fit."""
    from puzzlebatch.api.cubes import problem_of

    return problem_of(args.figure, args.cubes)


def layers_text(assembly: list[dict]) -> str:
    """The assembly layer by layer (:func:`puzzlebatch.runners.cubes.records.layers_text`, imported when used)."""
    from puzzlebatch.runners.cubes import records

    return records.layers_text(assembly)


def assembly_lines(assembly: list[dict]) -> list[str]:
    """One line a cube (:func:`puzzlebatch.runners.cubes.records.assembly_lines`, imported when used)."""
    from puzzlebatch.runners.cubes import records

    return records.assembly_lines(assembly)


def add_common(p) -> None:
    """``--figure``, ``--cubes``, ``--json`` and ``--backend``: the options of every cubes verb."""
    p.add_argument("--figure", required=True,
                   help="a box LxWxH (length x width x height, e.g. 3x3x3) or a voxel file of layers ('#' filled)")
    p.add_argument("--cubes", metavar="FILE",
                   help="cube set, one cube a line NUMBER;F0,...,F5 (default: the 27 cubes of the document)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    add_backend_argument(p)
