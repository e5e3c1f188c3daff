"""The events of a session record, declared once.

Every event an engine logs is a JSON object with a ``type`` and a fixed set of
fields. Each type is declared below as a :class:`typing.TypedDict` whose
fields carry their meaning (``Annotated[..., "meaning"]``), so a type checker
checks the code that builds or reads events, and :data:`EVENTS` (the table
built from these declarations) documents them (``docs/contract.md``, generated
by ``python -m newmarket_env.docs``) and checks them (:func:`event_problems`).

An event has exactly its declared fields, in the declared order; an optional
field (``NotRequired``) is left out when it does not apply, never ``null``. The
order is part of the contract because saved records are JSON: two engines that
log the same events write the same bytes.

>>> [f.name for f in EVENTS["stop"].fields]
['seat', 'card', 'next', 'cause']
>>> event_problems({"type": "out", "seat": 2})
[]
>>> event_problems({"type": "out", "seat": "2", "card": "5C"})
["out: field 'card' is not declared (declared: seat)", "out: field 'seat' is '2', not seat"]
"""

import json
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union, get_args, get_origin

# typing_extensions: NotRequired and TypedDict's __required_keys__ work the same on Python 3.10.
from typing_extensions import NotRequired, TypedDict, get_type_hints

from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.cards import CARD_TEXTS


# ---------------------------------------------------------------- what a value holds
@dataclass(frozen=True)
class Domain:
    """What an ``int`` or ``str`` field holds beyond its Python type: documented and checked."""

    label: str  # the word the docs use for the value, e.g. "seat"
    meaning: str  # the legend entry: what the word means
    allows: Callable[[Any, int | None], bool]  # (value, number of players or None) -> allowed?


SEAT = Domain("seat", "a seat number, 0 to players - 1", lambda v, n: v >= 0 and (n is None or v < n))
CARD = Domain(
    "card", 'a card in text form: rank `A23456789TJQK` then suit `CDHS`, e.g. `"TH"`', lambda v, n: v in CARD_TEXTS
)
BOODLE = Domain("boodle", "a boodle's index, 0-3, in the layout order of the rules' `boodles`", lambda v, n: 0 <= v < 4)
CHIPS = Domain("chips", "a number of chips, 0 or more", lambda v, n: v >= 0)
ACTION = Domain(
    "action id",
    f"the id of the action that made the event, 0-{NUM_ACTIONS - 1} (docs/actions.md)",
    lambda v, n: 0 <= v < NUM_ACTIONS,
)
DOMAINS = (SEAT, CARD, BOODLE, CHIPS, ACTION)

Seat = Annotated[int, SEAT]
Card = Annotated[str, CARD]
Boodle = Annotated[int, BOODLE]
Chips = Annotated[int, CHIPS]
ActionId = Annotated[int, ACTION]

StakeTarget = Literal["pot", "boodle"]
WidowChoice = Literal["keep", "exchange", "buy", "decline"]
PaymentReason = Literal["widow_fee", "bid", "cards"]
StopCauseText = Literal["top", "dead", "removed", "played"]  # the values of engine.types.StopCause


# ---------------------------------------------------------------- the events, in the order of a deal
class StakeEvent(TypedDict):
    """Chips placed in the pot or on a boodle before the cards are dealt (docs/rules.md, step 1)."""

    type: Literal["stake"]
    seat: Annotated[Seat | None, 'who staked; `null` for the house (`stake_mode="house"`)']
    target: Annotated[StakeTarget, "where the chips went"]
    boodle: NotRequired[Annotated[Boodle, 'which boodle; only when `target` is `"boodle"`']]
    amount: Annotated[Chips, "how many chips"]
    action: NotRequired[Annotated[ActionId, 'only for a boodle the seat chose (`stake_mode="choose"`)']]


class DiscardEvent(TypedDict):
    """A card put face down into the dead hand (`dead_hand="discard"`)."""

    type: Literal["discard"]
    seat: Annotated[Seat, "who discarded"]
    card: Annotated[Card, "the card (only its owner may know it while the game goes on)"]
    action: Annotated[ActionId, "the card's id"]


class WidowEvent(TypedDict):
    """The dealer's widow decision, or the auction winner taking the widow."""

    type: Literal["widow"]
    seat: Annotated[Seat, "who decided, or who takes the widow after winning the auction"]
    choice: Annotated[
        WidowChoice,
        "`keep` or `exchange` (`dealer_or_auction`; `keep` opens the auction), "
        "`buy` or `decline` (`dealer_buy`); `exchange` without `action`: the "
        "auction winner takes the widow",
    ]
    action: NotRequired[Annotated[ActionId, "the decision's action; absent for the auction winner's exchange"]]


PaymentEvent = TypedDict(
    "PaymentEvent",
    {
        "type": Literal["payment"],
        "from": Annotated[Seat, "who pays"],
        "to": Annotated[Seat | Literal["pot"], 'who is paid, or `"pot"`'],
        "amount": Annotated[Chips, "how many chips"],
        "reason": Annotated[
            PaymentReason,
            "`widow_fee`: the dealer buys the dead hand; `bid`: the auction winner "
            "pays the dealer; `cards`: a loser pays the winner for its cards left",
        ],
    },
)
PaymentEvent.__doc__ = "Chips from one seat to another seat or to the pot."


class PassEvent(TypedDict):
    """A seat drops out of the widow auction for this deal."""

    type: Literal["pass"]
    seat: Annotated[Seat, "who passed"]
    action: Annotated[ActionId, "`PASS`"]


class BidEvent(TypedDict):
    """A bid in the widow auction; it is the new high bid."""

    type: Literal["bid"]
    seat: Annotated[Seat, "who bid"]
    amount: Annotated[Chips, "the bid, in chips"]
    action: Annotated[ActionId, "the bid's action"]


class AuctionEndEvent(TypedDict):
    """The auction ended with no bid: the widow stays where it is."""

    type: Literal["auction_end"]
    seat: Annotated[None, "always `null`: nobody won"]
    amount: Annotated[Literal[0], "always 0"]


class PlayEvent(TypedDict):
    """One card played, led or followed."""

    type: Literal["play"]
    seat: Annotated[Seat, "who played it"]
    card: Annotated[Card, "the card"]
    lead: Annotated[bool, "`true` for the first card of a run, `false` for a follow"]
    action: NotRequired[
        Annotated[
            ActionId,
            "only when the lead was a decision (never for a follow, nor for "
            'the automatic first lead of `first_lead="lowest_club"`)',
        ]
    ]


class BoodleEvent(TypedDict):
    """A boodle card was played: its player takes the chips staked on it (right after its `play`)."""

    type: Literal["boodle"]
    seat: Annotated[Seat, "who played the boodle card"]
    boodle: Annotated[Boodle, "which boodle"]
    card: Annotated[Card, "the boodle card"]
    amount: Annotated[Chips, "the chips taken (may be 0)"]


class StopEvent(TypedDict):
    """A run stopped: no hand holds the next card, or there is none."""

    type: Literal["stop"]
    seat: Annotated[Seat, "who played the last card of the run"]
    card: Annotated[Card, "the last card played"]
    next: Annotated[Card | None, "the card that would have followed; `null` when `card` is the top of its suit"]
    cause: Annotated[
        StopCauseText,
        "`top`: no higher card; `dead`: the next card is in the dead hand; "
        "`removed`: out of the pack; `played`: played already",
    ]


class BlockedEvent(TypedDict):
    """Nobody may lead after a stop (`lead_after_stop`): the deal ends with no winner."""

    type: Literal["blocked"]
    seat: Annotated[Seat, "who played the stopping card"]


class OutEvent(TypedDict):
    """A seat played its last card and wins the deal."""

    type: Literal["out"]
    seat: Annotated[Seat, "the winner"]


class PotEvent(TypedDict):
    """The winner takes the pot (only when the pot holds chips)."""

    type: Literal["pot"]
    seat: Annotated[Seat, "the winner"]
    amount: Annotated[Chips, "the chips in the pot"]


class LeftoverEvent(TypedDict):
    """After the last deal, chips still on a boodle or in the pot go by lot or vanish (`leftover`)."""

    type: Literal["leftover"]
    stack: Annotated[StakeTarget, "where the chips were"]
    seat: Annotated[Seat | None, "who won them by lot; `null` when they vanish"]
    amount: Annotated[Chips, "how many chips"]
    boodle: NotRequired[Annotated[Boodle, 'which boodle; only when `stack` is `"boodle"`']]


Event = (
    StakeEvent
    | DiscardEvent
    | WidowEvent
    | PaymentEvent
    | PassEvent
    | BidEvent
    | AuctionEndEvent
    | PlayEvent
    | BoodleEvent
    | StopEvent
    | BlockedEvent
    | OutEvent
    | PotEvent
    | LeftoverEvent
)


class DealRecord(TypedDict):
    """One deal of a session record (docs/contract.md, "The record of a session")."""

    dealer: Seat
    hands: list[list[Card]]  # as dealt, before discards and exchanges
    dead: list[Card]
    events: list[Event]
    chips: list[int]  # every seat's balance after the deal is settled


# ---------------------------------------------------------------- what a seat sees of an event
#: Fields only the event's own seat may know while the game goes on (docs/rules.md, "What the players know"):
#: a discard's card, and its action (the card's id). Every other field of every event is public.
PRIVATE_FIELDS: dict[str, tuple[str, ...]] = {"discard": ("card", "action")}


def seen_by(event: Mapping[str, Any], seat: int) -> Mapping[str, Any]:
    """``event`` as ``seat`` sees it while the game goes on: the private fields of another seat's event left out.

    A public event is given back as it is (not copied: read it, do not change it).

    >>> seen_by({"type": "discard", "seat": 2, "card": "5C", "action": 4}, 1)
    {'type': 'discard', 'seat': 2}
    >>> seen_by({"type": "discard", "seat": 2, "card": "5C", "action": 4}, 2)["card"]
    '5C'
    """
    hidden = PRIVATE_FIELDS.get(event["type"])
    if hidden is None or event.get("seat") == seat:
        return event
    return {key: value for key, value in event.items() if key not in hidden}


# ---------------------------------------------------------------- checking one value
_PLAIN = (int, str, bool)
Check = Callable[[Any, int | None], bool]  # (value, number of players or None) -> allowed?


def _checker(hint: Any) -> Check:
    """A function that tells whether a value is of the declared type ``hint``."""
    origin: Any = get_origin(hint)
    if origin is Annotated:
        base = _checker(get_args(hint)[0])
        domains = [m for m in hint.__metadata__ if isinstance(m, Domain)]
        if len(domains) > 1:
            raise TypeError(f"events: a value has one domain at most; {hint!r} has {len(domains)}")
        if not domains:
            return base
        allows = domains[0].allows
        return lambda v, n: base(v, n) and allows(v, n)
    if origin is Union or origin is types.UnionType:
        options = tuple(_checker(option) for option in get_args(hint))
        return lambda v, n: any(check(v, n) for check in options)
    if origin is Literal:
        allowed = {(type(a), a) for a in get_args(hint)}
        return lambda v, n: (type(v), v) in allowed
    if hint is None or hint is type(None):
        return lambda v, n: v is None
    if hint in _PLAIN:
        return lambda v, n: type(v) is hint  # exact: a bool is not an int here, JSON tells them apart
    raise TypeError(f"events: no check for the declared type {hint!r}")


# ---------------------------------------------------------------- the table built from the declarations
@dataclass(frozen=True)
class FieldSpec:
    """One field of an event type."""

    name: str
    hint: Any  # the value's type, with its Domain markers, without the meaning
    required: bool
    meaning: str
    accepts: Callable[[Any, int | None], bool] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "accepts", _checker(self.hint))  # built once: checks run per logged event

    @property
    def value_text(self) -> str:
        """The value in words for the docs: ``seat or `null```."""
        return _hint_text(self.hint)


@dataclass(frozen=True)
class EventSpec:
    """One event type: its ``type`` string, what it means and its fields (``type`` itself left out)."""

    type: str
    meaning: str
    fields: tuple[FieldSpec, ...]
    declaration: Any  # the TypedDict
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)  # the fields' names, in order

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(f.name for f in self.fields))


def _spec(declaration: Any) -> EventSpec:
    hints = get_type_hints(declaration, include_extras=True)
    fields = []
    for name, hint in hints.items():
        origin: Any = get_origin(hint)  # Any: a type checker cannot compare typing's special forms
        if origin is NotRequired:
            (hint,) = get_args(hint)
        if name == "type":
            (kind,) = get_args(hint)
            continue
        meanings = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, str)]
        if len(meanings) != 1:
            raise TypeError(f'{declaration.__name__}.{name} needs exactly one meaning: Annotated[type, "..."]')
        fields.append(FieldSpec(name, _without_meaning(hint), name in declaration.__required_keys__, meanings[0]))
    return EventSpec(kind, " ".join((declaration.__doc__ or "").split()), tuple(fields), declaration)


def _without_meaning(hint: Any) -> Any:
    if get_origin(hint) is not Annotated:
        return hint
    markers = tuple(m for m in hint.__metadata__ if not isinstance(m, str))
    base = get_args(hint)[0]
    args = (base, *markers)
    return Annotated[args] if markers else base


#: Every event type by its ``type`` string, in the order of a deal.
EVENTS: dict[str, EventSpec] = {spec.type: spec for spec in map(_spec, get_args(Event))}
EVENT_TYPES: tuple[str, ...] = tuple(EVENTS)


# ---------------------------------------------------------------- checking an event against its declaration
def event_problems(event: Mapping[str, Any], num_players: int | None = None) -> list[str]:
    """What is wrong with ``event`` against its declaration, one line each; ``[]`` when nothing.

    Checks the type, that every required field is there and nothing else, the
    declared order of the keys and each value (Python type, literal or domain;
    seats against ``num_players`` when given).
    """
    spec = EVENTS.get(event.get("type"))  # type: ignore[arg-type]
    if spec is None:
        return [f"unknown event type {event.get('type')!r}; declared types: {', '.join(EVENT_TYPES)}"]
    problems = []
    declared = spec.names
    for name in event:
        if name != "type" and name not in declared:
            problems.append(f"{spec.type}: field {name!r} is not declared (declared: {', '.join(declared)})")
    for item in spec.fields:
        if item.name not in event:
            if item.required:
                problems.append(f"{spec.type}: required field {item.name!r} is missing")
        elif not item.accepts(event[item.name], num_players):
            problems.append(f"{spec.type}: field {item.name!r} is {event[item.name]!r}, not {item.value_text}")
    order = ["type"] + [name for name in declared if name in event]
    if not problems and list(event) != order:
        problems.append(f"{spec.type}: fields in the order {list(event)}, declared order {order}")
    return problems


def check_event(event: Mapping[str, Any], num_players: int | None = None) -> None:
    """Raise ``ValueError`` (one line) if ``event`` does not match its declaration."""
    problems = event_problems(event, num_players)
    if problems:
        raise ValueError(f"event {json.dumps(event)} does not match docs/contract.md: {'; '.join(problems)}")


def _hint_text(hint: Any) -> str:
    origin = get_origin(hint)
    if origin is Annotated:
        domains = [m for m in hint.__metadata__ if isinstance(m, Domain)]
        return domains[0].label if domains else _hint_text(get_args(hint)[0])
    if origin in (Union, types.UnionType):
        return " or ".join(_hint_text(option) for option in get_args(hint))
    if origin is Literal:
        return " or ".join(f"`{json.dumps(allowed)}`" for allowed in get_args(hint))
    if hint is None or hint is type(None):
        return "`null`"
    return getattr(hint, "__name__", str(hint))
