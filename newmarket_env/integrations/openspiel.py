"""The game in OpenSpiel: ``import newmarket_env.integrations.openspiel`` registers ``python_newmarket``.

>>> import pyspiel
>>> import newmarket_env.integrations.openspiel
>>> game = pyspiel.load_game("python_newmarket", {"variant": "michigan", "players": 5})
>>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
(5, 79, 52)

Parameters: ``variant`` (a preset of docs/rules.md, default ``newmarket``), ``players`` (default 4) and
``rules``, rules overrides as ``KEY:VALUE`` items separated by ``;``, card lists joined by ``/``
(``"num_deals:1;boodles:AS/KS/QS/JS"``: OpenSpiel's game strings keep ``=`` and ``,`` for themselves).

- **Chance is explicit.** Each deal is dealt by chance nodes, one card at a time in the dealing order
  (every card left in the deck equally likely), when the engine deals it: after the stakes, which the
  players choose before they see their cards. With ``leftover="lot"``, the chips left on the table at
  the end are drawn by lot at chance nodes too (each seat equally likely, one draw per stack). Nothing
  else is random.
- **Players** decide exactly the decisions the PettingZoo env asks (a decision with one legal action is
  taken by the engine, as the env does); actions are the package's 79 action ids.
- **Observations** come from the package's own encoder: ``observation_tensor`` is the flat observation
  (``FLAT_SIZE`` floats) the env gives that player, ``observation_string`` its readable decoding. The
  **information state** is perfect recall: ``information_state_string`` names what the player saw at
  every step of the game (the events of the step as it saw them, then its observation; the step count and
  a SHA-256 digest of them), so two histories share it exactly when the player saw the same things in the
  same order. ``information_state_tensor`` is the flat observation followed by the deal's history as the
  player saw it (``newmarket_env.observation.history``: the order of play, the auction, the chosen stakes,
  its own discards), ``INFO_STATE_SIZE`` floats, a function of the information state.
- **Returns** are each player's chips won or lost over the session (the reward model is terminal; the
  game is general-sum: house stakes and vanishing leftovers add or remove chips).

The states run the pure-Python engine (``newmarket_env.engine.game``), so the sessions are those of
the env on the same deals and decisions (``tests/integrations/test_openspiel.py`` checks this against the
env on the compiled engine). ``resample_from_infostate`` deals the cards a player cannot see anew, as
the ``search`` agent samples its worlds, so OpenSpiel's IS-MCTS can search it.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import numpy as np
import pyspiel

from newmarket_env import load_agent
from newmarket_env.agents.sampling import sample_cards
from newmarket_env.engine.dealing import DEAD_SLOT, DealtCards, dealing_order, sorted_deck
from newmarket_env.engine.events import Event, seen_by
from newmarket_env.engine.game import NOBODY, Game
from newmarket_env.engine.record import session_record
from newmarket_env.envs.aec import raw_env
from newmarket_env.game import actions as A
from newmarket_env.game.cards import card_from_text, cards_to_text
from newmarket_env.game.rules import Leftover, Rules, make_rules, parse_settings
from newmarket_env.observation.encode import encode_flat, static_part
from newmarket_env.observation.history import INFO_STATE_PIECES, encode_info_state
from newmarket_env.observation.layout import FLAT_SIZE, offsets
from newmarket_env.observation.view import view_of_game

GAME_NAME = "python_newmarket"
MIN_PLAYERS, MAX_PLAYERS = 3, 8
_PARAMETERS = {"variant": "newmarket", "players": 4, "rules": ""}


class _AwaitingDeal(Exception):
    """Raised inside the engine where it would shuffle: the cards come from chance nodes instead."""


class ChanceGame(Game):
    """The reference engine with its two random draws taken out: the deal and the lots.

    Where :class:`Game` shuffles (when a deal's stakes are in) it stops with ``awaiting_deal`` set until
    :meth:`deal` gives the cards; where it draws lots for the leftover chips (after the last deal) it
    stops with ``leftovers_pending`` set until :meth:`settle_by_lots` gives the seats. Between those stops
    it is the reference engine, unchanged.
    """

    awaiting_deal = False
    leftovers_pending = False

    def _deal_cards(self) -> None:
        if self._dealt is None:
            raise _AwaitingDeal
        super()._deal_cards()

    def _advance(self) -> None:
        try:
            super()._advance()
        except _AwaitingDeal:  # left before the deal: phase STAKE, every stake in
            self.awaiting_deal = True

    def _settle_leftovers(self) -> None:
        if self.rules.leftover is Leftover.LOT and self.lots_needed():
            self.leftovers_pending = True  # settled by settle_by_lots, with the lots chance draws
            return
        super()._settle_leftovers()

    def copy(self) -> ChanceGame:
        clone = super().copy()  # copy.copy keeps the class: a ChanceGame with the same stops pending
        assert isinstance(clone, ChanceGame)
        return clone

    def lots_needed(self) -> int:
        """One lot for each boodle or pot still holding chips."""
        return sum(1 for amount in [*self.boodle_stacks, self.pot] if amount)

    def deal(self, dealt: DealtCards) -> None:
        """The cards the engine was waiting for; play goes on to the next real decision."""
        self._dealt, self.awaiting_deal = dealt, False
        self._advance()

    def settle_by_lots(self, lots: list[int]) -> None:
        """The leftover chips go to the seats drawn, as ``Game`` gives them with ``lots=``."""
        self._queued_lots, self.leftovers_pending = list(lots), False
        Game._settle_leftovers(self)
        if self.record_events:
            self.deals[-1]["chips"] = list(self.balances)


def rules_from_parameters(params: dict[str, Any]) -> Rules:
    """The rules of ``variant``, ``players`` and the ``rules`` overrides (``KEY:VALUE;KEY:VALUE``, card lists
    joined by ``/``: OpenSpiel's game strings keep ``=`` and ``,`` for their own parameters)."""
    items = []
    for item in str(params.get("rules", "")).split(";"):
        if item.strip():
            key, sep, value = item.partition(":")
            if not sep:
                raise ValueError(f"rules item {item!r} is not KEY:VALUE, e.g. rules=num_deals:1;boodles:AS/KS/QS/JS")
            items.append(f"{key}={value.replace('/', ',')}")
    return make_rules(str(params.get("variant", "newmarket")), int(params.get("players", 4)), **parse_settings(items))


def _game_info(rules: Rules) -> pyspiel.GameInfo:
    """Bounds from the rules: what one seat can lose, win, and how many decisions a session can hold."""
    n, deals = rules.num_players, rules.num_deals
    most_stake = max(rules.dealer_stake_multiplier, 1) * (rules.pot_ante + rules.boodle_stake)
    loss = most_stake + rules.widow_fee + rules.max_bid + rules.per_card_payment * 52
    house = rules.house_pot + 4 * rules.house_boodle
    decisions = n * (rules.boodle_stake + rules.discard_count) + n * (rules.max_bid - rules.min_bid + 3) + 52
    return pyspiel.GameInfo(
        num_distinct_actions=A.NUM_ACTIONS,
        max_chance_outcomes=52,
        num_players=n,
        min_utility=float(-deals * loss),
        max_utility=float(deals * ((n - 1) * loss + house)),
        utility_sum=None,
        max_game_length=deals * decisions,
    )


GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Newmarket and other stops games (newmarket_env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)


class NewmarketGame(pyspiel.Game):
    """One rules set (``variant``, ``players``, ``rules``) as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_PARAMETERS, **(params or {})}
        self.rules = rules_from_parameters(params)
        self.static = static_part(self.rules)
        super().__init__(GAME_TYPE, _game_info(self.rules), params)

    def new_initial_state(self) -> NewmarketState:
        return NewmarketState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> NewmarketObserver:
        return NewmarketObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params, self)


class NewmarketState(pyspiel.State):
    """A session in progress: the engine's game, the cards drawn for the deal in hand, and each player's
    observation digest."""

    def __init__(self, game: NewmarketGame) -> None:
        super().__init__(game)
        self._rules, self._static = game.rules, game.static
        self.engine = ChanceGame(game.rules, seed=0)  # its generator is never drawn: chance nodes deal
        self._drawn: list[int] = []  # cards dealt so far in the deal in hand, in dealing order
        self._lots: list[int] = []
        self._steps = 0
        self._variant = str(game.get_parameters()["variant"])
        self._digests = [hashlib.sha256(f"seat {p}".encode()).digest() for p in range(self._rules.num_players)]
        self._events_seen = (0, 0)  # (deals begun, events of the last of them) already in the digests
        self._observe()

    # ------------------------------------------------------------------ whose turn
    def current_player(self) -> int:
        if self.engine.awaiting_deal or self.engine.leftovers_pending:
            return int(pyspiel.PlayerId.CHANCE)
        if self.engine.over:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.engine.to_act)

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.engine.legal) if player == self.engine.to_act else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.engine.awaiting_deal:
            left = [card for card in sorted_deck(self._rules.removed_mask) if card not in set(self._drawn)]
            return [(card, 1.0 / len(left)) for card in left]
        n = self._rules.num_players
        return [(seat, 1.0 / n) for seat in range(n)]

    # ------------------------------------------------------------------ moves
    def _apply_action(self, action: int) -> None:
        engine = self.engine
        if engine.awaiting_deal:
            self._drawn.append(int(action))
            if len(self._drawn) == len(sorted_deck(self._rules.removed_mask)):
                engine.deal(dealt_from_draws(self._rules, engine.dealer, self._drawn))
                self._drawn = []
        elif engine.leftovers_pending:
            self._lots.append(int(action))
            if len(self._lots) == engine.lots_needed():
                engine.settle_by_lots(self._lots)
        else:
            engine.apply(int(action))
        self._steps += 1
        self._observe()

    def _observe(self) -> None:
        """Add what every player saw in this step to its digest (perfect recall): the step's events as the
        player saw them (in the order they happened: one decision can play several runs), then its observation."""
        events = self._new_events()
        for player, digest in enumerate(self._digests):
            seen = json.dumps([seen_by(event, player) for event in events]).encode() if events else b""
            observation = encode_flat(self.engine, player, self._static).tobytes()
            self._digests[player] = hashlib.sha256(digest + seen + observation).digest()

    def _new_events(self) -> list[Event]:
        """The events logged since the last step (a step may end a deal and begin the next)."""
        deals = self.engine.deals
        begun, logged = self._events_seen
        new: list[Event] = []
        for index in range(max(begun - 1, 0), len(deals)):
            new.extend(deals[index]["events"][logged if index == begun - 1 else 0 :])
        self._events_seen = (len(deals), len(deals[-1]["events"]) if deals else 0)
        return new

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"lot: seat {action}" if self.engine.leftovers_pending else f"deal {cards_to_text(1 << action)[0]}"
        return A.action_text(action)

    # ------------------------------------------------------------------ the end
    def is_terminal(self) -> bool:
        return bool(self.engine.over and not self.engine.leftovers_pending)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._rules.num_players
        return [float(b - self._rules.starting_chips) for b in self.engine.balances]

    def record(self) -> dict[str, Any]:
        """The session record (docs/contract.md), as the env's ``record()`` gives it."""
        return session_record(self.engine, self._variant)

    # ------------------------------------------------------------------ imperfect information
    def information_digest(self, player: int) -> str:
        return f"p{player} step {self._steps} {self._digests[player].hex()}"

    def resample_from_infostate(self, player: int, sampler: Any) -> NewmarketState:
        """A state ``player`` cannot tell from this one: the cards it cannot see dealt anew (as ``search``
        samples its worlds), everything public and its own cards kept. The other players' digests are not
        theirs in that world; they are marked as resampled."""
        clone = self.clone()
        engine = clone.engine
        if any(engine.hands) and not engine.over:
            rng = random.Random(int(sampler() * 2**31))
            relative, dead = sample_cards(view_of_game(engine, player), self._rules, rng)
            n = self._rules.num_players
            engine.hands = [relative[(seat - player) % n] for seat in range(n)]
            engine.dead = dead
            engine.owner = [NOBODY] * 52
            for seat, hand in enumerate(engine.hands):
                engine._set_owner(hand, seat)
            engine.known_dead = [known if seat == player else 0 for seat, known in enumerate(engine.known_dead)]
        for other in range(self._rules.num_players):
            if other != player:
                clone._digests[other] = hashlib.sha256(f"resampled seat {other}".encode()).digest()
        return clone

    def __str__(self) -> str:
        engine = self.engine
        hands = " | ".join(" ".join(cards_to_text(h)) for h in engine.hands)
        return f"deal {engine.deal_index} dealer {engine.dealer} chips {engine.balances} hands {hands}"


def dealt_from_draws(rules: Rules, dealer: int, drawn: list[int]) -> DealtCards:
    """The deal that hands out ``drawn`` one card at a time in the dealing order, as a shuffled deck is."""
    order = dealing_order(rules, dealer)
    masks = dict.fromkeys(order, 0)
    for i, card in enumerate(drawn):
        masks[order[i % len(order)]] |= 1 << card
    return DealtCards(dealer, tuple(masks[s] for s in range(rules.num_players)), masks.get(DEAD_SLOT, 0))


def draws_for_deal(rules: Rules, deal: dict[str, Any]) -> list[int]:
    """Chance outcomes that deal ``deal`` (a record's ``dealer``, ``hands``, ``dead``): the inverse of
    :func:`dealt_from_draws`, one card of each slot's hand per round of the dealing order."""
    order = dealing_order(rules, deal["dealer"])
    piles = {
        slot: sorted(card_from_text(c) for c in (deal["dead"] if slot == DEAD_SLOT else deal["hands"][slot]))
        for slot in order
    }
    drawn = []
    while any(piles.values()):
        for slot in order:
            if piles[slot]:
                drawn.append(piles[slot].pop(0))
    return drawn


class NewmarketObserver:
    """OpenSpiel's view of a state for one player: the package's flat observation; with perfect recall, the
    flat observation and the deal's history as the player saw it (``observation.history``), and the digest."""

    def __init__(self, iig_obs_type: Any, params: Any, game: NewmarketGame) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("python_newmarket observes one player's view only (public and its private information)")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        if self.perfect_recall:  # the information state: every piece by name, as OpenSpiel's own games name them
            slots = offsets(INFO_STATE_PIECES)
            self.tensor = np.zeros(max(where.stop for where in slots.values()), np.float32)
            self.dict = {name: self.tensor[where] for name, where in slots.items()}
        else:
            self.tensor = np.zeros(FLAT_SIZE, np.float32)
            self.dict = {"observation": self.tensor}
        self._static = game.static

    def set_from(self, state: NewmarketState, player: int) -> None:
        if self.perfect_recall:
            self.tensor[:] = encode_info_state(state.engine, player, self._static)
        else:
            self.tensor[:] = encode_flat(state.engine, player, self._static)

    def string_from(self, state: NewmarketState, player: int) -> str:
        if self.perfect_recall:
            return state.information_digest(player)
        return _observation_text(state, player)


def _observation_text(state: NewmarketState, player: int) -> str:
    """What ``player`` sees, decoded from its flat observation (so it holds nothing the tensor does not)."""
    view = view_of_game(state.engine, player)
    decision = view.decision.value if view.decision is not None else "-"

    def cards(mask: int) -> str:
        return " ".join(cards_to_text(mask)) or "-"

    return (
        f"p{player} hand {cards(view.hand)}; played {cards(view.played)}; known dead {cards(view.known_dead)}"
        f"; counts {list(view.card_counts)}; chips {list(view.balances)}; boodles {list(view.boodle_stacks)}"
        f"; pot {view.pot}; decides {decision}"
    )


class AgentBot(pyspiel.Bot):
    """A package agent as an OpenSpiel bot (``evaluate_bots``, ``pyspiel`` tournaments): it is given the
    observation dict the env would give it (the player's flat observation and the legal actions' mask)."""

    def __init__(self, agent: Any, player: int) -> None:
        pyspiel.Bot.__init__(self)
        self.agent, self.player = agent, player

    def restart_at(self, state: NewmarketState) -> None:
        self.agent.reset()

    def inform_action(self, state: NewmarketState, player_id: int, action: int) -> None:
        """Nothing to do: the agent reads everything from its next observation."""

    def step(self, state: NewmarketState) -> int:
        mask = np.zeros(A.NUM_ACTIONS, np.int8)
        mask[state.legal_actions(self.player)] = 1
        observation = np.asarray(state.observation_tensor(self.player), dtype=np.float32)
        return int(self.agent.act({"observation": observation, "action_mask": mask}))


def agent_bot(spec: str, game: NewmarketGame, player: int, seed: int | None = None, **options: Any) -> AgentBot:
    """The bot of ``load_agent(spec, ...)`` (a name, a saved agent's path, ``MODULE:ATTR``) for ``game``'s rules."""
    params = game.get_parameters()
    overrides = game.rules.to_dict()
    overrides.pop("num_players")
    table = raw_env(variant=str(params["variant"]), num_players=game.rules.num_players, **overrides)
    return AgentBot(load_agent(spec, env=table, seed=seed, **options), player)


pyspiel.register_game(GAME_TYPE, NewmarketGame)

__all__ = [
    "GAME_NAME",
    "NewmarketGame",
    "NewmarketState",
    "ChanceGame",
    "AgentBot",
    "agent_bot",
    "dealt_from_draws",
    "draws_for_deal",
    "rules_from_parameters",
]
