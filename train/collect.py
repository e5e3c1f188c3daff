"""The learner's own decisions at compiled tables: tables played by the current network, some seats by
baselines (expert iteration's DAgger states, Deep Monte-Carlo's self-play).

``tables`` compiled games (:class:`FastGame`) advance together: every seat the learner holds that
is to act gets its action from one numpy forward pass over those tables; baseline seats decide
in C (:class:`CompiledPolicy`). Each learner decision with more than one legal action is recorded
with the chips its seat won from it to the end of the deal, measured as ``search`` measures its
rollouts (the balance after the action that ends the deal, minus the balance before the decision),
times ``reward_scale``. Before the network exists (iteration 0) the learner's seats are played by
the ``first`` baseline. With ``epsilon`` > 0 each learner decision is, with that chance, a legal action
drawn uniformly instead of the network's (epsilon-greedy exploration, from a stream of its own).
Each recorded decision also keeps where the cards hidden from its seat are (:mod:`newmarket_env.train.hidden`,
read from the privileged state): the target of a training-time head, never an input. Deterministic for a seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from newmarket_env.agents._baselines import CompiledPolicy
from newmarket_env.agents.compiled import POLICY_CODES
from newmarket_env.agents.saved import SavedAgent
from newmarket_env.engine._fast import FastGame
from newmarket_env.execution.seeds import derive_seed
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import Rules
from newmarket_env.observation._encode import encode_game  # the compiled encoder fills our arrays
from newmarket_env.observation._state import encode_state_game
from newmarket_env.observation.encode import static_part
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.state import state_static_part
from newmarket_env.observation.state_layout import STATE_SIZE
from newmarket_env.train.hidden import hidden_owners

_GAME_TAG, _SEATS_TAG, _POLICY_TAG, _EXPLORE_TAG = 1, 2, 3, 4


def seatable_baselines() -> list[str]:
    """The baselines these tables can seat: those with a compiled policy."""
    return list(POLICY_CODES)


@dataclass
class States:
    """Recorded learner decisions: flat observations, legal masks, reward-scaled chips to the end of the deal,
    the action taken, and the owners of the cards hidden from the deciding seat (``(K, 52)`` int8, training
    targets only)."""

    obs: np.ndarray
    masks: np.ndarray
    returns: np.ndarray
    actions: np.ndarray
    owners: np.ndarray


class _Table:
    """One session being played: its game, who holds each seat, and the decisions awaiting their deal's end."""

    def __init__(self, rules: Rules, seed: int, seats: list[str | None], policies: dict) -> None:
        self.game = FastGame(rules, seed=seed, record_events=False)
        self.seats = seats  # None: the learner; else a baseline name
        self.policies = policies  # baseline name -> its CompiledPolicy for this table
        self.deal = self.game.deal_index
        # (seat, balance, obs, mask, action, owners of the hidden cards)
        self.pending: list[tuple[int, int, np.ndarray, np.ndarray, int, np.ndarray]] = []


def collect_states(
    rules: Rules,
    policy: SavedAgent | None,
    first: str,
    baselines: Sequence[str],
    baseline_fraction: float,
    tables: int,
    count: int,
    seed: int,
    reward_scale: float,
    epsilon: float = 0.0,
) -> States:
    """Play until ``count`` learner decisions are recorded (those of sessions still running are dropped)."""
    static = static_part(rules)
    state_static = state_static_part(rules)
    state = np.empty(STATE_SIZE, dtype=np.float32)
    rng = np.random.default_rng(derive_seed(seed, _SEATS_TAG))
    explore = np.random.default_rng(derive_seed(seed, _EXPLORE_TAG))
    sessions = 0

    def new_table() -> _Table:
        nonlocal sessions
        sessions += 1
        n = rules.num_players
        seats: list[str | None] = [None] * n
        if policy is not None:
            for s in range(n):
                if baselines and rng.random() < baseline_fraction:
                    seats[s] = baselines[int(rng.integers(len(baselines)))]
            if all(s is not None for s in seats):
                seats[int(rng.integers(n))] = None
        names = {first if s is None else s for s in seats}
        policies = {
            name: CompiledPolicy(name, rules, derive_seed(seed, _POLICY_TAG, sessions, i))
            for i, name in enumerate(sorted(names))
        }
        return _Table(rules, derive_seed(seed, _GAME_TAG, sessions), seats, policies)

    running = [new_table() for _ in range(tables)]
    obs_out: list[np.ndarray] = []
    mask_out: list[np.ndarray] = []
    ret_out: list[float] = []
    act_out: list[int] = []
    owner_out: list[np.ndarray] = []
    while len(ret_out) < count:
        views = []  # (table, seat, obs, mask) of every table's decision this round
        for table in running:
            game = table.game
            seat = game.to_act
            obs = np.empty(FLAT_SIZE, dtype=np.float32)
            encode_game(game, seat, obs, static)
            mask = np.zeros(NUM_ACTIONS, dtype=bool)
            mask[game.legal] = True
            views.append((table, seat, obs, mask))
        learner_rows = [k for k, (t, s, _, _) in enumerate(views) if t.seats[s] is None and policy is not None]
        chosen = {}
        if learner_rows:
            assert policy is not None  # learner rows exist only with a network
            actions = policy.act_batch(
                np.stack([views[k][2] for k in learner_rows]), np.stack([views[k][3] for k in learner_rows])
            )
            chosen = dict(zip(learner_rows, (int(a) for a in actions), strict=True))
            if epsilon > 0:  # no draw at all without exploration: the stream stays the expert tables' own
                for k in learner_rows:
                    if explore.random() < epsilon:
                        chosen[k] = int(explore.choice(np.flatnonzero(views[k][3])))
        for k, (table, seat, obs, mask) in enumerate(views):
            name = table.seats[seat]
            if k not in chosen:
                code_policy = table.policies[first if name is None else name]
                chosen[k] = int(code_policy.act(obs, mask.astype(np.int8)))
            game = table.game
            if name is None and mask.sum() > 1:
                encode_state_game(game, seat, state, state_static)
                owners = hidden_owners(state[None])[0]
                table.pending.append((seat, game.balances[seat], obs, mask, chosen[k], owners))
            game.apply(chosen[k])
            if game.over or game.deal_index != table.deal:
                balances = game.balances
                for s, before, o, m, a, w in table.pending:
                    obs_out.append(o)
                    mask_out.append(m)
                    ret_out.append((balances[s] - before) * reward_scale)
                    act_out.append(a)
                    owner_out.append(w)
                table.pending = []
                table.deal = game.deal_index
        running = [t if not t.game.over else new_table() for t in running]
    return States(
        np.stack(obs_out[:count]),
        np.stack(mask_out[:count]),
        np.asarray(ret_out[:count], dtype=np.float32),
        np.asarray(act_out[:count], dtype=np.int64),
        np.stack(owner_out[:count]),
    )


def check_seatable(baselines: Sequence[str], fraction: float, method: str, fraction_key: str) -> None:
    """``opponents.baselines`` holds only baselines these tables can seat (when ``fraction`` > 0 seats them);
    else a one-line ``ValueError`` naming ``method``, the allowed baselines and ``fraction_key``."""
    seatable = seatable_baselines()
    for name in baselines:
        if name not in seatable and fraction > 0:
            raise ValueError(
                f"opponents.baselines has {name!r}, which {method} cannot seat at its tables; "
                f"allowed: {', '.join(seatable)} (or {fraction_key}: 0)"
            )
