"""The compiled engine's constants are declared once: a changed Python declaration fails the import.

C needs the action ids, the card counts, the seat limit, the phases and the decisions at compile time,
so ``engine/_table.pxd`` repeats them; ``_table.pyx`` compares each with its Python declaration
(``game/actions.py``, ``game/cards.py``, ``game/rules.py``, ``engine/types.py``) when imported. Here a
fresh interpreter changes one Python declaration before the compiled engine is imported, as an edit of
``actions.py`` without a rebuild would, and the import must fail naming it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from newmarket_env.engine.choice import compiled_available
from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER
from newmarket_env.game import actions, cards
from newmarket_env.game.rules import MAX_PLAYERS

needs_compiled = pytest.mark.skipif(not compiled_available(), reason="the compiled engine is not built")

CHANGE_THEN_IMPORT = textwrap.dedent("""
    import importlib.abc, importlib.machinery, sys
    module, name, value = sys.argv[1], sys.argv[2], int(sys.argv[3])

    class Edited(importlib.abc.MetaPathFinder):
        # As if the file were edited: the module is loaded as usual, then the name set, before any
        # other module (the compiled engine among them) reads it.
        def find_spec(self, fullname, path, target=None):
            if fullname != module:
                return None
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            run = spec.loader.exec_module

            def exec_module(loaded):
                run(loaded)
                setattr(loaded, name, value)

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, Edited())
    try:
        import newmarket_env.engine._table
    except ImportError as err:
        print("ImportError:", err)
    else:
        print("imported")
""")


def import_after_changing(module: str, name: str, value: int) -> str:
    done = subprocess.run(
        [sys.executable, "-c", CHANGE_THEN_IMPORT, module, name, str(value)], capture_output=True, text=True
    )
    return done.stdout.strip() + done.stderr.strip()


@needs_compiled
def test_every_shared_constant_equals_its_python_declaration():
    from newmarket_env.engine import _table

    table = _table.shared_constants()
    assert table["KEEP"] == (52, actions.KEEP) and table["NUM_ACTIONS"] == (79, actions.NUM_ACTIONS)
    assert table["NUM_CARDS"][1] == cards.NUM_CARDS and table["MAX_SEATS"][1] == MAX_PLAYERS
    assert table["phases"][1] == len(PHASE_ORDER) and table["decisions"][1] == len(DECISION_ORDER)
    assert all(c == py for c, py in table.values())


@needs_compiled
@pytest.mark.parametrize(
    ("module", "name", "value", "in_c"),
    [
        ("newmarket_env.game.actions", "KEEP", 60, "KEEP"),
        ("newmarket_env.game.actions", "STAKE_BASE", 76, "STAKE_BASE"),
        ("newmarket_env.game.actions", "NUM_ACTIONS", 80, "NUM_ACTIONS"),
        ("newmarket_env.game.cards", "NUM_RANKS", 14, "NUM_RANKS"),
        ("newmarket_env.game.rules", "MAX_PLAYERS", 9, "MAX_SEATS"),
    ],
)
def test_a_changed_declaration_fails_the_import_naming_it(module, name, value, in_c):
    said = import_after_changing(module, name, value)
    assert said.startswith("ImportError:") and f"{in_c} is " in said and f"but {value} in Python" in said, said
    assert "update engine/_table.pxd" in said


@needs_compiled
def test_the_unchanged_declarations_import():
    assert import_after_changing("newmarket_env.game.actions", "KEEP", actions.KEEP) == "imported"
