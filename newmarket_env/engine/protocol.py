"""The engine contract as code: what every engine's game offers, declared once.

Two engines play the same sessions: :class:`~newmarket_env.engine.game.Game`
(the pure-Python reference) and the compiled ``FastGame`` (``_fast.pyx``,
described to type checkers by ``_fast.pyi``). Everything outside the engine
(the env, the encoder, records, rendering) reads a game only through
:class:`EngineGame` and makes one only through :class:`GameFactory`, so either
engine serves. mypy checks both classes against these protocols where
``engine/choice.py`` hands each out as a :class:`GameFactory`, and
``tests/engine/test_protocol.py`` checks, member by member of the protocols,
that both engines have every member and give equal values at every step.

The members are in two groups: :class:`GameState` is what the game looks like
after each step (what the encoder and the view read; every member is compared
between the engines after every action); :class:`EngineGame` adds the record
and the means to change the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from newmarket_env.engine.dealing import DealtCards
from newmarket_env.engine.events import DealRecord, Event
from newmarket_env.engine.position import Position
from newmarket_env.engine.types import Decision, Phase
from newmarket_env.game.rules import Rules

if TYPE_CHECKING:  # typing.Self is 3.11+; the package supports 3.10
    from typing_extensions import Self


@runtime_checkable
class GameState(Protocol):
    """The state of a session at a decision (or at its end), in absolute seats.

    Card sets are 52-bit masks (bit ``id`` for card ``id``); per-card lists have
    52 entries; per-seat lists have ``n``. ``NOBODY`` (-1) marks no seat.
    """

    @property
    def rules(self) -> Rules: ...
    @property
    def n(self) -> int: ...  # seats at the table
    @property
    def balances(self) -> list[int]: ...
    @property
    def boodle_stacks(self) -> list[int]: ...  # chips on each boodle, layout order
    @property
    def pot(self) -> int: ...
    @property
    def deal_index(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def eldest(self) -> int: ...
    @property
    def over(self) -> bool: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def hands(self) -> list[int]: ...
    @property
    def hand_sizes(self) -> list[int]: ...
    @property
    def dead(self) -> int: ...  # the dead hand (or widow)
    @property
    def played(self) -> int: ...  # every card played this deal
    @property
    def public_dead(self) -> int: ...  # removed cards and public stops
    @property
    def known_dead(self) -> list[int]: ...  # per seat: own discards, own former hand
    @property
    def played_by(self) -> list[int]: ...  # per card: the seat that played it, or NOBODY
    @property
    def owner(self) -> list[int]: ...  # per card: the seat that holds it, or NOBODY
    @property
    def last_played(self) -> int | None: ...
    @property
    def to_act(self) -> int: ...  # NOBODY while no decision is pending
    @property
    def decision(self) -> Decision | None: ...
    @property
    def legal(self) -> list[int]: ...  # legal action ids, ascending
    @property
    def in_auction(self) -> list[bool]: ...  # empty outside an auction
    @property
    def high_bid(self) -> int: ...
    @property
    def high_bidder(self) -> int: ...
    @property
    def widow_taker(self) -> int: ...
    @property
    def boodle_cards(self) -> tuple[int, ...]: ...  # card ids, layout order

    def pending_for(self, seat: int) -> int:
        """Stake chips or discards ``seat`` still has to place in this deal."""
        ...


@runtime_checkable
class EngineGame(GameState, Protocol):
    """A session of either engine: its state, its record, and :meth:`apply`."""

    present_forced: bool  # also stop at decisions with one legal action (settable: a replay turns it off)

    @property
    def record_events(self) -> bool: ...
    @property
    def deals(self) -> list[DealRecord]: ...  # the record, one dict per deal (docs/contract.md)
    @property
    def events(self) -> list[Event]: ...  # the events of the current deal

    def apply(self, action: int) -> None:
        """Take ``action`` for ``to_act``; ``IllegalActionError`` (game unchanged) if it is not legal."""
        ...

    def copy(self) -> Self:
        """An independent copy that plays on like the original (the same random stream)."""
        ...


class GameFactory(Protocol):
    """An engine's game class: makes a session, or a game standing at a :class:`Position`."""

    def __call__(
        self,
        rules: Rules,
        seed: int | None = None,
        deals: Sequence[Mapping[str, Any] | DealtCards] = (),
        present_forced: bool = False,
        record_events: bool = True,
        lots: Sequence[int] = (),
    ) -> EngineGame: ...

    def at_position(
        self,
        position: Position,
        hands: Sequence[int],
        dead: int,
        seed: int | None = None,
        plain_next_deal: bool = False,
    ) -> EngineGame: ...


__all__ = ["EngineGame", "GameFactory", "GameState"]
