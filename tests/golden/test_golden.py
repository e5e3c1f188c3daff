"""The golden records still come out of the engine unchanged, and replay to themselves.

After an intended change run ``python tests/golden/regenerate.py`` and commit the diff.
"""

import json

import pytest

from newmarket_env.engine.record import load_record, replay, session_record

from .regenerate import CASES, build_record, path_of


def first_difference(old: dict, new: dict) -> str:
    """Where two records part, in words, to make a failure readable."""
    for key in ("variant", "num_players", "rules"):
        if old.get(key) != new.get(key):
            return f"{key}: {old.get(key)!r} != {new.get(key)!r}"
    for d, (a, b) in enumerate(zip(old["deals"], new["deals"], strict=False)):
        for key in ("dealer", "hands", "dead", "chips"):
            if a[key] != b[key]:
                return f"deal {d} {key}: {a[key]!r} != {b[key]!r}"
        for e, (x, y) in enumerate(zip(a["events"], b["events"], strict=False)):
            if x != y:
                return f"deal {d} event {e}: {x!r} != {y!r}"
        if len(a["events"]) != len(b["events"]):
            return f"deal {d}: {len(a['events'])} events != {len(b['events'])}"
    return f"{len(old['deals'])} deals != {len(new['deals'])}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_record_unchanged(case):
    saved = load_record(path_of(case))
    fresh = json.loads(json.dumps(build_record(case)))
    assert fresh == saved, "golden record differs (run tests/golden/regenerate.py if intended): " + first_difference(
        saved, fresh
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_record_replays_to_itself(case):
    saved = load_record(path_of(case))
    assert session_record(replay(saved), saved["variant"]) == saved


def test_every_golden_file_has_a_case():
    names = {p.stem for p in path_of(CASES[0]).parent.glob("*.json")}
    assert names == {c.name for c in CASES}
