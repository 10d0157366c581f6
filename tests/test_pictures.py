"""Pictures of a folded snake cube (puzzlebatch.results.pictures)."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from puzzlebatch.results.pictures import draw_snake

FOLD_333 = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [2, 1, 0], [1, 1, 0], [1, 1, 1], [1, 1, 2], [1, 2, 2], [1, 2, 1],
            [1, 2, 0], [2, 2, 0], [2, 2, 1], [2, 1, 1], [2, 0, 1], [1, 0, 1], [0, 0, 1], [0, 1, 1], [0, 1, 0],
            [0, 2, 0], [0, 2, 1], [0, 2, 2], [0, 1, 2], [0, 0, 2], [1, 0, 2], [2, 0, 2], [2, 1, 2], [2, 2, 2]]
FOLD_222 = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 1, 1], [1, 1, 1], [1, 0, 1], [0, 0, 1]])
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _check_png(path):
    import matplotlib.image

    assert path.is_file()
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    img = matplotlib.image.imread(path)
    assert img.ndim == 3 and img.shape[2] in (3, 4)
    height, width = img.shape[:2]
    assert 400 <= height <= 3000 and 600 <= width <= 4000
    assert width > height  # 3D view beside the layers
    assert img[..., :3].std() > 0.05  # not a blank canvas


def _svg_texts(path):
    root = ET.parse(path).getroot()
    assert root.tag.rsplit("}", 1)[-1] == "svg"
    return {"".join(el.itertext()).strip() for el in root.iter() if el.tag.rsplit("}", 1)[-1] == "text"}


@pytest.mark.parametrize("cells, dims", [(FOLD_222, (2, 2, 2)), (FOLD_333, (3, 3, 3))], ids=["2x2x2", "3x3x3"])
def test_png(tmp_path, cells, dims):
    from puzzlebatch.errors import PuzzleInputError

    with pytest.raises(PuzzleInputError, match="directory .*sub does not exist"):  # no folder made for it
        draw_snake(cells, dims, tmp_path / "sub" / "snake.png", title="a snake")
    (tmp_path / "sub").mkdir()
    out = draw_snake(cells, dims, tmp_path / "sub" / "snake.png", title="a snake")
    assert out == tmp_path / "sub" / "snake.png"
    _check_png(out)


def test_svg_333(tmp_path):
    out = draw_snake(np.array(FOLD_333), (3, 3, 3), str(tmp_path / "snake.svg"), title="3x3x3 fold")
    assert out == tmp_path / "snake.svg"
    texts = _svg_texts(out)
    assert {str(k) for k in range(1, 28)} <= texts  # every cube is numbered in the layers
    assert {"N", "3x3x3 fold", "layer z = 0", "layer z = 2"} <= texts


def test_svg_222(tmp_path):
    texts = _svg_texts(draw_snake(FOLD_222.tolist(), (2, 2, 2), tmp_path / "s.SVG"))
    assert {"1", "8", "N"} <= texts


def test_partial_chain_and_flat_box(tmp_path):
    _check_png(draw_snake(FOLD_333[:10], (3, 3, 3), tmp_path / "partial.png"))
    _check_png(draw_snake([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], (2, 2, 1), tmp_path / "flat.png"))


@pytest.mark.parametrize("name", ["snake.pdf", "snake.jpg", "snake"])
def test_bad_suffix(tmp_path, name):
    suffix = name.partition(".")[2]
    with pytest.raises(ValueError, match=f"'.{suffix}'" if suffix else "none") as info:
        draw_snake(FOLD_333, (3, 3, 3), tmp_path / name)
    assert "\n" not in str(info.value)
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize("cells", [[], [1, 2, 3], [[0, 0], [1, 0]], np.zeros((4, 3, 1), int), [[0, 0, 0, 0]]],
                         ids=["empty", "flat", "two-columns", "3d-array", "four-columns"])
def test_bad_shape(tmp_path, cells):
    with pytest.raises(ValueError, match=r"\(N, 3\)"):
        draw_snake(cells, (3, 3, 3), tmp_path / "x.png")


@pytest.mark.parametrize("cells, dims, match", [
    ([[0, 0, 0], [3, 0, 0]], (3, 3, 3), "outside"),
    ([[0, 0, 0], [0, 0, -1]], (3, 3, 3), "outside"),
    ([[0, 0, 0], [1, 0, 0], [0, 0, 0]], (3, 3, 3), "cube 3 .* shares"),
    ([[0, 0, 0.5]], (3, 3, 3), "integers"),
    ([[0, 0, 0]], (3, 3), "dims"),
    ([[0, 0, 0]], (3, 0, 3), "dims"),
])
def test_bad_cells_or_dims(tmp_path, cells, dims, match):
    with pytest.raises(ValueError, match=match):
        draw_snake(cells, dims, tmp_path / "x.png")


def test_import_is_cheap():
    code = ("import sys, puzzlebatch.results.pictures; "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported eagerly'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_backend_untouched(tmp_path):
    import matplotlib

    before = (matplotlib.rcParams["backend"], matplotlib.rcParams["svg.fonttype"])
    draw_snake(FOLD_222, (2, 2, 2), tmp_path / "b.svg")
    assert (matplotlib.rcParams["backend"], matplotlib.rcParams["svg.fonttype"]) == before
