"""Write the golden session records of tests/golden/ from their seeds.

Run ``python tests/golden/regenerate.py`` after an intended change of the
rules engine or of the record format, look at ``git diff tests/golden``, and
commit the files with the change. ``test_golden.py`` rebuilds every record in
memory and fails when one differs from its file.

Each case is a preset (with a few overrides), a player count and a seed; the
seed shuffles the deals and drives a random legal policy, so a case is fully
determined by this file and the engine.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, NamedTuple

from newmarket_env.engine import Game
from newmarket_env.engine.record import session_record
from newmarket_env.game.rules import make_rules

GOLDEN_DIR = Path(__file__).resolve().parent


class Case(NamedTuple):
    """One golden session."""

    name: str
    variant: str
    players: int
    seed: int
    overrides: dict[str, Any]


CASES = (
    Case("newmarket_3p_seed1", "newmarket", 3, 1, {}),
    Case("newmarket_5p_seed2", "newmarket", 5, 2, {"num_deals": 2}),
    Case("newmarket_dealer_buy_4p_seed3", "newmarket", 4, 3, {"widow": "dealer_buy", "num_deals": 2}),
    Case("michigan_4p_seed1", "michigan", 4, 1, {}),
    Case("michigan_6p_seed2", "michigan", 6, 2, {"num_deals": 2}),
    Case(
        "michigan_choose_double_4p_seed3",
        "michigan",
        4,
        3,
        {"stake_mode": "choose", "dealer_stake_multiplier": 2, "num_deals": 2},
    ),
    Case("newbury_4p_seed1", "newbury", 4, 1, {"num_deals": 2}),
    Case("newbury_4p_seed2", "newbury", 4, 2, {"num_deals": 2}),
    Case("hoyle1885_4p_seed1", "hoyle1885", 4, 1, {}),
    Case("hoyle1885_7p_seed2", "hoyle1885", 7, 2, {"num_deals": 2}),
    Case("arnold2011_4p_seed1", "arnold2011", 4, 1, {}),
    Case("arnold2011_8p_seed2", "arnold2011", 8, 2, {"num_deals": 2}),
)


def build_record(case: Case) -> dict[str, Any]:
    """Play the case's session with a seeded random legal policy; return its record."""
    game = Game(make_rules(case.variant, case.players, **case.overrides), seed=case.seed)
    policy = random.Random(case.seed)
    while not game.over:
        game.apply(policy.choice(game.legal))
    return session_record(game, case.variant)


def _one_line(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "))


def to_json(record: dict[str, Any]) -> str:
    """The text of a golden file: valid JSON with one hand or event per line, so diffs stay readable."""
    head = [f' "{key}": {_one_line(record[key])},' for key in record if key != "deals"]
    deals = []
    for deal in record["deals"]:
        hands = ",\n".join(f"    {_one_line(hand)}" for hand in deal["hands"])
        events = ",\n".join(f"    {_one_line(event)}" for event in deal["events"])
        deals.append(
            f'  {{"dealer": {deal["dealer"]},\n   "hands": [\n{hands}],\n   "dead": {_one_line(deal["dead"])},\n'
            f'   "events": [\n{events}],\n   "chips": {_one_line(deal["chips"])}}}'
        )
    return "{\n" + "\n".join(head) + '\n "deals": [\n' + ",\n".join(deals) + "]}\n"


def path_of(case: Case) -> Path:
    return GOLDEN_DIR / f"{case.name}.json"


def main() -> None:
    for case in CASES:
        path_of(case).write_text(to_json(build_record(case)), encoding="utf-8")
        print(f"wrote {path_of(case).relative_to(GOLDEN_DIR.parent.parent)}")


if __name__ == "__main__":
    main()
