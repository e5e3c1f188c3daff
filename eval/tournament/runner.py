"""Playing a whole schedule, in this process, on a pool of worker processes or on Ray.

Every session carries its own seeds, so the results do not depend on which
worker plays it or in what order; they are sorted back into schedule order.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Sequence

from newmarket_env.eval.tournament.backends import play_on_ray
from newmarket_env.eval.tournament.play import GameResult, TablePlayer, TableSetup
from newmarket_env.eval.tournament.schedule import GameSpec

Progress = Callable[[GameResult], None]
_worker_player: TablePlayer | None = None


def play_schedule(
    setup: TableSetup,
    specs: Sequence[GameSpec],
    workers: int = 1,
    progress: Progress | None = None,
    start_method: str = "spawn",
    backend: str = "local",
    address: str | None = None,
) -> list[GameResult]:
    """Play every session of ``specs``; ``progress`` is called after each one.

    ``backend="ray"`` plays them as Ray tasks (see :mod:`~newmarket_env.eval.tournament.backends`).
    """
    if backend == "ray":
        results = play_on_ray(setup, specs, address, workers, progress)
    elif workers <= 1:
        results = _play_here(setup, specs, progress)
    else:
        results = _play_on_pool(setup, specs, workers, progress, start_method)
    return sorted(results, key=lambda r: r.key)


def _play_here(setup: TableSetup, specs: Sequence[GameSpec], progress: Progress | None) -> list[GameResult]:
    player = TablePlayer(setup)
    results = []
    for spec in specs:
        results.append(player.play(spec))
        if progress:
            progress(results[-1])
    return results


def _play_on_pool(
    setup: TableSetup, specs: Sequence[GameSpec], workers: int, progress: Progress | None, start_method: str
) -> list[GameResult]:
    context = multiprocessing.get_context(start_method)
    # Small chunks keep the progress bar moving and the load even; sessions are milliseconds each.
    chunk = max(1, min(16, len(specs) // (workers * 8)))
    results = []
    with context.Pool(workers, initializer=_init_worker, initargs=(setup,)) as pool:
        for result in pool.imap_unordered(_play_in_worker, specs, chunksize=chunk):
            results.append(result)
            if progress:
                progress(result)
    return results


def _init_worker(setup: TableSetup) -> None:
    """One thread per worker: the workers already share the cores between them.

    A worker ignores Ctrl-C (the terminal sends it to every process of the group): the main process
    alone decides to stop, and ends its pool. SIGTERM (from the pool, or sent to the whole group)
    ends a worker by ``SystemExit``, which lets go of the pool's queue locks on the way out (killed
    on the spot, a worker waiting for its next session would keep the queue's lock, and the main
    process would wait for it forever) and exits without a traceback.
    """
    global _worker_player
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_quietly)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = "1"
    _worker_player = TablePlayer(setup)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _exit_quietly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _play_in_worker(spec: GameSpec) -> GameResult:
    assert _worker_player is not None, "worker used before _init_worker"
    return _worker_player.play(spec)
