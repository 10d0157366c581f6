"""Pictures tell the truth about colours and carry a legend: IQ Puzzler Pro's pieces are drawn in the colour they
are named after, and every drawing function labels what its colours and marks mean."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.results import colours as C

# The named colours of IQ Puzzler Pro's pieces, as sRGB (the CSS values of these keywords), written out here
# independently of the package's table.
IQ_RGB = {"blue": (0, 0, 255), "pink": (255, 192, 203), "cyan": (0, 255, 255), "orange": (255, 165, 0),
          "purple": (128, 0, 128), "yellow": (255, 255, 0), "crimson": (220, 20, 60), "green": (0, 128, 0),
          "red": (255, 0, 0), "olive": (128, 128, 0), "darkblue": (0, 0, 139), "skyblue": (135, 206, 235)}

# A solution of the 11x5 board, one letter per piece in the set's order (A = blue ... L = skyblue).
IQ_SOLUTION = """\
AAADGGEEHHH
ABDDDGGEEHI
ABDFFFFJEJI
BBCCFLKJJJI
BCCCLLKKKII
"""


def _iq_packing():
    pk = P.build(P.parse_board("11x5"), S.named_set("iq-puzzler-pro"))
    cells: dict[int, list] = {}
    for y, line in enumerate(IQ_SOLUTION.splitlines()):
        for x, ch in enumerate(line):
            cells.setdefault(pk.glyphs.index(ch), []).append((x, y))
    placements = [(k, np.array(c)) for k, c in sorted(cells.items())]
    P.validate(pk, placements)
    return pk, placements


def _svg_texts(path) -> list[str]:
    root = ET.parse(path).getroot()
    return ["".join(el.itertext()) for el in root.iter() if el.tag.rsplit("}", 1)[-1] == "text"]


def _has(texts: list[str], words: str) -> bool:
    """Some text element holds ``words`` (spaces and line breaks compared loosely)."""
    want = " ".join(words.split())
    return any(want in " ".join(t.split()) for t in texts)


# -- the colour table -------------------------------------------------------------------------------------------
def test_iq_piece_colours_are_their_names():
    names = [p.name for p in S.named_set("iq-puzzler-pro")]
    assert sorted(names) == sorted(IQ_RGB)
    got = [C.rgb(c) for c in C.piece_colours(names)]
    assert got == [IQ_RGB[n] for n in names]
    assert len(set(got)) == len(got)


def test_named_table_is_css():
    from matplotlib.colors import CSS4_COLORS

    assert C.NAMED_COLOURS == {k: v.lower() for k, v in CSS4_COLORS.items()}
    assert C.colour_of_name("light-blue") == C.colour_of_name("Light Blue") == CSS4_COLORS["lightblue"].lower()
    assert C.colour_of_name("F") is None and C.colour_of_name("H01") is None


def test_unnamed_pieces_get_distinct_palette_colours_away_from_named_ones():
    pento = C.piece_colours(p.name for p in S.named_set("pentominoes"))
    assert len(set(pento)) == 12 and set(pento) <= set(C.PALETTE)
    mixed = C.piece_colours(["red", "X", "Y", "skyblue"])
    assert mixed[0] == "#ff0000" and mixed[3] == "#87ceeb"
    for c in mixed[1:3]:
        assert min(np.linalg.norm(np.subtract(C.rgb(c), C.rgb(n))) for n in ("#ff0000", "#87ceeb")) >= 60
    # the palette's colours are told apart (no two near-duplicates)
    rgbs = np.array([C.rgb(c) for c in C.PALETTE], float)
    dist = np.linalg.norm(rgbs[:, None] - rgbs[None], axis=2) + np.eye(len(rgbs)) * 1e9
    assert dist.min() >= 50


def test_web_palette_is_the_pictures_palette():
    js = (Path(C.__file__).parents[1] / "web" / "static" / "js" / "api.js").read_text(encoding="utf-8")
    body = re.search(r"const PALETTE = \[(.*?)\];", js, re.S).group(1)
    assert tuple(re.findall(r'"(#[0-9a-f]{6})"', body)) == C.PALETTE


def test_web_set_info_sends_the_table_colours():
    from puzzlebatch.web.polyomino import set_info

    info = set_info({"pieces": "iq-puzzler-pro"})
    assert {p["name"]: C.rgb(p["colour"]) for p in info["pieces"]} == IQ_RGB


# -- polyomino packings ------------------------------------------------------------------------------------------
def test_iq_png_cells_are_drawn_in_their_names_colour(tmp_path):
    import matplotlib.image
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from puzzlebatch.results.pictures import draw_packing, packing_figure

    pk, placements = _iq_packing()
    png = draw_packing(pk, placements, tmp_path / "iq.png")
    img = matplotlib.image.imread(png)[..., :3]
    # the same figure, laid out the same way, tells where each board cell lands in the PNG
    fig, axes, legend = packing_figure(pk, placements)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    assert img.shape[:2] == canvas.buffer_rgba().shape[:2]
    height = img.shape[0]
    for k, cells in placements:
        name = pk.pieces[k].name
        for x, y in cells[:2]:
            for fx, fy in ((0.2, 0.2), (0.8, 0.8)):  # away from the letter in the middle and the outlines
                px, py = axes[0].transData.transform((x + fx, y + fy))
                pixel = np.round(img[int(height - py), int(px)] * 255).astype(int)
                assert np.abs(pixel - IQ_RGB[name]).max() <= 2, (name, (x, y), pixel)
    assert [(g, n) for g, n, _ in legend] == [(g, p.name) for g, p in zip(pk.glyphs, pk.pieces)]
    assert all(C.rgb(c) == IQ_RGB[n] for _, n, c in legend)


def test_packing_svg_legend_names_every_piece(tmp_path):
    from puzzlebatch.results.pictures import draw_packing

    pk, placements = _iq_packing()
    texts = _svg_texts(draw_packing(pk, placements, tmp_path / "iq.svg", title="an IQ solution"))
    for g, p in zip(pk.glyphs, pk.pieces):
        assert _has(texts, f"{g} {p.name}"), p.name
    assert texts.count("A") == 5 and texts.count("L") == 3  # each cell carries its piece's letter
    assert "an IQ solution" in texts


def test_packing_legend_marks_level_pieces_and_holes(tmp_path):
    from puzzlebatch.results.pictures import draw_packing, packing_figure

    board = P.parse_board_text("DD.\n...\n#..\n")  # a level: a domino placed, one hole
    pieces = S.with_options(S.named_set("dominoes"), True, None, None)
    pk = P.build(board, pieces)
    placements = [(0, np.array([(0, 1), (1, 1)])), (0, np.array([(2, 0), (2, 1)])), (0, np.array([(1, 2), (2, 2)]))]
    P.validate(pk, placements)
    _, _, legend = packing_figure(pk, placements)
    assert legend == [("D", "D", C.PALETTE[0])]
    texts = _svg_texts(draw_packing(pk, placements, tmp_path / "level.svg"))
    assert {"D", "hole", "placed in the level"} <= set(texts)


def test_soma_layers_and_legend(tmp_path):
    from puzzlebatch.results.pictures import draw_packing

    pk = P.build(P.parse_board("3x3x3"), S.named_set("soma"))
    layers = ["VLL VVL TZL", "PAA TAB TZZ", "PPA PBB TBZ"]  # z = 0, 1, 2; rows y = 0, 1, 2
    cells: dict[int, list] = {}
    for z, layer in enumerate(layers):
        for y, row in enumerate(layer.split()):
            for x, ch in enumerate(row):
                cells.setdefault(pk.glyphs.index(ch), []).append((x, y, z))
    placements = [(k, np.array(c)) for k, c in sorted(cells.items())]
    P.validate(pk, placements)
    texts = _svg_texts(draw_packing(pk, placements, tmp_path / "soma.svg"))
    assert {"z = 0", "z = 1", "z = 2"} <= set(texts)
    for name in "VLTZABP":
        assert texts.count(name) == 1 + (3 if name == "V" else 4)  # the legend entry, then one per cell


# -- the other families ------------------------------------------------------------------------------------------
def test_snake_legend(tmp_path):
    from puzzlebatch.results.pictures import draw_snake

    fold = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 1, 1], [1, 1, 1], [1, 0, 1], [0, 0, 1]]
    texts = _svg_texts(draw_snake(fold, (2, 2, 2), tmp_path / "snake.svg"))
    assert {"cube 1 (start)", "cube N (end)", "the chain, cube to cube"} <= set(texts)
    assert _has(texts, "position along the chain (cube 1 … N)")
    assert {str(k) for k in range(1, 9)} <= set(texts)


def test_cubes_legend_and_colours(tmp_path):
    from puzzlebatch.results.cubes_pictures import assembly_figure, draw_assembly

    faces = [1, -2, 3, -4, 2, -1]
    assembly = [{"cell": [x, y, z], "cube": n, "faces": faces}
                for n, (x, y, z) in zip((3, 17, 5, 26), ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 1)))]
    _, legend = assembly_figure(assembly)
    assert legend == [(n, C.PALETTE[n % len(C.PALETTE)]) for n in (3, 5, 17, 26)]  # the web's pieceColour("", n)
    texts = _svg_texts(draw_assembly(assembly, tmp_path / "cubes.svg", title="four cubes"))
    assert {"cube 3", "cube 5", "cube 17", "cube 26", "layer z=0", "layer z=1", "four cubes"} <= set(texts)
    assert _has(texts, "-Y at the bottom edge, +Y at the top, -X left, +X right")
    assert _has(texts, "+ a male connector, - a female one")


def test_sliding_numbers_and_key(tmp_path):
    from puzzlebatch.puzzles.sliding.model import Board, replay
    from puzzlebatch.results.sliding_pictures import draw_path

    moves = [7, 8]
    boards = replay(Board(3, 3, (1, 2, 3, 4, 5, 6, 0, 7, 8)), moves)
    texts = _svg_texts(draw_path(boards, tmp_path / "path.svg", moves=moves, title="two moves"))
    assert all(texts.count(str(t)) >= 3 for t in range(1, 9))  # every tile numbered on every board
    assert {"start", "1: 7", "2: 8", "two moves"} <= set(texts)
    assert _has(texts, "tile colour: its row in the goal (the blank last)")
    assert _has(texts, "bold outline: the tile just moved; title k: t = move k slides tile t")


def test_hextris_legend_and_caption(tmp_path):
    from puzzlebatch.results.hextris_pictures import LEGEND, Frame, draw_animation, draw_board

    frame = Frame({(0, 4), (1, 4), (2, 4)}, {(2, 0), (3, 0)}, (2, 0), "units 3  move score 42")
    texts = _svg_texts(draw_board(6, 5, frame, tmp_path / "board.svg", initial={(0, 4)}))
    assert [name for name, _ in LEGEND] == ["empty", "full from the start", "locked", "current unit", "pivot"]
    assert {name for name, _ in LEGEND} | {"units 3  move score 42"} <= set(texts)
    # the PNG shows the legend too: its swatches' colours appear under the board (the bottom 0.45 inch, 100 dpi)
    import matplotlib.image

    png = draw_board(6, 5, frame, tmp_path / "board.png", initial={(0, 4)})
    img = np.round(matplotlib.image.imread(png)[..., :3] * 255).astype(int)
    bottom = img[-45:]
    for _, colour in LEGEND[1:4]:
        assert (np.abs(bottom - C.rgb(colour)).max(axis=2) <= 2).sum() >= 20, colour
    gif = draw_animation(6, 5, [frame, frame], tmp_path / "game.gif", initial={(0, 4)})
    assert gif.read_bytes()[:3] == b"GIF"
