"""Connector cubes: reading cube sets and figures, the 24 rotations, assembly checks."""

from pathlib import Path

import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.cubes import model
from tests.reference import cubes_oracle

SHARED = Path("/work/shared/data/connector_cubes/cubes.txt")


# Cubes as the seed document prints them after its runs (its figures 6 and 7: "cubes avec leur faces"), faces in
# the data's order as they lay in the document's assemblies.
DOC_PRINTED = {5: [4, -4, -2, -1, 1, -2], 25: [2, 4, -4, 2, -4, -3], 3: [-4, 2, -2, -4, 3, 4],
               15: [-4, -4, 3, -1, 4, -3], 20: [1, -3, 3, -2, 4, -4], 10: [-2, 1, 3, 4, 2, 2],
               6: [1, -2, -4, -1, 4, 4], 19: [-4, -3, -1, 4, -1, 4], 4: [-1, 1, 4, 2, -4, -3]}


def test_default_set_is_the_documents_27_cubes():
    cubes = model.load_cubes()
    assert sorted(cubes.numbers) == list(range(1, 28))
    assert cubes.faces.shape == (27, 6)


def test_every_cube_the_document_prints_is_a_proper_rotation_of_its_file_line():
    # External check of the face order and of the rotation tables: the document's printouts were produced by its
    # own rotation code from the same file.
    cubes = model.load_cubes()
    for number, printed in DOC_PRINTED.items():
        own = cubes.faces[cubes.index_of(number)]
        assert [r for r in range(24) if model.rotated_faces(own, r).tolist() == printed], number


def test_the_documents_printed_answers_break_the_compatibility_rule():
    # Figure 6 (2x2x1) and figure 7 (3x2x1) of the document, its matrix figure[x][y][z]: under the data's rule
    # (touching faces sum to 0) both have clashing neighbours, so its GA never built them (its compatibility test
    # compared the wrong cubes).  Our solver builds both (tests/test_cubes_search.py).
    cubes = model.load_cubes()
    for matrix in ([[[5], [25]], [[3], [15]]], [[[20], [10]], [[6], [19]], [[4], [25]]]):
        cells, placements = [], []
        for x, row in enumerate(matrix):
            for y, col in enumerate(row):
                for z, n in enumerate(col):
                    own = cubes.faces[cubes.index_of(n)]
                    r = next(r for r in range(24) if model.rotated_faces(own, r).tolist() == DOC_PRINTED[n])
                    cells.append((x, y, z))
                    placements.append((n, r))
        fig = model.Figure.from_cells(cells, "doc")
        order = [cells.index(tuple(c)) for c in fig.cells.tolist()]
        assert "clash" in model.check_assembly(fig, cubes, [placements[i] for i in order])


@pytest.mark.skipif(not SHARED.exists(), reason="shared data not on this machine")
def test_packaged_copy_equals_shared_data():
    assert model.parse_cubes(SHARED.read_text()).to_text() == model.load_cubes().to_text()


def test_rotations_are_the_24_proper_ones_and_match_the_oracle():
    assert len(model.ROTATIONS) == 24
    assert all(round(np.linalg.det(r)) == 1 for r in model.ROTATIONS)
    assert len({tuple(r.ravel()) for r in model.ROTATIONS}) == 24
    ours = {tuple(map(tuple, r.tolist())) for r in model.ROTATIONS}
    assert ours == set(cubes_oracle.rotations())
    # Face tables agree with the oracle's dictionary turning, on every cube and rotation.
    faces = model.load_cubes().faces
    for r, m in enumerate(model.ROTATIONS):
        t = cubes_oracle.turned(dict(zip(cubes_oracle.DIRS, faces[3].tolist())), tuple(map(tuple, m.tolist())))
        assert [t[d] for d in cubes_oracle.DIRS] == model.rotated_faces(faces[3], r).tolist()
    # Composition table: COMPOSE[g, r] is the matrix product.
    for g in range(24):
        for r in range(24):
            assert (model.ROTATIONS[model.COMPOSE[g, r]] == model.ROTATIONS[g] @ model.ROTATIONS[r]).all()
    # Four rotations keep each face in place (the quarter turns about its axis).
    for d in range(6):
        assert sum(model.FACE_FROM[r, d] == d for r in range(24)) == 4


@pytest.mark.parametrize("text, fragment", [
    ("1;1,2,3,4,-1\n", "line 1: cube 1 has 5 faces"),
    ("1;1,2,3,4,-1,-2\n2;1,2,3,4,5,-2\n", "line 2: cube 2 has face value 5"),
    ("1;1,2,3,4,-1,-2\n\n1;1,2,3,4,-1,-2\n", "line 3: cube number 1 already used on line 1"),
    ("1;1,2,0,4,-1,-2\n", "face value 0"),
    ("1,1,2,3,4,-1,-2\n", "line 1: expected NUMBER;F0"),
    ("1;1,2,x,4,-1,-2\n", "line 1: face values must be integers"),
    ("", "no cube found"),
])
def test_bad_cube_files_are_one_line_errors(text, fragment):
    with pytest.raises(PuzzleInputError) as exc:
        model.parse_cubes(text, "my.txt")
    assert fragment in str(exc.value) and "\n" not in str(exc.value) and "my.txt" in str(exc.value)


def test_placeholder_line_of_the_document_is_skipped():
    cs = model.parse_cubes("0;0,0,0,0,0,0\n7;-2,-3,-2,1,-3,2\n")
    assert cs.numbers == (7,)


def test_figures_boxes_and_voxel_files(tmp_path):
    f = model.parse_figure("3x2x1")
    assert f.n_cells == 6 and f.dims == (3, 2, 1)
    assert model.parse_figure("2x2").n_cells == 4
    p = tmp_path / "t.txt"
    p.write_text("% a T of four cubes, then one on top\n###\n.#.\n\n.#.\n")
    t = model.parse_figure(str(p))
    assert t.n_cells == 5 and t.dims == (3, 2, 2)
    assert len(model.box(3, 3, 3).symmetries()) == 24
    assert len(model.box(2, 2, 1).symmetries()) == 8
    assert len(model.box(3, 2, 1).symmetries()) == 4
    # The T with a cube on its centre has one non-trivial rotation: x -> -x swapping y and z (det +1).
    assert len(t.symmetries()) == 2
    p.write_text("#x#\n")
    with pytest.raises(PuzzleInputError, match=r"line 1, column 2: unexpected 'x'"):
        model.parse_figure(str(p))
    with pytest.raises(PuzzleInputError, match="neither a box"):
        model.parse_figure("nowhere.txt")
    with pytest.raises(PuzzleInputError, match="28 cells but the cube set has only 27"):
        model.check_fits(model.box(7, 4, 1), model.load_cubes())


def test_check_assembly_finds_a_clash():
    cubes = model.load_cubes()
    f = model.box(2, 1, 1)
    # Cube 20 shows -4 on +X; cube 7 unturned shows -3 on -X: a clash.
    assert "clash" in model.check_assembly(f, cubes, [(20, 0), (7, 0)])
    assert model.check_assembly(f, cubes, [(20, 0), (20, 0)]) == "a cube is used twice"
