"""Deep Monte-Carlo (DMC, as DouZero): ``method: dmc`` in a training config.

Each iteration of the run loop (:mod:`.learner`; the section and checkpoints: :mod:`.method`):

1. ``dmc.actors`` actors (:mod:`.actors`: in this process, or Ray actors on a cluster) each play their
   share of the iteration's decisions: the current Q network plays every learner seat of ``dmc.tables``
   tables of a compiled batch (:mod:`.actor`; a share of seats are baselines, played inside the batch),
   epsilon-greedy over the legal actions, and each learner decision with more than one legal action
   is recorded with the action taken and the chips its seat then won to the end of the deal (the
   Monte-Carlo return, times ``env.reward_scale``);
2. :mod:`.fit` regresses Q(s, a_taken) on those returns (squared error) over the last
   ``dmc.window`` iterations' decisions;
3. the network is checkpointed, evaluated, and plays the next iteration.

The greedy policy is the argmax of Q over the legal actions, so the network is saved as a plain saved
agent (``final.npz``, :mod:`newmarket_env.agents.saved`): its 79 outputs, the "logits" there, are the
Q-values, and a greedy ``SavedAgent`` plays argmax-Q.
"""
