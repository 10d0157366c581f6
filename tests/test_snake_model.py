import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.snake.generate import boustrophedon, chain_of_path, random_chain
from puzzlebatch.puzzles.snake.model import SOURCE_CHAIN, Box, check_fits, default_box, is_valid_embedding, \
    parse_box, parse_chain


def test_letters_and_segments_are_the_same_chain():
    chain = parse_chain(SOURCE_CHAIN)
    assert chain.length == 27
    assert chain.segments() == [3, 2, 2, 3, 2, 3, 2, 2, 3, 3, 2, 2, 2, 3, 3, 3, 3]
    assert parse_chain("3,2,2,3,2,3,2,2,3,3,2,2,2,3,3,3,3") == chain
    assert parse_chain(" ffjj jfjjfjjjfjfjjjjfjfjfjff ") == chain  # case and spaces do not matter


def test_end_cube_types_do_not_matter_for_segments():
    assert parse_chain("JFJFJ").segments() == parse_chain("FFJFF").segments() == [3, 3]
    assert parse_chain("3,2").letters == "FFJF"


@pytest.mark.parametrize("text, words", [
    ("FFJX", "unexpected character 'X' at position 4"),
    ("3,1,2", "segment 2 has length 1"),
    ("", "empty"),
    ("F", "at least 2 cubes"),
    ("3,,2", "misplaced comma"),
    ("FJ3", "mixes letters and digits"),
])
def test_bad_chains_are_one_line_errors(text, words):
    with pytest.raises(PuzzleInputError) as err:
        parse_chain(text)
    assert words in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("text", ["3x3", "2x3x4", "4×4×4"])
def test_boxes(text):
    box = parse_box(text)
    assert box.volume == np.prod([int(v) for v in text.replace("×", "x").split("x")])


@pytest.mark.parametrize("text", ["3x0x3", "axb", "1x2x3x4", "-2x2x2"])
def test_bad_boxes(text):
    with pytest.raises(PuzzleInputError, match="box"):
        parse_box(text)


def test_default_box_and_fit_errors():
    assert default_box(parse_chain(SOURCE_CHAIN)) == Box(3, 3, 3)
    with pytest.raises(PuzzleInputError, match="not a cube number"):
        default_box(parse_chain("FFJJ"))
    with pytest.raises(PuzzleInputError, match="does not fill box 2x2x2"):
        check_fits(parse_chain(SOURCE_CHAIN), Box(2, 2, 2))
    with pytest.raises(PuzzleInputError, match="straight run of 4 cubes"):
        check_fits(parse_chain("4,2,2,2,2"), Box(2, 2, 2))


@pytest.mark.parametrize("dims, order", [((3, 3, 3), 48), ((2, 2, 3), 16), ((2, 3, 2), 16), ((2, 3, 4), 8),
                                         ((1, 1, 2), 2), ((3, 3, 1), 8), ((2, 2, 1), 8)])
def test_symmetry_groups(dims, order):
    perms = Box(*dims).symmetries()
    assert perms.shape == (order, np.prod(dims))
    # each row is a permutation, all rows distinct, and the set is closed under composition
    assert all(sorted(p) == list(range(np.prod(dims))) for p in perms)
    rows = {tuple(p) for p in perms}
    assert len(rows) == order
    assert all(tuple(p[q]) in rows for p in perms for q in perms)


@pytest.mark.parametrize("dims", [(2, 2, 2), (3, 3, 3), (2, 3, 4), (4, 4, 4), (1, 3, 5)])
def test_random_hamiltonian_paths_fold_by_construction(dims):
    box = Box(*dims)
    assert is_valid_embedding(chain_of_path(np.array(boustrophedon(box))), box,
                              box.index(*np.array(boustrophedon(box)).T))
    for seed in range(3):
        chain, path = random_chain(box, seed)
        assert chain.length == box.volume
        assert is_valid_embedding(chain, box, box.index(path[:, 0], path[:, 1], path[:, 2]))


def test_random_chains_are_reproducible_and_varied():
    box = Box(4, 4, 4)
    assert random_chain(box, 7)[0] == random_chain(box, 7)[0]
    assert len({random_chain(box, s)[0].letters for s in range(5)}) == 5


def test_is_valid_embedding_rejects_wrong_turns():
    chain = parse_chain("FJJJJJJF")
    box = Box(2, 2, 2)
    good = [box.index(x, y, z) for x, y, z in
            [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 0, 1), (0, 0, 1)]]
    assert is_valid_embedding(chain, box, np.array(good))
    assert not is_valid_embedding(parse_chain("FFJJJJJF"), box, np.array(good))  # straight at a turn
    assert not is_valid_embedding(chain, box, np.array(good[:-1] + [good[0]]))  # a cell twice
