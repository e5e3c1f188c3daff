"""A :class:`Game` rebuilt at a public position, with hidden cards supplied by the caller.

A search agent knows the public state of the deal and its own private cards,
not the others' hands nor the dead hand. It samples those, and needs a real
engine game standing at the same decision so it can try each action and play
the deal out. :class:`Position` holds what the viewer knows, in absolute seats;
``Game.at_position`` (and the compiled ``FastGame.at_position``) makes the game
from it plus one guess of the hidden cards; :func:`game_at` is its old name.

Only the state of the current deal is rebuilt: the record of earlier deals is
not (the game is made with ``record_events=False``), and later deals are
shuffled from ``seed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from newmarket_env.engine.game import NOBODY, Game
from newmarket_env.engine.types import Decision, Phase
from newmarket_env.game.rules import Rules


@dataclass(frozen=True)
class Position:
    """The public state of a deal at a decision of ``viewer``, plus the viewer's private knowledge."""

    rules: Rules
    viewer: int
    dealer: int
    deal_index: int
    phase: Phase
    decision: Decision
    legal: tuple[int, ...]
    played_by: tuple[int, ...]  # card -> seat that played it, or NOBODY (52 entries)
    last_played: int | None
    public_dead: int  # removed cards and public stops
    viewer_known_dead: int  # the viewer's own discards and former hand
    balances: tuple[int, ...]
    boodle_stacks: tuple[int, ...]
    pot: int
    high_bid: int = 0
    high_bidder: int = NOBODY
    in_auction: tuple[bool, ...] = ()
    widow_taker: int = NOBODY
    viewer_pending: int = 0  # stake chips or discards the viewer still has to place

    @property
    def played(self) -> int:
        return sum(1 << card for card, seat in enumerate(self.played_by) if seat != NOBODY)


def game_at(
    position: Position, hands: Sequence[int], dead: int, seed: int | None = None, plain_next_deal: bool = False
) -> Game:
    """A game standing at ``position`` with these hidden cards: :meth:`Game.at_position`."""
    return Game.at_position(position, hands, dead, seed=seed, plain_next_deal=plain_next_deal)


def with_cards(game: Game, position: Position, hands: Sequence[int], dead: int) -> Game:
    """A copy of a game made by :func:`game_at` with other hidden cards: :meth:`Game.with_hidden_cards`."""
    return game.with_hidden_cards(position, hands, dead)


__all__ = ["Position", "game_at", "with_cards"]
