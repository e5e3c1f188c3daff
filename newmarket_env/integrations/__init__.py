"""Bridges to other RL libraries, each an optional extra.

``newmarket_env.integrations.rllib``: Ray RLlib (``pip install 'newmarket-env[ray]'``): the env as an RLlib
``MultiAgentEnv``, a masking PPO RLModule, self-play with a frozen opponent and an example config.
"""
