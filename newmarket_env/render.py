"""Text rendering of the table as one seat sees it (no hidden cards are shown)."""

from __future__ import annotations

from newmarket_env import actions as A
from newmarket_env.cards import SUIT_CHARS, SUIT_NAMES, card_text, iter_cards
from newmarket_env.engine.game import NOBODY, Game
from newmarket_env.order import order_key


def hand_text(mask: int, ace_high: bool) -> str:
    """A hand by suit, ranks in playing order: ``C: 2 5 J | D: ...``."""
    parts = []
    for suit, char in enumerate(SUIT_CHARS):
        cards = sorted((c for c in iter_cards(mask) if c // 13 == suit), key=lambda c: order_key(c, ace_high))
        if cards:
            parts.append(f"{char}: " + " ".join(card_text(c)[0] for c in cards))
    return " | ".join(parts) or "(empty)"


def render_table(game: Game, viewer: int) -> str:
    rules = game.rules
    lines = [f"deal {min(game.deal_index + 1, rules.num_deals)}/{rules.num_deals}   dealer: player_{game.dealer}"
             f"   phase: {game.phase.value}"]
    stacks = "  ".join(f"{text}:{chips}" for text, chips in zip(rules.boodles, game.boodle_stacks))
    lines.append(f"boodles  {stacks}   pot: {game.pot}")
    for suit, name in enumerate(SUIT_NAMES):
        played = [c for c in iter_cards(game.played) if c // 13 == suit]
        played.sort(key=lambda c: order_key(c, rules.ace_high))
        shown = " ".join(f"{card_text(c)[0]}{game.played_by[c]}" for c in played)
        lines.append(f"  {name:<9} played: {shown or '-'}")
    if game.last_played is not None:
        lines.append(f"last card: {card_text(game.last_played)} by player_{game.played_by[game.last_played]}")
    lines.append("seat       cards  chips")
    for seat in range(game.n):
        marks = (" <- to act" if seat == game.to_act else "") + (" (you)" if seat == viewer else "")
        lines.append(f"player_{seat:<3} {game.hands[seat].bit_count():>5}  {game.balances[seat]:>5}{marks}")
    lines.append(f"your hand (player_{viewer}): {hand_text(game.hands[viewer], rules.ace_high)}")
    known = game.public_dead | game.known_dead[viewer]
    if known:
        lines.append("known dead: " + " ".join(card_text(c) for c in iter_cards(known)))
    if game.to_act != NOBODY and game.decision is not None:
        choices = ", ".join(A.action_text(a) for a in game.legal)
        lines.append(f"player_{game.to_act} decides {game.decision.value}: {choices}")
    elif game.over:
        lines.append("session over: " + ", ".join(f"player_{s} {c}" for s, c in enumerate(game.balances)))
    return "\n".join(lines)
