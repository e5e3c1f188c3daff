# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled baselines as agents: each decides in C from a flat observation and its action mask.

The decisions are the engine's (``engine/_policies.pyx``, which a ``TableBatch`` plays at its seats);
the observation is decoded by the observation layer (``observation/_encode.pyx``'s ``view_of_vector``).
``agents/compiled.py`` registers them as ``random``, ``lowest``, ``greedy`` and ``control``.
"""

import os

from newmarket_env.engine._policies cimport View, decide
from newmarket_env.engine._table cimport NUM_ACTIONS, Rng, RuleCodes, load_rules, seed_rng
from newmarket_env.observation._encode cimport view_of_vector

from newmarket_env.engine._policies import POLICY_CODES
from newmarket_env.observation.layout import FLAT_SIZE

cdef int OBS_SIZE = FLAT_SIZE


cdef class CompiledPolicy:
    """One baseline deciding in C from an observation: what the registered agents run when built.

    ``seed`` seeds its random stream as ``random.Random(seed)`` does (the Python
    policies draw from one); :meth:`restart` starts that stream again.
    """

    cdef RuleCodes r
    cdef Rng rng
    cdef View view
    cdef readonly int code
    cdef readonly object rules, seed

    def __init__(self, name, rules, seed=None):
        if name not in POLICY_CODES:
            raise ValueError(f"policy {name!r} is unknown; allowed: {', '.join(POLICY_CODES)}")
        self.code, self.rules, self.seed = POLICY_CODES[name], rules, seed
        load_rules(&self.r, rules)
        self.restart()

    def restart(self):
        """Start the random stream again from ``seed`` (a fresh draw when the seed is None)."""
        seed_rng(&self.rng, self.seed if self.seed is not None else int.from_bytes(os.urandom(16), "little"))

    def act(self, const float[::1] observation, const signed char[::1] action_mask):
        """The action for a flat observation (FLAT_SIZE float32) and its action mask (NUM_ACTIONS int8)."""
        if observation.shape[0] != OBS_SIZE or action_mask.shape[0] != NUM_ACTIONS:
            raise ValueError(f"act needs a float32 observation of {OBS_SIZE} and an int8 mask of {NUM_ACTIONS}")
        view_of_vector(&self.view, &observation[0], &action_mask[0], self.r.n)
        if self.view.n_legal == 0:
            raise ValueError("act() was given an observation whose action_mask has no legal action")
        return decide(self.code, &self.view, &self.r, &self.rng)
