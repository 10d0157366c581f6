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


def test_a_replaced_function_is_what_every_caller_gets_and_has_its_own_cache(monkeypatch, tmp_path):
    # jit.unit(..., replace={name: other}): a kernel's own version of a rule (the warp-wide candidate scan)
    monkeypatch.setenv("PUZZLEBATCH_CACHE_DIR", str(tmp_path))
    mod = types.ModuleType("replaced_rules_for_test")
    mod.__file__ = __file__
    exec("def pick(x):\n    return x + 1\n\n\ndef other_pick(x):\n    return x + 100\n\n\n"
         "def caller(x):\n    return pick(x) * 2\n", mod.__dict__)
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    plain = jit.unit("replace-test", "cpu", rules=[mod])
    swapped = jit.unit("replace-test", "cpu", rules=[mod], replace={"pick": "other_pick"})
    assert plain is not swapped and plain.folder != swapped.folder
    assert plain.caller(1) == 4 and swapped.caller(1) == 202 and swapped.pick(1) == 101
    assert mod.caller(1) == 4  # the plain module is untouched
