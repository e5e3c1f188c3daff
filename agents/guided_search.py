"""``guided_search``: ``search`` whose rollouts are played by a trained network, optionally cut short by its value.

Same worlds and candidates as :class:`~newmarket_env.agents.search.SearchAgent` (sampled from
what the agent knows, the viewer at seat 0), but every seat of every rollout plays the network's
greedy action (``network``: a saved-agent ``.npz``, e.g. the ``final.npz`` of an expert-iteration
run) instead of ``control``. The rollouts of all ``budget`` worlds x candidates advance together on
a compiled ``TableBatch`` (one table per world and candidate): at each step one numpy forward pass
decides for every unfinished rollout and one ``step`` call applies the actions.

``cutoff`` > 0 stops each rollout after that many decisions and adds what the value network
(``value``: a ``final_value.npz``, :mod:`newmarket_env.agents.value_net`) expects the viewer to win
from there to the end of the deal; ``cutoff`` = 0 plays every rollout to the end of the deal.
``prior="network"`` lets the network's logits rank the candidates (``"control"``: the baseline's
ranking, as ``search``). ``rollout="control"`` keeps ``search``'s own rollouts (compiled ``control``
at every seat) and uses the network only through the prior: the network proposes its
``max_candidates`` favourite actions and the search chooses among them, on fewer rollouts than
``search`` (which tries 5). Deterministic for a given seed. Needs the compiled engine.
``budget=2, cutoff=1`` thinks no longer than ``search`` at its default budget in newmarket,
michigan and newbury (docs/training/README.md, eval/bench/guided.py).

>>> from newmarket_env import raw_env, load_agent
>>> e = raw_env(variant="newmarket", num_players=4)
>>> load_agent("guided_search", env=e)
Traceback (most recent call last):
ValueError: guided_search needs network=PATH (a saved-agent .npz, e.g. runs/<run>/final.npz)
"""

from __future__ import annotations

import copy
import os
from typing import Any

import numpy as np

from newmarket_env.agents import knowledge as K
from newmarket_env.agents.sampling import VIEWER, position_of
from newmarket_env.agents.saved import SavedAgent, load_saved_agent
from newmarket_env.agents.search import SearchAgent, compiled_means
from newmarket_env.agents.value_net import ValueNet, load_value
from newmarket_env.engine.choice import compiled_available
from newmarket_env.engine.types import Decision
from newmarket_env.observation.view import ObservationView
from newmarket_env.rules import Rules

PRIORS = ("control", "network")
#: Who plays the rollouts: the network (on a TableBatch) or search's compiled ``control``.
ROLLOUTS = ("network", "control")
_CONTROLLER: list[Any] = []


def _blas_controller() -> Any:
    """threadpoolctl's view of the loaded BLAS libraries, found once (finding them costs ~3 ms)."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def _column_major(network: Any) -> Any:
    """A shallow copy of ``network`` (a saved agent or value net) whose weight matrices are column-major.

    The forward passes compute ``x @ weight.T``: with the weights column-major, ``weight.T`` is a row-major
    matrix and the product a plain BLAS call, about twice as fast on the rollouts' batches of tens of rows
    as on the row-major weights a file loads to (106 against 221 us for 12 rows of the pilot network's
    first layer). Same numbers, same outputs up to the last float32 bits of a sum.
    """
    fast = copy.copy(network)
    fast.layers = [(np.asfortranarray(weight), bias) for weight, bias in network.layers]
    return fast


class GuidedSearchAgent(SearchAgent):
    """Monte Carlo search over sampled worlds with network rollouts (and an optional value cut-off)."""

    name = "guided_search"

    def __init__(
        self,
        rules: Rules,
        seed: int | None,
        policy: SavedAgent,
        value: ValueNet | None = None,
        budget: int = 8,
        cutoff: int = 0,
        max_candidates: int = 5,
        prior: str = "control",
        rollout: str = "network",
    ) -> None:
        if not compiled_available():
            raise ValueError(
                "guided_search needs the compiled engine, which is not built; reinstall with a C "
                "compiler present (pip install -e .)"
            )
        if isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 0:
            raise ValueError(f"cutoff={cutoff!r} must be an int >= 0 (decisions before the value net; 0 = none)")
        if cutoff and value is None:
            raise ValueError("cutoff > 0 needs value=PATH (a value network .npz, e.g. runs/<run>/final_value.npz)")
        if prior not in PRIORS:
            raise ValueError(f"prior={prior!r} is unknown; allowed: {', '.join(PRIORS)}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout={rollout!r} is unknown; allowed: {', '.join(ROLLOUTS)}")
        if cutoff and rollout == "control":
            raise ValueError("cutoff > 0 needs rollout='network' (control's rollouts always play to the deal's end)")
        self.policy, self.cutoff, self.prior, self.rollouts = _column_major(policy), cutoff, prior, rollout
        self.value = _column_major(value) if value is not None else None
        self._batch: Any = None  # the TableBatch the rollouts run on (made at the first search)
        super().__init__(
            rules, seed=seed, budget=budget, rollout="control", max_candidates=max_candidates, engine="python"
        )  # the parent's rollouts are not used: evaluate() is this class's

    def reset(self) -> None:
        """Restart the random streams; the worlds are drawn by a compiled sampler seeded as ``search``'s."""
        super().reset()
        from newmarket_env.engine._fast import CompiledSearch  # built: __init__ checked

        self._sampler = CompiledSearch(self.rules, self.seed, "control")  # only its world stream is used

    def candidates(self, view: ObservationView) -> list[int]:
        """As ``search``; with ``prior="network"`` the legal actions of the highest logits (of the
        observation :meth:`act` was given, kept in ``self.observation``)."""
        if self.prior == "control" or view.decision is Decision.BID:
            return super().candidates(view)
        logits = self.policy.logits(self.observation)
        return sorted(view.legal, key=lambda a: (-float(logits[a]), a))[: self.max_candidates]

    def act(self, observation: dict[str, Any]) -> int:
        self.observation = np.asarray(observation["observation"], dtype=np.float32)
        # The forward passes are small (tens of rows): BLAS threads only wait on each other, and on a
        # loaded machine they made a decision 8 times slower (eval/bench/guided.py, 379 ms against 47 ms).
        with _blas_controller().limit(limits=1, user_api="blas"):
            return super().act(observation)

    def evaluate(self, view: ObservationView, candidates: list[int]) -> np.ndarray:
        """Mean chip change of each candidate over ``budget`` shared worlds, rollouts by the network.

        The worlds are sampled in C with the draws of search's ``sample_world`` (a ``CompiledSearch``
        seeded as the agent) and each is copied to one table of a compiled
        :class:`~newmarket_env.engine._fast.TableBatch` per candidate (world ``w``, candidate ``c`` at
        table ``w * len(candidates) + c``); the batch writes every table's observation and legal mask in
        place, so a rollout step is one forward pass for the unfinished tables and one ``step`` call.
        """
        position = position_of(view, self.rules)
        if self.rollouts == "control":  # search's evaluation, on the candidates the prior chose
            return compiled_means(self._sampler, view, self.rules, position, candidates, self.budget)
        width = len(candidates)
        tables = np.arange(self.budget * width)
        batch = self._batch_of(tables.size)
        # search's worlds with search's draws (agents/sampling.py sample_world), sampled in C
        batch.load_worlds(
            self._sampler,
            position,
            view.hand,
            K.unseen(view, self.rules),
            view.known_dead & ~self.rules.removed_mask,
            view.card_counts[1:],
            self.budget,
            width,
        )
        deal, used = int(batch.deal_index[0]), tables.size
        batch.step(np.array(candidates * self.budget), tables=tables)
        # The viewer's chips since the candidate. Slices rather than index lists on these small arrays: a step
        # zeroes every table's reward, and a table that left the deal is never stepped again, so it stays out.
        chips = batch.rewards[:used, VIEWER].astype(np.float64)
        live = np.flatnonzero((batch.to_act[:used] >= 0) & (batch.deal_index[:used] == deal))
        steps = 0
        while live.size and not (self.cutoff and steps >= self.cutoff):
            batch.step(self._actions(batch.observations[live], batch.action_masks[live]), tables=live)
            chips += batch.rewards[:used, VIEWER]
            live = np.flatnonzero((batch.to_act[:used] >= 0) & (batch.deal_index[:used] == deal))
            steps += 1
        if live.size:  # cut off before the end of the deal: the value network's estimate of the rest
            assert self.value is not None  # __init__ refuses a cutoff without a value network
            chips[live] += self.value.chips(batch.observe(VIEWER, live))
        return chips.reshape(self.budget, width).sum(axis=0) / self.budget  # np.mean's sum and division

    def _actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The network's action for each row: ``act_batch``'s masked argmax without its checks and copies
        (the batch's masks always hold a legal action), which cost as much as the last two layers on these
        small batches; a sampling network goes through ``act_batch``."""
        if self.policy.sample:
            return self.policy.act_batch(observations, masks)
        logits = self.policy.logits(observations)
        logits[masks == 0] = -np.inf
        return logits.argmax(axis=1)

    def _batch_of(self, size: int) -> Any:
        """A batch of at least ``size`` tables whose every seat the caller plays, kept between decisions."""
        from newmarket_env.engine._fast import TableBatch

        if self._batch is None or self._batch.num_tables < size:
            self._batch = TableBatch(self.rules, size, seed=0)
            self._batch.auto_restart = False  # a rollout stops at its deal's end; no session follows
        return self._batch


def guided_search(
    rules: Rules,
    seed: int | None = None,
    network: str | os.PathLike | None = None,
    value: str | os.PathLike | None = None,
    **options: Any,
) -> GuidedSearchAgent:
    """The registered factory: ``load_agent("guided_search", env=e, network=PATH[, value=PATH, cutoff=K])``."""
    if network is None:
        raise ValueError("guided_search needs network=PATH (a saved-agent .npz, e.g. runs/<run>/final.npz)")
    policy = load_saved_agent(network, rules, seed=seed)
    return GuidedSearchAgent(rules, seed, policy, load_value(value, rules) if value is not None else None, **options)


__all__ = ["GuidedSearchAgent", "guided_search", "PRIORS", "ROLLOUTS"]
