"""PPO's SB3 callback: the learner's chips per deal over the sessions a rollout finished."""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback


class EpisodeChips(BaseCallback):
    """Logs the learner's chips per deal over finished episodes (``rollout/chips_per_deal``) once per rollout,
    and keeps it in ``latest`` (the progress line's figure)."""

    def __init__(self) -> None:
        super().__init__()
        self.recent: list[float] = []
        self.latest = float("nan")

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            if "chips" in info:
                self.recent.append(info["chips"] / info["deals"])
        return True

    def _on_rollout_end(self) -> None:
        if self.recent:
            self.latest = float(np.mean(self.recent))
            self.logger.record("rollout/chips_per_deal", self.latest)
            self.recent = []
