"""A :class:`Game` rebuilt at a public position, with hidden cards supplied by the caller.

A search agent knows the public state of the deal and its own private cards,
not the others' hands nor the dead hand. It samples those, and needs a real
engine game standing at the same decision so it can try each action and play
the deal out. :class:`Position` holds what the viewer knows, in absolute seats;
:func:`game_at` makes the game from it plus one guess of the hidden cards.

Only the state of the current deal is rebuilt: the record of earlier deals is
not (the game is made with ``record_events=False``), and later deals are
shuffled from ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from newmarket_env.engine.dealing import DealtCards
from newmarket_env.engine.game import NOBODY, Game
from newmarket_env.engine.types import Decision, Phase
from newmarket_env.rules import DeadHand, Rules


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
    played_by: tuple[int, ...]      # card -> seat that played it, or NOBODY (52 entries)
    last_played: int | None
    public_dead: int                # removed cards and public stops
    viewer_known_dead: int          # the viewer's own discards and former hand
    balances: tuple[int, ...]
    boodle_stacks: tuple[int, ...]
    pot: int
    high_bid: int = 0
    high_bidder: int = NOBODY
    in_auction: tuple[bool, ...] = ()
    widow_taker: int = NOBODY
    viewer_pending: int = 0         # stake chips or discards the viewer still has to place

    @property
    def played(self) -> int:
        return sum(1 << card for card, seat in enumerate(self.played_by) if seat != NOBODY)


def game_at(position: Position, hands: Sequence[int], dead: int, seed: int | None = None,
            plain_next_deal: bool = False) -> Game:
    """A game standing at ``position`` whose seats hold ``hands`` and whose dead hand is ``dead``.

    ``hands`` gives every seat's current cards (the viewer's own and guesses
    for the others); nothing is checked beyond the deck being partitioned. In
    the stake phase nothing is dealt yet: give empty hands and dead hand, and
    the deal is shuffled from ``seed`` when the stakes are in.

    ``plain_next_deal=True`` queues an unshuffled deal (the current cards, as
    they were) for the next deal, for a caller that stops at this deal's end
    and would only waste a shuffle.
    """
    _check_partition(position, hands, dead)
    game = Game(position.rules, seed=seed, record_events=False)
    _set_table(game, position)
    _set_cards(game, position, hands, dead)
    _set_decision(game, position)
    if plain_next_deal and position.phase is not Phase.STAKE:
        game._queued_deals = [_placeholder_deal(game, position)]
    return game


def with_cards(game: Game, position: Position, hands: Sequence[int], dead: int) -> Game:
    """A copy of a game made by :func:`game_at` with other hidden cards (cheaper than a new one)."""
    _check_partition(position, hands, dead)
    clone = game.copy()
    _set_cards(clone, position, hands, dead)
    return clone


def _placeholder_deal(game: Game, position: Position) -> DealtCards:
    """Some valid deal for the next dealer: every card not removed, in seat order."""
    rules = position.rules
    deck = [c for c in range(52) if not rules.removed_mask >> c & 1]
    share = len(deck) // (rules.num_players + 1)
    hands = tuple(sum(1 << c for c in deck[i * share:(i + 1) * share]) for i in range(rules.num_players))
    dead = sum(1 << c for c in deck[rules.num_players * share:]) if rules.dead_hand is DeadHand.DEALT else 0
    if not dead and len(deck) > rules.num_players * share:  # no dead hand: the rest to the last seat
        hands = hands[:-1] + (hands[-1] | sum(1 << c for c in deck[rules.num_players * share:]),)
    return DealtCards((game.dealer + 1) % game.n, hands, dead)


def _check_partition(position: Position, hands: Sequence[int], dead: int) -> None:
    rules = position.rules
    if len(hands) != rules.num_players:
        raise ValueError(f"hands must hold one mask per seat ({rules.num_players}); got {len(hands)}")
    if position.phase is Phase.STAKE:
        if dead or any(hands):
            raise ValueError("in the stake phase no card is dealt yet: hands and dead hand must be empty")
        return
    seen = dead | position.played | rules.removed_mask
    total = dead.bit_count() + position.played.bit_count() + rules.removed_mask.bit_count()
    for hand in hands:
        seen |= hand
        total += hand.bit_count()
    if seen != (1 << 52) - 1 or total != 52:
        raise ValueError("hands, dead hand, played and removed cards must split the deck exactly once")


def _set_table(game: Game, position: Position) -> None:
    """Chips, dealer and deal number: the state around the cards."""
    game.balances = list(position.balances)
    game.boodle_stacks = list(position.boodle_stacks)
    game.pot = position.pot
    game.dealer = position.dealer
    game.deal_index = position.deal_index
    game.over = False
    game._queued_deals, game._queued_lots, game._dealt = [], [], None
    game.events, game.deals = [], []


def _set_cards(game: Game, position: Position, hands: Sequence[int], dead: int) -> None:
    game.hands = list(hands)
    game.dead = dead
    game.played = position.played
    game.played_by = list(position.played_by)
    game.last_played = position.last_played
    game.public_dead = position.public_dead
    game.known_dead = [0] * game.n
    game.known_dead[position.viewer] = position.viewer_known_dead
    game.owner = [NOBODY] * 52
    for seat, hand in enumerate(hands):
        game._set_owner(hand, seat)


def _set_decision(game: Game, position: Position) -> None:
    """The pending decision and the queues that say who decides after the viewer."""
    n, viewer = game.n, position.viewer
    game.phase = position.phase
    game.to_act, game.decision, game.legal = viewer, position.decision, list(position.legal)
    game.high_bid, game.high_bidder = position.high_bid, position.high_bidder
    game.in_auction = list(position.in_auction)
    game.widow_taker = position.widow_taker
    game._auction_cursor = (viewer + 1) % n
    later = _seats_after(game, viewer)
    game._pending_stakes, game._pending_discards = [], []
    if position.decision is Decision.STAKE:
        game._pending_stakes = [viewer] * position.viewer_pending
        for seat in later:
            game._pending_stakes += [seat] * position.rules.boodle_stake
    elif position.decision is Decision.DISCARD:
        game._pending_discards = [viewer] * position.viewer_pending
        for seat in later:
            game._pending_discards += [seat] * position.rules.discard_count


def _seats_after(game: Game, viewer: int) -> list[int]:
    """Seats that decide after ``viewer`` in a round that goes eldest first, dealer last."""
    order = [(game.eldest + k) % game.n for k in range(game.n)]
    return order[order.index(viewer) + 1:]


__all__ = ["Position", "game_at", "with_cards"]
