"""A process's compile units are keyed by the code they compile, not by module names: rules edited and reloaded
in a notebook get a unit of their own (and the old unit is never handed out for the new code)."""

from __future__ import annotations

import sys
import types

from puzzlebatch import jit

SOURCE = '''
def n_choices(state, depth, tables):
    return {choices}


def apply(state, depth, choice, tables):
    state[depth] = choice
    return True


def undo(state, depth, choice, tables):
    state[depth] = 0
'''


def _module(choices: int) -> types.ModuleType:
    mod = types.ModuleType("reloaded_rules_for_test")
    mod.__file__ = __file__  # its source file for the disk cache key (this file)
    exec(SOURCE.format(choices=choices), mod.__dict__)
    return mod


def test_the_same_code_shares_a_unit_and_new_code_gets_its_own(monkeypatch):
    from puzzlebatch.cpu_fallback.search import search_unit

    first = _module(2)
    monkeypatch.setitem(sys.modules, first.__name__, first)
    a, b = search_unit(first), search_unit(first)
    assert a is b  # built once per process
    again = _module(2)  # reloaded, the same code
    monkeypatch.setitem(sys.modules, again.__name__, again)
    assert search_unit(again).key == a.key
    edited = _module(3)  # reloaded with other code, under the same name
    monkeypatch.setitem(sys.modules, edited.__name__, edited)
    c = search_unit(edited)
    assert c is not a and c.key != a.key and c.folder != a.folder
    assert isinstance(c, jit.Unit)
