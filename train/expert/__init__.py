"""Expert iteration (search distillation): ``method: expert_iteration`` in a training config.

Each iteration of the run loop (:mod:`.learner`; the section and its checks: :mod:`.method`):

1. :mod:`newmarket_env.train.collect` plays the current network at tables (DAgger: the learner's own states; a share
   of seats are baselines) and records its decisions with the chips each seat then won to the end
   of the deal;
2. :mod:`.label` labels every decision with the teacher (``search``, or ``guided_search`` with the
   current network as rollout policy): its candidates' mean chips and its choice, in worker
   processes (or Ray tasks), each decision seeded on its own so the labels do not depend on how
   they are split;
3. :mod:`.fit` fits the policy head to the labels (the choice, or a softmax of the means) and the
   value head to the chips won, over the last ``expert.window`` iterations of labels;
4. the run loop checkpoints the network (:mod:`newmarket_env.train.torch_state`), evaluates it, and it
   plays the next iteration.

The result is a saved agent (``final.npz``, :mod:`newmarket_env.agents.saved`) and its value
network (``final_value.npz``, :mod:`newmarket_env.agents.value_net`), which ``guided_search`` uses.
"""
