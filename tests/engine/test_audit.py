"""The record auditor itself: it passes the golden records and catches tampered ones."""

import copy
import json
from pathlib import Path

import pytest

from newmarket_env.game.rules import VARIANTS, rules_from_dict

from . import reference
from .audit import Auditor

GOLDEN = sorted((Path(__file__).resolve().parent.parent / "golden").glob("*.json"))


def load(path):
    record = json.loads(path.read_text(encoding="utf-8"))
    return rules_from_dict(record["rules"], VARIANTS[record["variant"]].players), record


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_records_pass_the_audit(path):
    rules, record = load(path)
    Auditor(rules).session(record)
    for deal in record["deals"]:
        reference.check_deal_play(deal, rules)


def first(record, kind):
    return next(e for d in record["deals"] for e in d["events"] if e["type"] == kind)


TAMPERING = {
    "stake amount": lambda r: first(r, "stake").update(amount=first(r, "stake")["amount"] + 1),
    "bid out of turn": lambda r: first(r, "bid").update(seat=(first(r, "bid")["seat"] + 1) % 4),
    "bid payment": lambda r: next(e for d in r["deals"] for e in d["events"] if e.get("reason") == "bid").update(
        amount=0
    ),
    "card payment": lambda r: next(e for d in r["deals"] for e in d["events"] if e.get("reason") == "cards").update(
        amount=99
    ),
    "boodle amount": lambda r: first(r, "boodle").update(amount=99),
    "dealer order": lambda r: r["deals"][1].update(dealer=r["deals"][0]["dealer"]),
    "recorded chips": lambda r: r["deals"][0]["chips"].__setitem__(0, r["deals"][0]["chips"][0] + 1),
}


@pytest.mark.parametrize("name", sorted(TAMPERING))
def test_the_audit_catches_a_tampered_record(name):
    path = next(p for p in GOLDEN if p.stem == "michigan_4p_seed1")
    rules, record = load(path)
    bad = copy.deepcopy(record)
    TAMPERING[name](bad)
    assert bad != record
    with pytest.raises((AssertionError, KeyError)):
        Auditor(rules).session(bad)
