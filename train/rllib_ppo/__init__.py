"""Ray RLlib's PPO in self-play: ``method: rllib_ppo`` in a training config.

The algorithm is :func:`newmarket_env.integrations.rllib.self_play_config` (PPO on the game as an RLlib
``MultiAgentEnv``, an action-masked RLModule, the learner in one seat of every session against a frozen
copy of itself refreshed every ``rllib.refresh_every`` iterations), built from the config's ``rllib``
section and trained with ``algo.train()`` (:mod:`.learner`, one call an iteration of the run loop). RLlib's
own ``save_to_path`` / ``restore_from_path`` write and read the checkpoints (:mod:`.method`). The learner's policy (its
actor encoder MLP and ``pi`` head) is exported to the plain saved-agent layers (:mod:`.export`), so
``final.npz`` plays with numpy alone: no Ray, no torch, no pickle.
"""

#: The saved agent inside each checkpoint folder (the policy of that moment, numpy only).
POLICY_FILE = "policy.npz"
