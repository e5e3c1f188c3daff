"""The table at one moment as plain data: what the web page and the picture render draw.

A scene is JSON-ready (lists, strings, ints). With a ``viewer`` seat and
``reveal=False`` it holds only what that seat may know (docs/rules.md "What the
players know"): its own hand, public play, the stacks, balances and the cards
it knows are dead; other hands are card counts, other players' discards are
not named. ``reveal=True`` (a replay, or watching agents) shows every hand and
the dead hand. The words are the terminal game's (:mod:`~newmarket_env.describe.words`,
:mod:`~newmarket_env.describe.events`, :mod:`~newmarket_env.describe.choices`), so the page
explains a choice exactly as the terminal does.

>>> from newmarket_env.engine.game import Game
>>> from newmarket_env.game.rules import make_rules
>>> game = Game(make_rules("newmarket"), seed=3)
>>> s = scene(game, viewer=0)
>>> len(s["seats"]), s["seats"][1]["hand"] is None, len(s["seats"][0]["hand"]) == s["seats"][0]["cards"]
(4, True, True)
>>> [b["card"] for b in s["layout"]["boodles"]]
['AS', 'KH', 'QC', 'JD']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from newmarket_env.describe.choices import Choices
from newmarket_env.describe.feed import RecordFeed
from newmarket_env.describe.questions import question_text
from newmarket_env.describe.table import cards_in_order, last_stop
from newmarket_env.describe.words import Names, stop_reason
from newmarket_env.engine.game import NOBODY, Game
from newmarket_env.engine.types import Phase
from newmarket_env.game import actions as A
from newmarket_env.game.cards import SUIT_NAMES, card_text


def scene(
    game: Game,
    viewer: int | None = None,
    reveal: bool = False,
    labels: Mapping[int, str] | None = None,
    ask: bool = True,
    you: bool = True,
    with_log: bool = True,
) -> dict[str, Any]:
    """The table of ``game`` as seen by ``viewer`` (``None``: nobody's hand unless ``reveal``).

    ``ask`` adds the pending decision (its question and choices in words) when
    ``viewer`` is the seat to act, or for any seat when ``reveal`` is set. ``you``
    False: the viewer watches that seat, so it keeps its name (it is nobody's "you").
    ``with_log=False`` leaves ``log`` ``None`` (a replay builds its log once, as it goes).
    """
    rules = game.rules
    names = Names(game.n, viewer, dict(labels or {}), you=you)
    seen = set(range(game.n)) if reveal else ({viewer} if viewer is not None else set())
    to_act = NOBODY if game.over else game.to_act
    out: dict[str, Any] = {
        "deal": min(game.deal_index + 1, rules.num_deals),
        "num_deals": rules.num_deals,
        "phase": game.phase.value,
        "over": bool(game.over),
        "ace_high": bool(rules.ace_high),
        "dealer": game.dealer,
        "viewer": viewer,
        "reveal": bool(reveal),
        "to_act": None if to_act == NOBODY else to_act,
        "seats": [_seat(game, s, names, s in seen, to_act) for s in range(game.n)],
        "layout": {
            "boodles": [
                {"card": card, "chips": chips} for card, chips in zip(rules.boodles, game.boodle_stacks, strict=True)
            ],
            "pot": game.pot,
        },
        "played": _played(game),
        "last": _last(game, names),
        "dead": cards_in_order(game.dead, rules.ace_high) if reveal else None,
        "known_dead": cards_in_order(
            game.public_dead | (game.known_dead[viewer] if viewer is not None else 0), rules.ace_high
        ),
        "auction": _auction(game, names),
        "log": session_log(game.deals, rules, names, reveal) if with_log else None,
        "decision": None,
    }
    if ask and to_act != NOBODY and (reveal or to_act == viewer):
        out["decision"] = decision(game, names)
    return out


def decision(game: Game, names: Names) -> dict[str, Any]:
    """The pending decision: who, what kind, the terminal's question and every legal choice in words."""
    if game.decision is None:
        raise ValueError("decision() asked of a session that waits for no one (it is over)")
    choices = Choices(game.legal, game.decision, game.rules)
    return {
        "seat": game.to_act,
        "who": names(game.to_act),
        "kind": game.decision.value,
        "question": question_text(game, game.to_act, you=names.person == game.to_act),
        "choices": [
            {"action": a, "text": text, "short": A.action_text(a), "card": card_text(a) if A.is_card(a) else None}
            for a, text in zip(choices.actions, choices.texts, strict=True)
        ],
    }


def session_log(deals: Sequence[Mapping[str, Any]], rules, names: Names, reveal: bool) -> list[str]:
    """Every deal so far in words, as the terminal tells it: its header, the hands it may show, its events,
    its result and the chips after it."""
    return RecordFeed([dict(deal) for deal in deals], rules, names, reveal).new_lines()


def _seat(game: Game, seat: int, names: Names, shown: bool, to_act: int) -> dict[str, Any]:
    hand = game.hands[seat]
    return {
        "seat": seat,
        "name": names(seat),
        "cards": hand.bit_count(),
        "chips": game.balances[seat],
        "dealer": seat == game.dealer,
        "to_act": seat == to_act,
        "hand": cards_in_order(hand, game.rules.ace_high) if shown else None,
    }


def _played(game: Game) -> list[dict[str, Any]]:
    """The cards played this deal, one row per suit, in playing order."""
    played = cards_in_order(game.played, game.rules.ace_high)
    return [
        {"suit": name, "cards": [c for c in played if c[1] == "CDHS"[suit]]} for suit, name in enumerate(SUIT_NAMES)
    ]


def _last(game: Game, names: Names) -> dict[str, Any] | None:
    last = getattr(game, "last_played", None)
    if not game.played or last is None:
        return None
    out = {"card": card_text(last), "by": names(game.played_by[last]), "stop": None}
    stop = last_stop(game)
    if stop is not None and stop["card"] == card_text(last):
        out["stop"] = stop_reason(stop)
    return out


def _auction(game: Game, names: Names) -> dict[str, Any] | None:
    if game.phase is not Phase.AUCTION or game.high_bidder == NOBODY:
        return None
    return {"bid": game.high_bid, "by": names(game.high_bidder)}
