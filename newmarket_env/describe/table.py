"""The table as one seat sees it, for a person about to decide.

Only what that seat may know is shown (docs/rules.md "What the players know"):
their own hand, public play, stacks and balances, and the cards they know
are dead.
"""

from __future__ import annotations

from newmarket_env.describe.words import Names, hand_lines, stop_reason
from newmarket_env.engine.events import StopEvent
from newmarket_env.engine.game import NOBODY
from newmarket_env.engine.protocol import EngineGame
from newmarket_env.engine.types import Phase
from newmarket_env.game.cards import SUIT_NAMES, card_text, iter_cards
from newmarket_env.game.order import order_key


def table_lines(game: EngineGame, viewer: int, names: Names) -> list[str]:
    """Everything ``viewer`` may see of the table, one fact per line."""
    rules = game.rules
    deal = min(game.deal_index + 1, rules.num_deals)
    seen = f"you are player_{viewer}" if names.person == viewer else f"seen from {names(viewer)}"
    lines = [f"-- deal {deal} of {rules.num_deals} -- dealer: {names(game.dealer)} -- {seen} --"]
    stacks = "  ".join(f"{card}: {chips}" for card, chips in zip(rules.boodles, game.boodle_stacks, strict=True))
    lines.append(f"layout    {stacks}    pot: {game.pot}")
    lines.extend(_seat_lines(game, names))
    lines.extend(_play_lines(game, names))
    if game.phase is Phase.AUCTION and game.high_bidder != NOBODY:
        lines.append(f"auction   standing bid {game.high_bid} by {names(game.high_bidder)}")
    known = game.public_dead | game.known_dead[viewer]
    if known:
        lines.append("known dead  " + " ".join(cards_in_order(known, rules.ace_high)))
    lines.append("your hand" if names.person == viewer else f"{names(viewer)}'s hand")
    lines.extend("  " + line for line in hand_lines(iter_cards(game.hands[viewer]), rules.ace_high) or ["(empty)"])
    return lines


def _seat_lines(game: EngineGame, names: Names) -> list[str]:
    lines = []
    width = max(9, *(len(names(seat)) for seat in range(game.n)))  # long agent names keep the columns
    for seat in range(game.n):
        mark = "  (dealer)" if seat == game.dealer else ""
        cards, chips = game.hands[seat].bit_count(), game.balances[seat]
        # "1 card " keeps the columns of "7 cards" aligned
        lines.append(
            f"  {names(seat):<{width}} {cards:>2} {'card ' if cards == 1 else 'cards'}  {chips:>4} "
            f"{'chip ' if chips == 1 else 'chips'}{mark}".rstrip()
        )
    return lines


def _play_lines(game: EngineGame, names: Names) -> list[str]:
    """Cards played this deal by suit, and the last run: its last card and why it stopped."""
    if not game.played:
        return []
    lines = ["played this deal"]
    for suit, name in enumerate(SUIT_NAMES):
        cards = [c for c in cards_in_order(game.played, game.rules.ace_high) if c[1] == "CDHS"[suit]]
        if cards:
            lines.append(f"  {name:<9} {' '.join(c[0] for c in cards)}")
    last = game.last_played
    if last is not None:
        line = f"last card {card_text(last)} by {names(game.played_by[last])}"
        stop = last_stop(game)
        if stop is not None and stop["card"] == card_text(last):
            line += " -- the run stopped: " + stop_reason(stop)
        lines.append(line)
    return lines


def last_stop(game: EngineGame) -> StopEvent | None:
    """The stop that ended the last run of play, or None when a card has been played since (or none stopped)."""
    events = game.deals[-1]["events"] if game.deals else []
    for event in reversed(events):
        if event["type"] in ("stop", "play"):
            return event if event["type"] == "stop" else None
    return None


def cards_in_order(mask: int, ace_high: bool) -> list[str]:
    """The cards of ``mask`` as text, by suit (clubs, diamonds, hearts, spades), then by rank."""
    return [card_text(c) for c in sorted(iter_cards(mask), key=lambda c: (c // 13, order_key(c, ace_high)))]
