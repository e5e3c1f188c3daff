"""Where a tournament's sessions are played: this machine (``local``) or a Ray cluster (``ray``).

Every session carries its own seeds (from seed, block, line-up, seating and
seat), so a result never depends on the machine, the worker or the order it was
played in. The Ray backend therefore ships work by *block* (every line-up and
seating of one deal block: the block's deals are dealt once per task) as Ray
tasks, streams each finished block into the progress callback, and lets Ray
retry a block whose worker or node died (``max_retries``): a retried block
replays the same seeds, so it changes no result.

Connecting: with no address a private local Ray is started (with ``workers``
CPUs) and shut down afterwards; ``"auto"`` or ``"HOST:PORT"`` joins a running
cluster (``ray start --head`` / ``ray start --address``), and the cluster is
left running. A ``HOST:PORT`` that does not answer as a Ray cluster within
:data:`~newmarket_env.execution.ray_probe.RAY_CONNECT_TIMEOUT_S` fails in
one line saying how long it waited (``ray.init`` alone retries for minutes).
A driver already connected to Ray (``ray.init`` called by the caller) is used
as it is. The generic part (the backends, :func:`map_on_ray`) lives in
:mod:`newmarket_env.execution.backends`, below both the tournaments and training; it is re-exported here.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence

from newmarket_env import available_agents
from newmarket_env.eval.tournament.play import GameResult, TablePlayer, TableSetup
from newmarket_env.eval.tournament.schedule import GameSpec
from newmarket_env.execution.backends import (
    BACKENDS,
    RAY_INSTALL_HINT,
    RAY_MAX_RETRIES,
    check_backend,
    map_on_ray,
    ray_available,
)

Progress = Callable[[GameResult], None]


def blocks_of(specs: Sequence[GameSpec]) -> list[list[GameSpec]]:
    """The sessions grouped by block, blocks in order (one Ray task each).

    >>> from newmarket_env.eval.tournament.schedule import build_schedule
    >>> _, specs = build_schedule(4, 4, blocks=3, seed=0)
    >>> [len(group) for group in blocks_of(specs)], [group[0].block for group in blocks_of(specs)]
    ([4, 4, 4], [0, 1, 2])
    """
    groups: dict[int, list[GameSpec]] = {}
    for spec in specs:
        groups.setdefault(spec.block, []).append(spec)
    return [groups[block] for block in sorted(groups)]


def play_on_ray(
    setup: TableSetup,
    specs: Sequence[GameSpec],
    address: str | None = None,
    workers: int = 1,
    progress: Progress | None = None,
) -> list[GameResult]:
    """Play ``specs`` as one Ray task per block; results in schedule order of the blocks."""

    def arrived(_, block_results: list[GameResult]) -> None:
        for result in block_results:
            if progress is not None:  # always so: arrived is only passed on when there is a progress
                progress(result)

    per_block = map_on_ray(
        _play_block,
        _portable(setup),
        blocks_of(specs),
        address=address,
        num_cpus=workers,
        on_result=arrived if progress else None,
    )
    return [result for block_results in per_block for result in block_results]


def _play_block(setup: TableSetup, specs: list[GameSpec]) -> list[GameResult]:
    """Ray task: every session of one block (its deals are dealt once and shared by the block)."""
    player = TablePlayer(setup)
    return [player.play(spec) for spec in specs]


def _portable(setup: TableSetup) -> TableSetup:
    """The setup with saved-agent paths made absolute, since Ray workers do not share the driver's folder.

    Only what the workers load changes: labels and specs in the results come from the driver's plan.
    On a cluster of several machines such files must exist at the same path on every node.
    """
    names = set(available_agents())  # a registered name wins over a file of that name, as in load_agent
    entrants = tuple(
        dataclasses.replace(e, spec=os.path.abspath(e.spec)) if e.spec not in names and os.path.isfile(e.spec) else e
        for e in setup.entrants
    )
    return dataclasses.replace(setup, entrants=entrants)


__all__ = [
    "BACKENDS",
    "RAY_INSTALL_HINT",
    "RAY_MAX_RETRIES",
    "blocks_of",
    "check_backend",
    "map_on_ray",
    "play_on_ray",
    "ray_available",
]
