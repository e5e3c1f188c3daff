"""Deep Monte-Carlo's actor: the Q network playing every learner seat of a compiled ``TableBatch``.

:func:`collect` plays ``tables`` tables of one :class:`~newmarket_env.engine._batch.TableBatch` (the
baseline seats played in C inside it, its tables stepped on ``threads`` threads) until ``count`` learner
decisions are recorded. Every learner seat that is to act is answered by one forward pass of the Q
network over all tables, epsilon-greedy over the legal actions; each decision with more than one legal
action is recorded with the action taken and the chips its seat won from it to the end of the deal
(the batch's ``deal_end_balances``: each seat's balance right after the move that ended the deal),
times ``reward_scale``, the Monte-Carlo return DMC regresses Q(s, a) on.

Each session draws its seats anew: a seat is a baseline (one of ``baselines``, uniformly) with chance
``baseline_fraction``, else the learner; at least one seat is the learner's. A session still running when
``count`` decisions are recorded is dropped, as are decisions whose deal had not ended. Deterministic for
a seed: the batch (cards and baseline draws, ``table_seed``), the seats and the exploration each draw
from streams of their own, derived from ``seed``; the thread count changes nothing.

:class:`Actor` keeps one batch and one network between calls: the Ray actors of :mod:`.actors` are made
of it, a local run holds one in its own process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from newmarket_env.engine.choice import table_batch
from newmarket_env.execution.seeds import derive_seed
from newmarket_env.game.rules import Rules
from newmarket_env.train.dmc.fit import q_network
from newmarket_env.train.hidden import hidden_owners

BATCH_TAG, SEATS_TAG, EXPLORE_TAG = 1, 2, 4
LEARNER = -1  # seat_policies code: the caller (the Q network) decides


@dataclass
class States:
    """Recorded learner decisions: flat observations, legal masks, reward-scaled chips to the end of the deal,
    the action taken, and (when asked) the owners of the cards hidden from the deciding seat (``(K, 52)`` int8,
    :mod:`newmarket_env.train.hidden`: a training target, never an input)."""

    obs: np.ndarray
    masks: np.ndarray
    returns: np.ndarray
    actions: np.ndarray
    owners: np.ndarray | None = None


class _Records:
    """The decisions recorded so far, each waiting on the end of its deal; the deals' ends as they come."""

    def __init__(self, tables: int) -> None:
        self.serial = np.zeros(tables, dtype=np.int64)  # deals ended at each table so far
        self.waiting = np.zeros(tables, dtype=np.int64)  # decisions of each table's current deal
        self.resolved = 0
        self.chunks: list[tuple[np.ndarray, ...]] = []  # (obs, masks, actions, tables, seats, before, serial)
        self.owners: list[np.ndarray] = []  # each chunk's owners of the hidden cards, when kept
        self.ends: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (tables, serial, balances)

    def add(self, obs, masks, actions, tables, seats, before, owners=None) -> None:
        self.chunks.append((obs, masks, actions, tables, seats, before, self.serial[tables]))
        if owners is not None:
            self.owners.append(owners)
        np.add.at(self.waiting, tables, 1)

    def deals_ended(self, tables: np.ndarray, balances: np.ndarray) -> None:
        self.ends.append((tables, self.serial[tables].copy(), balances))
        self.resolved += int(self.waiting[tables].sum())
        self.waiting[tables] = 0
        self.serial[tables] += 1

    def states(self, count: int, reward_scale: float) -> States:
        """The first ``count`` recorded decisions whose deal ended, with their returns."""
        obs, masks, actions, tables, seats, before, serial = (np.concatenate(c) for c in zip(*self.chunks, strict=True))
        end_tables, end_serial, end_balances = (np.concatenate(e) for e in zip(*self.ends, strict=True))
        width = int(max(serial.max(), end_serial.max())) + 1
        ended = np.full(int(tables.max()) * width + width, -1, dtype=np.int64)  # (table, deal serial) -> end row
        ended[end_tables * width + end_serial] = np.arange(len(end_tables))
        row = ended[tables * width + serial]
        keep = np.flatnonzero(row >= 0)[:count]
        returns = (end_balances[row[keep], seats[keep]] - before[keep]) * reward_scale
        owners = np.concatenate(self.owners)[keep] if self.owners else None
        return States(obs[keep], masks[keep], returns.astype(np.float32), actions[keep], owners)


class Actor:
    """A batch of ``tables`` tables of ``rules`` and a Q network of ``net_arch``/``activation``/``network_input``
    that plays them; :meth:`collect` as the module docstring says. ``baselines`` are compiled baselines'
    names (``POLICY_CODES``)."""

    def __init__(
        self,
        rules: Rules,
        tables: int,
        baselines: Sequence[str],
        baseline_fraction: float,
        reward_scale: float,
        net_arch: Sequence[int],
        activation: str,
        network_input: str,
        threads: int | None = None,
        with_owners: bool = False,
    ) -> None:
        self.batch = table_batch(rules, tables, seed=0, threads=threads)
        self.batch.auto_restart = False  # a finished table draws its next session's seats before it starts
        from newmarket_env.engine._batch import POLICY_CODES  # table_batch succeeded: the compiled engine is built

        self.codes = np.array([POLICY_CODES[name] for name in baselines], dtype=np.int8)
        self.baseline_fraction = baseline_fraction if len(self.codes) else 0.0
        self.reward_scale = reward_scale
        self.with_owners = with_owners  # also record where the hidden cards are (dmc.aux_weight > 0)
        self.net = q_network(net_arch, activation, network_input)
        self.net.requires_grad_(False)

    def set_weights(self, weights: Mapping[str, np.ndarray | torch.Tensor]) -> None:
        """The learner's Q network's ``state_dict`` (tensors or arrays: what a Ray actor is sent)."""
        # a copy: what Ray hands an actor is read-only, and torch wants arrays it may write
        self.net.load_state_dict(
            {
                key: value.detach().clone() if isinstance(value, torch.Tensor) else torch.from_numpy(np.array(value))
                for key, value in weights.items()
            }
        )

    def play(self, weights: Mapping[str, np.ndarray | torch.Tensor], count: int, seed: int, epsilon: float) -> States:
        """:meth:`collect` with the network's weights given first (one call: a restarted Ray actor gets them too)."""
        self.set_weights(weights)
        return self.collect(count, seed, epsilon)

    def _seats(self, rng: np.random.Generator, tables: int) -> np.ndarray:
        n = self.batch.n
        codes = self.codes[rng.integers(len(self.codes), size=(tables, n))] if len(self.codes) else None
        baseline = rng.random((tables, n)) < self.baseline_fraction
        seats = np.where(baseline, codes, LEARNER) if codes is not None else np.full((tables, n), LEARNER)
        every = np.flatnonzero(baseline.all(axis=1))  # no learner left: one seat, drawn, is the learner's
        seats[every, rng.integers(n, size=len(every))] = LEARNER
        return seats.astype(np.int8)

    def collect(self, count: int, seed: int, epsilon: float) -> States:
        """Play until ``count`` learner decisions are recorded with their returns (see the module docstring)."""
        batch, tables = self.batch, self.batch.num_tables
        seats_rng = np.random.default_rng(derive_seed(seed, SEATS_TAG))
        explore = np.random.default_rng(derive_seed(seed, EXPLORE_TAG))
        batch.set_seat_policies(self._seats(seats_rng, tables))
        batch.reset(derive_seed(seed, BATCH_TAG) % 2**32)
        records = _Records(tables)
        rows = np.arange(tables)
        while records.resolved < count:
            masks = batch.action_masks.astype(bool)
            with torch.no_grad():
                q = self.net(torch.from_numpy(batch.observations)).numpy()
            actions = np.where(masks, q, -np.inf).argmax(axis=1)
            if epsilon > 0:  # no draw at all without exploration
                drawn = explore.random(tables) < epsilon
                uniform = np.argmax(masks * explore.random((tables, masks.shape[1])), axis=1)  # a legal one, uniformly
                actions = np.where(drawn, uniform, actions)
            chosen = np.flatnonzero(masks.sum(axis=1) > 1)  # forced moves teach nothing
            seats = batch.to_act[chosen].astype(np.int64)
            records.add(
                batch.observations[chosen], masks[chosen], actions[chosen], chosen, seats,
                batch.balances[chosen, seats],
                hidden_owners(batch.states(tables=chosen)) if self.with_owners else None,
            )  # fmt: skip
            batch.step(actions)
            ended = np.flatnonzero(batch.deal_ended)
            if len(ended):
                records.deals_ended(ended, batch.deal_end_balances[ended])
            over = rows[batch.done]
            if len(over):
                batch.seat_policies[over] = self._seats(seats_rng, len(over))
                batch.restart(over)
        return records.states(count, self.reward_scale)
