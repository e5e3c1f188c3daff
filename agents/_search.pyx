# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The world sampling and rollouts of ``search`` and the race of ``guided_search``, in C (see ``CompiledSearch``).

``agents/search.py`` and ``agents/guided_search.py`` stay the readable reference; they use this
module when it is built, and ``tests/agents/test_search_compiled.py`` holds both to the same means.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.math cimport sqrt
from libc.string cimport memcpy, memset

import os

import numpy as np

from newmarket_env.engine._table cimport *
from newmarket_env.engine._batch cimport TableBatch
from newmarket_env.engine._policies cimport View, _cards_of, decide, view_of_table

from newmarket_env.engine._policies import POLICY_CODES
from newmarket_env.observation._encode import STACK_LIMIT

cdef long STACK = STACK_LIMIT   # the largest chip stack an observation tells apart (as the batch's observer)


cdef double play_out(Table *world, int action, int policy, const RuleCodes *r, Rng *rng, View *view) noexcept nogil:
    """SearchAgent._play_out on a copy of ``world``: take ``action``, play every seat by ``policy`` to the
    end of the deal; the chip change of seat 0 (the viewer)."""
    cdef Table game = world[0]
    cdef long start = game.balances[0]
    cdef int deal = game.deal_index
    apply_action(&game, action)
    while not game.over and game.deal_index == deal:
        view_of_table(view, &game, game.to_act, STACK)   # observation/view.py's view_of_game: clipped, as decoded
        apply_action(&game, decide(policy, view, r, rng))
    return <double>(game.balances[0] - start)


cdef class CompiledSearch:
    """The world sampling and rollouts of ``search`` (agents/search.py) in C, with the same draws.

    ``worlds`` mirrors the agent's ``random.Random(seed)`` for sampling worlds and
    ``rollout_rng`` its rollout policy's (the baseline ``rollout``, drawing from a stream of the same
    seed), so for the same seed the means of :meth:`evaluate` equal the Python agent's.
    """

    cdef RuleCodes r
    cdef Rng worlds
    cdef Table template, world
    cdef Inputs placeholder
    cdef GivenDeal placeholder_deal
    cdef View view
    cdef Rng rollout_rng
    cdef readonly int rollout_code     # the rollout baseline's code (POLICY_CODES)
    cdef readonly object rules, seed, rollout

    def __init__(self, rules, seed, rollout):
        if rollout not in POLICY_CODES:
            raise ValueError(f"policy {rollout!r} is unknown; allowed: {', '.join(POLICY_CODES)}")
        self.rules, self.seed, self.rollout = rules, seed, rollout
        self.rollout_code = POLICY_CODES[rollout]
        load_rules(&self.r, rules)
        self.placeholder.deals = &self.placeholder_deal
        self.restart()

    def restart(self):
        """Both streams from ``seed`` again (SearchAgent.reset)."""
        seed_rng(&self.worlds, self.seed if self.seed is not None else int.from_bytes(os.urandom(16), "little"))
        seed_rng(&self.rollout_rng, self.seed if self.seed is not None else int.from_bytes(os.urandom(16), "little"))

    def evaluate(self, position, uint64_t hand, uint64_t unseen, uint64_t dead_known, card_counts, candidates,
                 int budget):
        """SearchAgent.evaluate: mean chip change of each candidate over ``budget`` shared sampled worlds.

        ``unseen`` are the cards to deal out (knowledge.unseen), ``card_counts`` the
        other seats' hand sizes (seats 1..n-1 of the view frame), ``dead_known`` the
        known part of the dead hand; the viewer sits at seat 0 holding ``hand``.
        """
        return self.evaluate_worlds(position, hand, unseen, dead_known, card_counts, candidates, budget).mean(axis=0)

    def evaluate_worlds(self, position, uint64_t hand, uint64_t unseen, uint64_t dead_known, card_counts,
                        candidates, int budget):
        """:meth:`evaluate` world by world: a ``(budget, len(candidates))`` array of the viewer's chip change
        after each candidate in each world (row ``w``: world ``w``), for statistics over the worlds."""
        cdef int counts[MAX_SEATS]
        cdef int acts[MAX_LEGAL]
        cdef int c, w, n_cand = len(candidates)
        if not 1 <= n_cand <= MAX_LEGAL:
            raise ValueError(f"candidates must hold 1 to {MAX_LEGAL} actions; got {n_cand}")
        chips = np.zeros((budget, n_cand))
        cdef double[:, ::1] chip = chips
        self._counts(card_counts, counts)
        for c in range(n_cand):
            acts[c] = candidates[c]
        for w in range(budget):
            self._sample(w, position, hand, unseen, dead_known, counts)
            for c in range(n_cand):
                chip[w, c] = play_out(&self.world, acts[c], self.rollout_code, &self.r, &self.rollout_rng,
                                      &self.view)
        return chips

    def race(self, position, uint64_t hand, uint64_t unseen, uint64_t dead_known, card_counts, candidates,
             bonus, int budget, int round_worlds, double z):
        """GuidedSearchAgent.race_trace in C: the index of the candidate that wins a race on shared worlds.

        Rounds of ``round_worlds`` new worlds (each round sampled as one :meth:`evaluate_worlds` call, so the
        draws are the same) for the candidates still racing; after a round a candidate's score is its mean
        chips plus its ``bonus``, and a rival leaves once the leader's lead is above ``z`` standard errors of
        their per-world difference, or their difference is the same in every world. Ends with one left or
        after ``budget`` worlds. Chip changes are whole numbers, so the sums here are exact.
        """
        cdef int counts[MAX_SEATS]
        cdef int acts[MAX_LEGAL]
        cdef int alive[MAX_LEGAL]
        cdef double score[MAX_LEGAL]
        cdef double extra[MAX_LEGAL]
        cdef int c, i, w, lead, best, size, n_alive, kept, worlds = 0, n_cand = len(candidates)
        cdef double d, total, squares, spread, best_score
        if not 1 <= n_cand <= MAX_LEGAL or len(bonus) != n_cand:
            raise ValueError(f"candidates must hold 1 to {MAX_LEGAL} actions, and bonus one number for each; "
                             f"got {n_cand} and {len(bonus)}")
        if budget < 1 or round_worlds < 2:
            raise ValueError(f"budget must be >= 1 and round_worlds >= 2; got {budget} and {round_worlds}")
        chips = np.zeros((budget, n_cand))
        cdef double[:, ::1] chip = chips
        self._counts(card_counts, counts)
        for c in range(n_cand):
            acts[c], alive[c], extra[c] = candidates[c], c, bonus[c]
        n_alive = n_cand
        while True:
            size = min(round_worlds, budget - worlds)
            for w in range(size):
                self._sample(w, position, hand, unseen, dead_known, counts)
                for i in range(n_alive):
                    c = alive[i]
                    chip[worlds + w, c] = play_out(&self.world, acts[c], self.rollout_code, &self.r,
                                                   &self.rollout_rng, &self.view)
            worlds += size
            lead = 0
            for i in range(n_alive):
                total = 0
                for w in range(worlds):
                    total += chip[w, alive[i]]
                score[i] = total / worlds + extra[alive[i]]
                if score[i] > score[lead]:
                    lead = i
            if worlds >= budget:
                return alive[lead]
            best, best_score, kept = alive[lead], score[lead], 0
            for i in range(n_alive):
                c = alive[i]
                if c != best:
                    total, squares = 0, 0
                    for w in range(worlds):
                        d = chip[w, best] - chip[w, c]
                        total += d
                        squares += d * d
                    # the standard error of the mean difference: the sample variance (n - 1 in the
                    # denominator) from exact whole-number sums, over the number of worlds
                    spread = sqrt((worlds * squares - total * total) / (worlds * (worlds - 1.0)) / worlds)
                    if best_score - score[i] > z * spread or spread == 0:
                        continue
                alive[kept] = c
                kept += 1
            n_alive = kept
            if n_alive == 1:
                return alive[0]

    def put_worlds(self, TableBatch batch, position, uint64_t hand, uint64_t unseen, uint64_t dead_known,
                   card_counts, int budget, int width):
        """For ``TableBatch.load_worlds`` (which checks the arguments): world ``w`` sampled as :meth:`evaluate`
        samples it, put at tables ``w * width`` to ``w * width + width - 1`` of ``batch``."""
        cdef int counts[MAX_SEATS]
        cdef int w, k
        self._counts(card_counts, counts)
        for w in range(budget):
            self._sample(w, position, hand, unseen, dead_known, counts)
            for k in range(w * width, (w + 1) * width):
                batch._put(k, &self.world)

    cdef void _counts(self, card_counts, int *counts) except *:
        """The other seats' hand sizes (seats 1..n-1 of the view frame) into ``counts[1:n]``."""
        cdef int s
        if len(card_counts) != self.r.n - 1:
            raise ValueError(f"card_counts must give the hand sizes of seats 1..{self.r.n - 1}; "
                             f"got {len(card_counts)} numbers")
        for s in range(1, self.r.n):
            counts[s] = card_counts[s - 1]

    cdef void _sample(self, int w, position, uint64_t hand, uint64_t unseen, uint64_t dead_known,
                      const int *counts) except *:
        """World ``w`` of a search into ``self.world``: agents/sampling.py's sample_world, with its draws."""
        cdef int pool[NUM_CARDS]
        cdef uint64_t hands[MAX_SEATS]
        cdef uint64_t dead
        cdef int size, i, s, start
        size = _cards_of(unseen, pool)      # sample_cards: the unseen cards, shuffled as random.shuffle
        shuffle(&self.worlds, pool, size)
        hands[0], start = hand, 0
        for s in range(1, self.r.n):
            hands[s] = 0
            for i in range(start, start + counts[s]):
                hands[s] |= 1ULL << pool[i]
            start += counts[s]
        dead = dead_known
        for i in range(start, size):
            dead |= 1ULL << pool[i]
        if w == 0:   # the first world is built from the position, seeded as game_at(seed=randrange(2**31))
            table_at(&self.template, &self.r, &self.placeholder, position, _randbits31(&self.worlds))
        self.world = self.template
        set_hidden_cards(&self.world, hands, dead)


