"""The baselines' weights are declared once and the compiled copies follow them.

The weights live in ``newmarket_env/engine/baseline_weights.py``. A fresh interpreter changes them
before anything reads them, then plays the
differential sessions of ``test_compiled_policies``: the Python agents read the new weights when
imported and the compiled baselines when their module is imported, so they still decide alike. A
compiled module with weights of its own would part from the Python agents here (as they part when
the weights change after the compiled module read them and before the Python agents do).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from newmarket_env.engine.choice import FastGame

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")

ROOT = Path(__file__).resolve().parents[2]
HANG_GUARD_S = 600  # only so a hung child fails instead of hanging; never an assertion on speed

# Weights far from the shipped ones, so that many decisions change (checked below).
CHANGED = {
    "SCATTER_LIMIT": 0.4,
    "SCATTER_EXCHANGE_MARGIN": 0.3,
    "LEAD_PER_CARD_SHED": 0.5,
    "LEAD_PER_RANK": 0.3,
    "LEAD_PER_SUIT_CARD": 1.5,
    "LEAD_UNOPENED_SUIT": -1.0,
    "CONTROL": 1.0,
    "STOP_LEAD_SHARE": 1.0,
    "PLAN_DEPTH": 1,
    "EXCHANGE_MARGIN": -3.0,
    "AUCTION_VALUE": 2.0,
    "DISCARD_PER_RANK": -0.1,
    "DISCARD_MAKES_STOP": 0.5,
    "SEGMENT_COST": 2.0,
    "CARD_COST": 1.0,
    "BOODLE_SHARE": 0.2,
    "WIDOW_SAMPLES": 5,
}

SCRIPT = textwrap.dedent("""
    import importlib.util, json, sys
    root, changed, mode = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
    sys.path.insert(0, root)
    # tuning loaded by hand, so its weights change before the package (whose envs load the compiled
    # baselines) reads them
    name = "newmarket_env.engine.baseline_weights"
    spec = importlib.util.spec_from_file_location(name, root + "/newmarket_env/engine/baseline_weights.py")
    tuning = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tuning)
    sys.modules[name] = tuning

    def change():
        for name, value in changed.items():
            setattr(tuning, name, value)

    if mode == "first":
        change()
    from newmarket_env.engine import _policies  # noqa: F401 (the compiled baselines read the weights now)
    if mode == "between":
        change()
    from newmarket_env.agents import control, greedy, hand_value  # noqa: F401 (the Python ones now)
    from newmarket_env.game.rules import make_rules
    from tests.batch.test_compiled_policies import play_compared

    outcome = {"alike": True, "error": "", "read": tuning.CONTROL}
    try:
        for variant, players in (("newmarket", 4), ("michigan", 4), ("newbury", 4), ("michigan", 6)):
            rules = make_rules(variant, num_players=players)
            for name in ("greedy", "control"):
                for seed in range(3):
                    play_compared(rules, name, seed * 31 + players)
    except AssertionError as err:
        outcome = {"alike": False, "error": str(err), "read": tuning.CONTROL}
    print(json.dumps(outcome))
""")


def _play(mode: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT), json.dumps(CHANGED), mode],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_changed_weights_reach_the_python_and_the_compiled_baselines_alike():
    outcome = _play("first")
    assert outcome["read"] == CHANGED["CONTROL"]
    assert outcome["alike"], outcome["error"]


def test_weights_changed_behind_the_compiled_module_part_the_two():
    """The check above has teeth: weights changed after the compiled module read them, before the Python
    agents did, part the two (as compiled weights of its own would)."""
    outcome = _play("between")
    assert not outcome["alike"]
