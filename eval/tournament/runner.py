"""Playing a whole schedule, in this process, on worker processes or on Ray.

Every session carries its own seeds, so the results do not depend on which
worker plays it or in what order; they are sorted back into schedule order.
With a decision timeout the sessions are played in worker processes, one at
least (:mod:`~newmarket_env.eval.tournament.workers`): only another process
can stop an agent whose ``act`` never returns. A run that stops before its
end (an agent failed or ran out of time, a worker died) raises
:class:`TournamentStopped`, which holds the sessions played until then.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator, Sequence

from newmarket_env.eval.tournament.backends import play_on_ray
from newmarket_env.eval.tournament.play import GameResult, TablePlayer, TableSetup
from newmarket_env.eval.tournament.schedule import GameSpec
from newmarket_env.eval.tournament.workers import SessionWorkers

Progress = Callable[[GameResult], None]


class TournamentStopped(RuntimeError):
    """The run stopped before its end; the message says why in one line, ``games`` holds the sessions
    played until then (in schedule order)."""

    def __init__(self, message: str, games: list[GameResult]) -> None:
        super().__init__(message)
        self.games = games


def play_schedule(
    setup: TableSetup,
    specs: Sequence[GameSpec],
    workers: int = 1,
    progress: Progress | None = None,
    start_method: str = "spawn",
    backend: str = "local",
    address: str | None = None,
    decision_timeout: float | None = None,
) -> list[GameResult]:
    """Play every session of ``specs``; ``progress`` is called after each one.

    ``backend="ray"`` plays them as Ray tasks (see :mod:`~newmarket_env.eval.tournament.backends`; the
    decision timeout is not applied there). Locally, ``workers <= 1`` without a ``decision_timeout`` plays
    in this process; else in ``max(workers, 1)`` worker processes.
    """
    played: list[GameResult] = []

    def arrived(result: GameResult) -> None:
        played.append(result)
        if progress:
            progress(result)

    try:
        if backend == "ray":
            play_on_ray(setup, specs, address, workers, arrived)
        elif workers <= 1 and not decision_timeout:
            _play_here(setup, specs, arrived)
        else:
            with SessionWorkers(setup, max(1, workers), start_method, decision_timeout) as pool:
                pool.play(specs, arrived)
    except RuntimeError as err:  # an agent failed (AgentFailed), a worker or a Ray task died
        raise TournamentStopped(str(err), _in_order(played)) from err
    return _in_order(played)


def _in_order(results: list[GameResult]) -> list[GameResult]:
    return sorted(results, key=lambda r: r.key)


def _play_here(setup: TableSetup, specs: Sequence[GameSpec], arrived: Progress) -> None:
    with _ctrl_c_noted() as pressed:
        player = TablePlayer(setup, ctrl_c=pressed)
        for spec in specs:
            arrived(player.play(spec))


@contextlib.contextmanager
def _ctrl_c_noted() -> Iterator[Callable[[], bool]]:
    """Within the block, whether Ctrl-C was pressed: a ``KeyboardInterrupt`` out of an agent's ``act`` is then
    the person's, else the agent raised it. Where this cannot be told (not the main thread, or SIGINT
    handled by someone else), every ``KeyboardInterrupt`` is taken as the person's."""
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield lambda: True
        return
    presses: list[int] = []

    def pressed(signum: int, frame: object) -> None:
        presses.append(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, pressed)
    try:
        yield lambda: bool(presses)
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
