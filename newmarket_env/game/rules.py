"""The rule parameters of docs/rules.md as one frozen, validated dataclass, plus presets.

>>> r = make_rules("michigan", num_players=5)
>>> r.ace_high, r.widow.value, r.num_deals
(True, 'dealer_or_auction', 5)
>>> make_rules("newmarket", colour="red")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown rules parameter 'colour'; allowed parameters: ace_high, boodle_stake, boodles, ...
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Any

from newmarket_env.game.cards import NUM_CARDS, card_from_text, card_text


class StakeMode(str, Enum):
    SPREAD = "spread"
    CHOOSE = "choose"
    EACH = "each"
    HOUSE = "house"


class DeadHand(str, Enum):
    DEALT = "dealt"
    DISCARD = "discard"
    NONE = "none"


class DeadHandPosition(str, Enum):
    FIRST = "first"
    BEFORE_DEALER = "before_dealer"
    LAST = "last"


class Widow(str, Enum):
    NONE = "none"
    DEALER_BUY = "dealer_buy"
    DEALER_OR_AUCTION = "dealer_or_auction"


class FirstLead(str, Enum):
    ELDEST = "eldest"
    LOWEST_CLUB = "lowest_club"


class LeadRule(str, Enum):
    LOWEST_ANY_SUIT = "lowest_any_suit"
    LOWEST_OTHER_SUIT = "lowest_other_suit"
    LOWEST_OPPOSITE_COLOUR = "lowest_opposite_colour"
    ANY_OPPOSITE_COLOUR = "any_opposite_colour"


class Leftover(str, Enum):
    LOT = "lot"
    VANISH = "vanish"


MIN_PLAYERS, MAX_PLAYERS = 3, 8
MAX_BID_LIMIT = 20
NUM_BOODLES = 4

# Upper bounds of the amounts, so that both engines accept exactly the same rules and compute the same
# numbers. The compiled engine (engine/_table.pxd) keeps rule amounts in C ``int`` (32 bits: at most
# 2**31 - 1 = 2,147,483,647) and multiplies them in ``int``; the reference engine uses Python ints and
# never overflows. The bounds keep every amount either engine computes inside C int range:
#
# Per deal, the chips that change hands are at most (n <= 8 players, M = dealer multiplier):
#   stakes    antes pot_ante * (n - 1 + M) <= 10,000 * 17 = 170,000, plus boodle stakes; the largest
#             boodle stake is stake_mode="each", 4 * boodle_stake * (n - 1 + M) <= 680,000 ("spread" and
#             "choose" pay boodle_stake * (n - 1 + M), "house" pays house_pot + 4 * house_boodle
#             <= 50,000 instead of antes and stakes): at most 850,000
#   widow     widow_fee <= 10,000, or a winning bid <= MAX_BID_LIMIT = 20
#   payments  per_card_payment for each card left in the losers' hands, at most 52 cards: <= 520,000
#   in all    <= 1,380,020 chips per deal.
# Over a session of at most MAX_DEALS = 1,000 deals that is <= 1,380,020,000 chips. The pot and every
# boodle stack (which carry over while deals end without a winner, e.g. blocked Newbury deals) hold at
# most the chips staked in the session, and a balance moves from its start (|starting_chips| <=
# 1,000,000) by at most the chips that change hands: every amount stays within +-1,381,020,000,
# below 2**31 - 1 with room to spare, and every single product (an ante times the multiplier, a
# per-card payment times 52) is far smaller. tests/engine/test_rule_bounds.py checks this sum and
# plays both engines at the bounds.
MAX_AMOUNT = 10_000  # pot_ante, boodle_stake, house_pot, house_boodle, widow_fee, per_card_payment
MAX_DEALER_MULTIPLIER = 10  # dealer_stake_multiplier
MAX_DEALS = 1_000  # num_deals
MAX_STARTING_CHIPS = 1_000_000  # |starting_chips|

_ENUM_FIELDS: dict[str, type[Enum]] = {
    "stake_mode": StakeMode,
    "dead_hand": DeadHand,
    "dead_hand_position": DeadHandPosition,
    "widow": Widow,
    "first_lead": FirstLead,
    "lead_after_stop": LeadRule,
    "leftover": Leftover,
}
_NON_NEGATIVE = ("pot_ante", "boodle_stake", "house_pot", "house_boodle", "widow_fee", "per_card_payment")


@dataclass(frozen=True)
class Rules:
    """Every rule parameter of docs/rules.md; build one with :func:`make_rules`."""

    num_players: int = 4
    removed_cards: tuple[str, ...] = ()
    ace_high: bool = False
    boodles: tuple[str, ...] = ("AS", "KH", "QC", "JD")
    pot_ante: int = 1
    boodle_stake: int = 4
    stake_mode: StakeMode = StakeMode.SPREAD
    house_pot: int = 4
    house_boodle: int = 1
    dealer_stake_multiplier: int = 1
    dead_hand: DeadHand = DeadHand.DEALT
    dead_hand_position: DeadHandPosition = DeadHandPosition.LAST
    discard_count: int = 3
    widow: Widow = Widow.NONE
    widow_fee: int = 4
    min_bid: int = 1
    max_bid: int = 20
    first_lead: FirstLead = FirstLead.ELDEST
    lead_after_stop: LeadRule = LeadRule.LOWEST_OTHER_SUIT
    per_card_payment: int = 1
    leftover: Leftover = Leftover.LOT
    num_deals: int = 4
    starting_chips: int = 40
    # Players allowed by the variant this came from (Newbury: exactly 4).
    allowed_players: tuple[int, int] = field(default=(MIN_PLAYERS, MAX_PLAYERS), compare=False, repr=False)

    def __post_init__(self) -> None:
        _validate(self)

    # Derived values the engine reads often.
    # Cached: agents and encoders read these at every decision. (cached_property writes the
    # instance __dict__ directly, which a frozen dataclass allows.)
    @cached_property
    def boodle_cards(self) -> tuple[int, ...]:
        return tuple(card_from_text(t) for t in self.boodles)

    @cached_property
    def removed_mask(self) -> int:
        mask = 0
        for text in self.removed_cards:
            mask |= 1 << card_from_text(text)
        return mask

    @property
    def chips_conserved(self) -> bool:
        """House stakes create points; every other mode only moves chips."""
        return self.stake_mode is not StakeMode.HOUSE

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready parameters by their docs/rules.md names."""
        out = {}
        for f in dataclasses.fields(self):
            if f.name == "allowed_players":
                continue
            value = getattr(self, f.name)
            if isinstance(value, Enum):
                value = value.value
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


PARAMETER_NAMES = tuple(sorted(f.name for f in dataclasses.fields(Rules) if f.name != "allowed_players"))


def _fail(name: str, value: Any, allowed: str, problem: str = "is out of range") -> None:
    raise ValueError(f"rules parameter {name}={value!r} {problem}; allowed: {allowed}")


def _int_range(low: int | None, high: int | None) -> str:
    if low is None:
        return "an int"
    return f"an int {low}..{high}" if high is not None else f"an int >= {low}"


def _check_int(name: str, value: Any, low: int | None = None, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        # A value of the wrong kind (text, a float, True) is not "out of range": say what it is.
        _fail(name, value, _int_range(low, high), f"is not an int (got {type(value).__name__})")
    if (low is not None and value < low) or (high is not None and value > high):
        _fail(name, value, _int_range(low, high))


def _validate(rules: Rules) -> None:
    low, high = rules.allowed_players
    _check_int("num_players", rules.num_players, low, high)
    for name in _NON_NEGATIVE:
        _check_int(name, getattr(rules, name), 0, MAX_AMOUNT)
    _check_int("dealer_stake_multiplier", rules.dealer_stake_multiplier, 1, MAX_DEALER_MULTIPLIER)
    _check_int("discard_count", rules.discard_count, 1)
    _check_int("num_deals", rules.num_deals, 1, MAX_DEALS)
    _check_int("starting_chips", rules.starting_chips, -MAX_STARTING_CHIPS, MAX_STARTING_CHIPS)
    _check_int("min_bid", rules.min_bid, 1, MAX_BID_LIMIT)
    _check_int("max_bid", rules.max_bid, rules.min_bid, MAX_BID_LIMIT)
    if not isinstance(rules.ace_high, bool):
        _fail("ace_high", rules.ace_high, "True or False", f"is not a bool (got {type(rules.ace_high).__name__})")
    for name, enum in _ENUM_FIELDS.items():
        if not isinstance(getattr(rules, name), enum):
            _fail(name, getattr(rules, name), ", ".join(m.value for m in enum))
    _validate_cards(rules)
    if rules.widow is not Widow.NONE and rules.dead_hand is not DeadHand.DEALT:
        _fail("widow", rules.widow.value, "'none' unless dead_hand='dealt'")
    _validate_deck_size(rules)


def _validate_cards(rules: Rules) -> None:
    boodles = [card_from_text(t) for t in rules.boodles]
    if len(boodles) != NUM_BOODLES or len(set(boodles)) != NUM_BOODLES:
        _fail("boodles", rules.boodles, f"{NUM_BOODLES} distinct card texts such as ('AS', 'KH', 'QC', 'JD')")
    removed = [card_from_text(t) for t in rules.removed_cards]
    if len(set(removed)) != len(removed):
        _fail("removed_cards", rules.removed_cards, "distinct card texts")
    taken_out = [text for text, card in zip(rules.boodles, boodles, strict=True) if card in removed]
    if taken_out:
        # A boodle card that is not in the pack could never be played: its stakes would only ever go by lot.
        _fail("boodles", rules.boodles, f"cards still in the pack; {', '.join(taken_out)} is in removed_cards")


def _validate_deck_size(rules: Rules) -> None:
    deck = NUM_CARDS - len(rules.removed_cards)
    hands = rules.num_players + (1 if rules.dead_hand is DeadHand.DEALT else 0)
    smallest = deck // hands
    needed = rules.discard_count + 1 if rules.dead_hand is DeadHand.DISCARD else 1
    if smallest < needed:
        _fail(
            "removed_cards" if rules.dead_hand is not DeadHand.DISCARD else "discard_count",
            rules.removed_cards if rules.dead_hand is not DeadHand.DISCARD else rules.discard_count,
            f"a deck that gives each of {rules.num_players} players at least {needed} card(s)",
        )


def _normalise(name: str, value: Any) -> Any:
    """Turn user-friendly values (strings, lists) into the dataclass types."""
    if name in _ENUM_FIELDS:
        enum = _ENUM_FIELDS[name]
        try:
            return enum(value.value if isinstance(value, Enum) else value)
        except ValueError:
            _fail(name, value, ", ".join(m.value for m in enum), "is unknown")
    if name in ("boodles", "removed_cards"):
        if isinstance(value, str) or not hasattr(value, "__iter__"):
            _fail(name, value, "a tuple of card texts such as ('AS', 'KH')")
        texts = []
        for text in value:
            try:
                texts.append(card_text(card_from_text(text)))
            except ValueError as err:
                raise ValueError(f"rules parameter {name}: {err}") from None
        return tuple(texts)
    return value


# --- presets -------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """A named preset: parameter values plus the player counts it allows."""

    name: str
    source: str
    params: Mapping[str, Any]
    players: tuple[int, int] = (MIN_PLAYERS, MAX_PLAYERS)
    default_players: int = 4
    default_deals: int | None = None  # None: one deal per player
    summary: str = ""  # one sentence for the docs: what sets this preset apart


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            "newmarket",
            "seed 000",
            dict(
                boodles=("AS", "KH", "QC", "JD"),
                pot_ante=1,
                boodle_stake=4,
                stake_mode="spread",
                dead_hand="dealt",
                dead_hand_position="last",
                widow="none",
                first_lead="eldest",
                lead_after_stop="lowest_other_suit",
                per_card_payment=1,
                leftover="lot",
                starting_chips=40,
            ),
            summary=(
                "the English game: a pot and four boodles, a dealt dead hand, and after a stop the lowest card "
                "of another suit leads."
            ),
        ),
        Variant(
            "michigan",
            "seed 003",
            dict(
                ace_high=True,
                boodles=("AH", "KC", "QD", "JS"),
                pot_ante=0,
                boodle_stake=1,
                stake_mode="each",
                dead_hand="dealt",
                dead_hand_position="first",
                widow="dealer_or_auction",
                min_bid=1,
                max_bid=20,
                first_lead="eldest",
                lead_after_stop="lowest_opposite_colour",
                per_card_payment=1,
                leftover="lot",
                starting_chips=40,
            ),
            summary=(
                "Michigan (Boodle), the American game: aces high; the dealer may take the widow unseen or it is "
                "auctioned; after a stop the lead goes to the other colour."
            ),
        ),
        Variant(
            "newbury",
            "seed 001",
            dict(
                boodles=("TC", "JD", "QS", "KH"),
                pot_ante=0,
                boodle_stake=0,
                stake_mode="house",
                house_pot=4,
                house_boodle=1,
                dead_hand="discard",
                discard_count=3,
                widow="none",
                first_lead="lowest_club",
                lead_after_stop="any_opposite_colour",
                per_card_payment=0,
                leftover="vanish",
                starting_chips=0,
            ),
            players=(4, 4),
            default_deals=12,
            summary=(
                "Newbury Market: exactly 4 players scoring points from the house, no chips of their own; each "
                "player discards 3 cards into the dead hand; the lowest club leads first."
            ),
        ),
        Variant(
            "hoyle1885",
            "seed 004",
            dict(
                removed_cards=("8D",),
                boodles=("AS", "KH", "QC", "JD"),
                pot_ante=0,
                boodle_stake=4,
                stake_mode="spread",
                dealer_stake_multiplier=2,
                dead_hand="dealt",
                dead_hand_position="before_dealer",
                widow="none",
                first_lead="eldest",
                lead_after_stop="lowest_any_suit",
                per_card_payment=1,
                leftover="lot",
                starting_chips=40,
            ),
            summary=("the 1885 Hoyle rules: the 8 of diamonds is taken out, the dealer stakes double."),
        ),
        Variant(
            "arnold2011",
            "seed 004",
            dict(
                boodles=("KH", "QS", "JD", "TC"),
                pot_ante=1,
                boodle_stake=4,
                stake_mode="spread",
                dead_hand="dealt",
                dead_hand_position="last",
                widow="none",
                first_lead="eldest",
                lead_after_stop="lowest_any_suit",
                per_card_payment=0,
                leftover="lot",
                starting_chips=40,
            ),
            summary=("the 2011 rules of Arnold: no payments for cards left in hand."),
        ),
    )
}


def find_variant(name: str) -> Variant:
    if name not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}; allowed variants: {', '.join(VARIANTS)}")
    return VARIANTS[name]


def make_rules(variant: str = "newmarket", num_players: int | None = None, **overrides: Any) -> Rules:
    """The preset ``variant`` with ``overrides`` applied, validated."""
    preset = find_variant(variant)
    unknown = sorted(set(overrides) - set(PARAMETER_NAMES))
    if unknown:
        raise ValueError(f"unknown rules parameter {unknown[0]!r}; allowed parameters: {', '.join(PARAMETER_NAMES)}")
    players = preset.default_players if num_players is None else num_players
    low, high = preset.players
    if isinstance(players, bool) or not isinstance(players, int) or not low <= players <= high:
        allowed = f"{low}" if low == high else f"{low}..{high}"
        raise ValueError(f"rules parameter num_players={players!r} is out of range for {variant!r}; allowed: {allowed}")
    params = dict(preset.params)
    params["num_deals"] = preset.default_deals or players
    params.update(overrides)
    values = {name: _normalise(name, value) for name, value in params.items()}
    return Rules(num_players=players, allowed_players=preset.players, **values)


def rules_from_dict(data: Mapping[str, Any], allowed_players: tuple[int, int] = (MIN_PLAYERS, MAX_PLAYERS)) -> Rules:
    """Rebuild rules from :meth:`Rules.to_dict` output (e.g. a saved record)."""
    unknown = sorted(set(data) - set(PARAMETER_NAMES))
    if unknown:
        raise ValueError(f"unknown rules parameter {unknown[0]!r}; allowed parameters: {', '.join(PARAMETER_NAMES)}")
    values = {name: _normalise(name, value) for name, value in data.items()}
    return Rules(allowed_players=allowed_players, **values)


# ---------------------------------------------------------------------- rules overrides as text
CARD_LISTS = ("boodles", "removed_cards")
_TRUE, _FALSE = ("true", "yes", "on"), ("false", "no", "off")


def parse_setting(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` as a rules override; ints, booleans and card lists are converted.

    >>> parse_setting("num_deals=1"), parse_setting("boodles=AS,KS,QS,JS")
    (('num_deals', 1), ('boodles', ('AS', 'KS', 'QS', 'JS')))
    >>> parse_setting("ace_high=yes"), parse_setting("widow=dealer_buy"), parse_setting("removed_cards=")
    (('ace_high', True), ('widow', 'dealer_buy'), ('removed_cards', ()))
    """
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key:
        raise ValueError(f"--set {text!r} is not KEY=VALUE, e.g. --set num_deals=1")
    if key == "num_players":
        raise ValueError("--set num_players: give the number of players with --players instead")
    if key not in PARAMETER_NAMES:
        raise ValueError(f"--set {key}: unknown rules parameter; allowed: {', '.join(PARAMETER_NAMES)}")
    if key in CARD_LISTS:
        return key, tuple(card.strip() for card in raw.split(",") if card.strip())
    if raw.lower() in _TRUE + _FALSE:
        return key, raw.lower() in _TRUE
    try:
        return key, int(raw)
    except ValueError:
        return key, raw


def parse_settings(texts: list[str] | None) -> dict[str, object]:
    """All ``--set`` options; a key given twice is an error rather than a silent overwrite."""
    out: dict[str, object] = {}
    for text in texts or []:
        key, value = parse_setting(text)
        if key in out:
            raise ValueError(f"--set {key} is given twice")
        out[key] = value
    return out
