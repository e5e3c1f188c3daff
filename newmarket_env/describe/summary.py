"""The end of a deal as a card player tells it: every hand left, who went out, what each boodle and the pot
paid, and each player's chips for the deal.

Read from a session record's deals (docs/contract.md) alone, so play, watch and replay, in the terminal and
on the web page, tell the same result. The hands left are the hands as dealt, less the cards played and
discarded, swapped with the widow by an exchange: the engine's own moves, walked over the events. They are
shown once the deal is over (the losers pay for them); the next deal is a fresh shuffle, so they tell nothing
about it.

>>> from newmarket_env.game.rules import make_rules
>>> rules = make_rules("newmarket", num_players=3, num_deals=1)
>>> deal = {"dealer": 0, "hands": [["2C", "3C"], ["4C", "9H"], ["KS"]], "dead": ["AS"],
...         "events": [{"type": "stake", "seat": 0, "target": "pot", "amount": 1},
...                    {"type": "play", "seat": 0, "card": "2C", "lead": True},
...                    {"type": "play", "seat": 0, "card": "3C", "lead": False},
...                    {"type": "out", "seat": 0},
...                    {"type": "pot", "seat": 0, "amount": 1},
...                    {"type": "payment", "from": 1, "to": 0, "amount": 2, "reason": "cards"}],
...         "chips": [42, 38, 40]}
>>> s = deal_summary([deal], 0, rules)
>>> s["winner"], s["hands"], s["pot"], s["change"]
(0, [[], ['4C', '9H'], ['KS']], {'taken_by': 0, 'amount': 1, 'left': 0, 'lot': None}, [2, -2, 0])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from newmarket_env.describe.words import Names, count_text, hand_text
from newmarket_env.game.cards import card_from_text
from newmarket_env.game.order import order_key
from newmarket_env.game.rules import Rules

_SWAPS = ("exchange", "buy")  # widow choices that swap the chooser's hand with the widow


def hands_left(deal: Mapping[str, Any]) -> tuple[list[list[str]], list[str]]:
    """Each seat's cards and the dead hand after every event of ``deal`` (as dealt, then played, discarded,
    exchanged)."""
    hands = [set(hand) for hand in deal["hands"]]
    dead = set(deal["dead"])
    for event in deal["events"]:
        kind = event["type"]
        if kind == "play":
            hands[event["seat"]].discard(event["card"])
        elif kind == "discard":
            hands[event["seat"]].discard(event["card"])
            dead.add(event["card"])
        elif kind == "widow" and event["choice"] in _SWAPS:
            seat = event["seat"]
            hands[seat], dead = dead, hands[seat]
    return [sorted(hand, key=_order) for hand in hands], sorted(dead, key=_order)


def _order(card: str) -> tuple[int, int]:
    card_id = card_from_text(card)
    return card_id // 13, order_key(card_id, ace_high=False)


def deal_summary(deals: Sequence[Mapping[str, Any]], index: int, rules: Rules) -> dict[str, Any]:
    """The result of finished deal ``index`` of ``deals`` (a record's ``deals``, from the first).

    ``winner`` (the seat that went out, ``None`` when the deal was blocked), ``hands`` and ``dead`` (left at
    the end, cards in suit and rank order), ``boodles`` and ``pot`` (``taken_by``, ``amount`` taken, ``left``
    on it for the next deal, and after the last deal ``lot``: ``{"seat", "amount"}``, who won what was left
    by lot, seat ``None`` when it vanished), ``payments`` (between seats and into the pot), ``chips`` after
    the deal and ``change`` (this deal's gain or loss per seat).
    """
    deal = deals[index]
    if not deal["chips"]:
        raise ValueError(f"deal {index + 1} is not finished: it has no result yet")
    stacks, pot = _stacks_before(deals, index, rules)
    taken: dict[int, tuple[int, int]] = {}  # boodle -> (seat, amount)
    pot_taken: tuple[int, int] | None = None
    lots: dict[Any, dict[str, Any]] = {}  # after the last deal: "pot" or a boodle -> who won its chips by lot
    winner, payments = None, []
    for event in deal["events"]:
        kind = event["type"]
        stacks, pot = _apply_stacks(event, stacks, pot)
        if kind == "boodle":
            taken[event["boodle"]] = (event["seat"], event["amount"])
        elif kind == "pot":
            pot_taken = (event["seat"], event["amount"])
        elif kind == "out":
            winner = event["seat"]
        elif kind == "leftover":
            lots[event["stack"] if event["stack"] == "pot" else event["boodle"]] = {
                "seat": event["seat"],
                "amount": event["amount"],
            }
        elif kind == "payment":
            payments.append({key: event[key] for key in ("from", "to", "amount", "reason")})
    hands, dead = hands_left(deal)
    before = deals[index - 1]["chips"] if index else [rules.starting_chips] * rules.num_players
    return {
        "deal": index + 1,
        "num_deals": rules.num_deals,
        "winner": winner,
        "blocked": any(e["type"] == "blocked" for e in deal["events"]),
        "hands": hands,
        "dead": dead,
        "boodles": [
            {
                "card": card,
                "taken_by": taken[b][0] if b in taken else None,
                "amount": taken[b][1] if b in taken else 0,
                "left": stacks[b],
                "lot": lots.get(b),
            }
            for b, card in enumerate(rules.boodles)
        ],
        "pot": {
            "taken_by": pot_taken[0] if pot_taken else None,
            "amount": pot_taken[1] if pot_taken else 0,
            "left": pot,
            "lot": lots.get("pot"),
        },
        "payments": payments,
        "chips": list(deal["chips"]),
        "change": [after - was for after, was in zip(deal["chips"], before, strict=True)],
    }


def _stacks_before(deals: Sequence[Mapping[str, Any]], index: int, rules: Rules) -> tuple[list[int], int]:
    """Chips on each boodle and in the pot when deal ``index`` began (what earlier deals left there)."""
    stacks, pot = [0] * len(rules.boodles), 0
    for deal in deals[:index]:
        for event in deal["events"]:
            stacks, pot = _apply_stacks(event, stacks, pot)
    return stacks, pot


def _apply_stacks(event: Mapping[str, Any], stacks: list[int], pot: int) -> tuple[list[int], int]:
    """The layout after ``event``: stakes add, a boodle card or the winner empties a stack, lots clear it."""
    stacks = list(stacks)
    kind = event["type"]
    if kind == "stake":
        if event["target"] == "pot":
            pot += event["amount"]
        else:
            stacks[event["boodle"]] += event["amount"]
    elif kind == "boodle":
        stacks[event["boodle"]] -= event["amount"]
    elif kind == "pot":
        pot -= event["amount"]
    elif kind == "payment" and event["to"] == "pot":
        pot += event["amount"]
    elif kind == "leftover":
        if event["stack"] == "pot":
            pot -= event["amount"]
        else:
            stacks[event["boodle"]] -= event["amount"]
    return stacks, pot


def summary_lines(summary: Mapping[str, Any], rules: Rules, names: Names, reveal: bool = False) -> list[str]:
    """The summary in words, one fact per line (``reveal`` adds the dead hand); the chips line is the deal's
    footer (:func:`newmarket_env.describe.feed.deal_footer`), written after it."""
    number = summary["deal"]
    lines = [f"---- deal {number} of {summary['num_deals']}: the result ----"]
    if summary["winner"] is not None:
        lines.append(f"{names.says(summary['winner'], 'goes')} out and {_wins(summary['winner'], names)} the deal")
    else:
        lines.append("nobody went out: the deal was blocked")
    width = max(len(names(s)) for s in range(len(summary["hands"])))
    lines.append("hands left")
    for seat, hand in enumerate(summary["hands"]):
        held = hand_text(hand, rules.ace_high) if hand else "(none)"
        lines.append(f"  {names(seat):<{width}}  {held}  ({count_text(len(hand), 'card')})")
    if reveal and summary["dead"]:
        lines.append(f"  {'dead cards':<{width}}  {hand_text(summary['dead'], rules.ace_high)}")
    lines.append("boodles   " + "; ".join(f"{b['card']} {_stack_text(b, names)}" for b in summary["boodles"]))
    lines.append("pot       " + _stack_text(summary["pot"], names))
    for payment in summary["payments"]:
        lines.append("paid      " + _payment_text(payment, rules, names))
    return lines


def _wins(seat: int, names: Names) -> str:
    return "win" if seat == names.person else "wins"


def _stack_text(stack: Mapping[str, Any], names: Names) -> str:
    """``paid player_2 4 chips``, ``not taken, 4 chips stay for the next deal`` or ``empty``."""
    lot = stack.get("lot")
    if stack["taken_by"] is not None:
        text = f"paid {names(stack['taken_by'])} {count_text(stack['amount'], 'chip')}"
    elif lot is not None:
        chips = count_text(lot["amount"], "chip")
        return (
            f"not taken: its {chips} vanish"
            if lot["seat"] is None
            else f"not taken: its {chips} go by lot to {names(lot['seat'])}"
        )
    elif not stack["left"]:
        return "empty"
    else:
        text = "not taken"
    if stack["left"]:
        text += f", {count_text(stack['left'], 'chip')} stay for the next deal"
    return text


def _payment_text(payment: Mapping[str, Any], rules: Rules, names: Names) -> str:
    payer, payee, amount = payment["from"], payment["to"], payment["amount"]
    if payment["reason"] == "widow_fee":
        return f"{names(payer)} -> the pot {count_text(amount, 'chip')} for the dead hand"
    if payment["reason"] == "bid":
        return f"{names(payer)} -> {names(payee)} {count_text(amount, 'chip')} for the widow"
    cards = amount // rules.per_card_payment if rules.per_card_payment else amount
    return f"{names(payer)} -> {names(payee)} {count_text(amount, 'chip')} for {count_text(cards, 'card')} left"
