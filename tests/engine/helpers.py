"""Small helpers to hand-build deals and read a game's record in tests.

A deal is written as the few cards that matter; every other card of the deck
goes to one ``rest`` place (the dead hand by default), which keeps runs short
and the expected play easy to write out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from newmarket_env.engine import Game
from newmarket_env.game import actions as A
from newmarket_env.game.cards import FULL_DECK, card_from_text, card_text, iter_cards
from newmarket_env.game.rules import Rules, make_rules


def cards(text: str) -> list[str]:
    """``"2C 3C"`` -> ``["2C", "3C"]`` (empty text gives no cards)."""
    return text.split()


def build_deal(rules: Rules, dealer: int, hands: dict[int, str], dead: str = "", rest: int | str = "dead") -> dict:
    """A full DEAL: the given cards where named, every other card of the deck in ``rest``.

    ``rest`` is ``"dead"`` or a seat.
    """
    lists: list[list[str]] = [cards(hands.get(seat, "")) for seat in range(rules.num_players)]
    dead_list = cards(dead)
    named = {card_from_text(t) for t in dead_list}
    for hand in lists:
        named |= {card_from_text(t) for t in hand}
    remaining = FULL_DECK & ~rules.removed_mask
    leftover = [card_text(c) for c in iter_cards(remaining) if c not in named]
    (dead_list if rest == "dead" else lists[rest]).extend(leftover)
    return {"dealer": dealer, "hands": lists, "dead": dead_list}


def action_id(text: str) -> int:
    """``"TH"``, ``"keep"``, ``"exchange"``, ``"pass"``, ``"bid 3"`` or ``"stake 2"`` as an action id."""
    if text == "keep":
        return A.KEEP
    if text == "exchange":
        return A.EXCHANGE
    if text == "pass":
        return A.PASS
    if text.startswith("bid "):
        return A.bid_action(int(text[4:]))
    if text.startswith("stake "):
        return A.stake_action(int(text[6:]))
    return card_from_text(text)


def play(game: Game, *moves: tuple[int, str]) -> Game:
    """Apply ``(seat, action text)`` moves, checking each is asked of that seat."""
    for seat, text in moves:
        assert game.to_act == seat, f"expected seat {seat} to act for {text!r}, got {game.to_act}"
        game.apply(action_id(text))
    return game


def new_game(variant: str, deals: list[dict], num_players: int | None = None, seed: int = 0, **overrides: Any) -> Game:
    """A game of ``variant`` playing the given deals (``num_deals`` defaults to their number)."""
    overrides.setdefault("num_deals", len(deals))
    rules = make_rules(variant, num_players, **overrides)
    return Game(rules, seed=seed, deals=deals)


def events(game: Game, deal: int = -1, kinds: Iterable[str] | None = None) -> list[dict]:
    """The events of one deal, without the ``action`` ids, optionally of some types only."""
    wanted = None if kinds is None else set(kinds)
    out = []
    for event in game.deals[deal]["events"]:
        if wanted is None or event["type"] in wanted:
            out.append({k: v for k, v in event.items() if k != "action"})
    return out


def plays(game: Game, deal: int = -1) -> list[tuple[int, str, bool]]:
    """``(seat, card, lead)`` of every card played in one deal, in order."""
    return [(e["seat"], e["card"], e["lead"]) for e in events(game, deal, ["play"])]


def stops(game: Game, deal: int = -1) -> list[tuple[int, str, str | None, str]]:
    """``(seat, card, next, cause)`` of every stop in one deal."""
    return [(e["seat"], e["card"], e["next"], e["cause"]) for e in events(game, deal, ["stop"])]


def legal_texts(game: Game) -> list[str]:
    """The legal actions now, as text, sorted."""
    return sorted(A.action_text(a) for a in game.legal)


def chip_total(game: Game) -> int:
    """Balances plus boodle stacks plus pot."""
    return sum(game.balances) + sum(game.boodle_stacks) + game.pot


OTHER_HANDS = ("3H 4H", "5S", "6S 7S 8S", "9H", "TH", "2D", "3D")  # 2, 1, 3, 1, 1, 1, 1 cards


def out_at_once(rules: Rules, dealer: int = 0, card: str = "2C") -> dict:
    """A deal where eldest holds ``card`` alone and goes out on the forced first lead.

    The other seats, from eldest's left, hold ``OTHER_HANDS`` in turn; the rest is dead.
    """
    n = rules.num_players
    eldest = (dealer + 1) % n
    hands = {eldest: card}
    for k in range(1, n):
        hands[(eldest + k) % n] = OTHER_HANDS[k - 1]
    return build_deal(rules, dealer, hands)
