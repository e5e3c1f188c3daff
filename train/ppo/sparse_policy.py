"""MaskablePPO's ``MlpPolicy`` with sparse input layers: the policy for ``network.input: sparse``.

:class:`SparseInputPolicy` is sb3-contrib's ``MaskableActorCriticPolicy`` (separate or shared MLPs on the
flat observation, as ``"MlpPolicy"`` builds them) whose first hidden layers, of the policy net and of the
value net, are :class:`~newmarket_env.nn.sparse_input.SparseInputLinear`: the same parameters, drawn
from the same torch stream, so a model of either policy has the same weights for the same seed, the
same outputs to float rounding, and the same saved files (checkpoints, exported agents). Use it as any
SB3 policy::

    model = MaskablePPO(SparseInputPolicy, vec_env, policy_kwargs={"net_arch": [128, 128]})

A net without hidden layers (``net_arch=[]``) keeps its dense heads: only ``mlp_extractor``'s first
layers read the input sparsely.
"""

from __future__ import annotations

from typing import Any

from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from newmarket_env.nn.sparse_input import shared_input, sparse_first_layer


class SparseInputPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose nets read the observation through sparse input layers."""

    def _build_mlp_extractor(self) -> None:
        super()._build_mlp_extractor()
        for net in (self.mlp_extractor.policy_net, self.mlp_extractor.value_net):
            if len(net):
                sparse_first_layer(net)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        with shared_input():  # the policy and value nets read the same observations: scanned once
            return super().forward(*args, **kwargs)

    def evaluate_actions(self, *args: Any, **kwargs: Any) -> Any:
        with shared_input():
            return super().evaluate_actions(*args, **kwargs)
