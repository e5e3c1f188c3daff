"""Worker processes that play a tournament's sessions: each on a pipe of its own, timed decision by
decision, and stopped for certain.

Why not ``multiprocessing.Pool``: its workers share two queues, each guarded by a lock between the
processes. Leaving a pool's ``with`` block (after a successful run too) calls ``terminate()``, which takes
the task queue's lock and then sends every worker SIGTERM; a worker waiting for that lock wakes only if
the signal lands on its main thread. numpy's OpenBLAS starts threads in a worker when it is imported,
before the worker can block signals in them, and the kernel may hand a process's SIGTERM to any of its
threads: then the worker's main thread waits on, and the main process waits for it in ``join()`` for
ever (the hang seen once in 13 runs of ``make tournament``). Killing such a worker outright is no way
out either: a worker killed while it holds a queue's lock blocks every other process that needs it.

Here no lock is shared: the main process sends each worker its sessions, and the worker sends the
results back, over the worker's own pipe. A worker can then be killed at any moment without blocking
anyone, so every way out is certain: when the schedule is played each worker is told to stop and given
:data:`STOP_GRACE_S` to end, then killed; on an error, Ctrl-C or SIGTERM every worker is killed at once.
No signal handler runs in a worker, and on Linux a worker ends with the main process however that ends
(the parent-death signal), even while its agent is stuck in a decision. Workers ignore Ctrl-C (SIGINT is
blocked from before a worker starts, so Ctrl-C during its start-up prints nothing either): the main
process alone decides to stop.

The decision timeout: a worker writes, in memory it shares with the main process, the session, seat and
decision it is at and when that decision started (``time.monotonic``, one clock for every process of
the machine). The main process, while it waits for results, looks at these every :data:`TICK_S`; a
decision older than the timeout gets its worker killed, whatever the agent is doing (a Python loop, a
sleep, a C call that never returns), and the run stops with :class:`DecisionTimeout` naming the agent
and the decision.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from newmarket_env.eval.tournament.play import AgentFailed, DecisionClock, GameResult, TablePlayer, TableSetup, agent_at
from newmarket_env.eval.tournament.schedule import GameSpec

#: Sessions a worker holds at once (one playing, one waiting): it never waits for the main process.
IN_FLIGHT = 2
#: How long workers told to stop may take before they are killed (they stop in milliseconds).
STOP_GRACE_S = 5.0
#: How often the main process looks at the decisions in progress, when there is a decision timeout.
TICK_S = 0.1
#: The shared slots of a worker: the index of the session it plays, the seat and decision (from 0) being
#: decided, and when that decision started (``time.monotonic()``; 0 between decisions).
_SESSION, _SEAT, _DECISION, _STARTED = range(4)
#: Set to 1 in each worker (NEWMARKET_THREADS: the compiled batches, e.g. a guided search's rollouts).
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NEWMARKET_THREADS")
_PR_SET_PDEATHSIG = 1  # linux/prctl.h
Waiting = collections.deque[tuple[int, GameSpec]]  # the sessions not sent yet, with their index


class DecisionTimeout(AgentFailed):
    """An agent took longer than the decision timeout; its worker was killed."""


class WorkerDied(RuntimeError):
    """A worker process ended while it had sessions to play."""


class _SharedClock(DecisionClock):
    """Each decision's seat, number and start, written where the main process reads them."""

    def __init__(self, slots: Any) -> None:
        self.slots = slots

    def start(self, seat: int, decision: int) -> None:
        self.slots[_SEAT] = seat
        self.slots[_DECISION] = decision
        self.slots[_STARTED] = time.monotonic()  # last: a non-zero start means the two above are this decision's

    def stop(self) -> None:
        self.slots[_STARTED] = 0.0


def _serve(connection: Connection, setup: TableSetup, slots: Any, parent: int | None) -> None:
    """A worker: play each session received, send its result (or what went wrong) back; end at None.

    ``parent``: the main process's id, which the worker ends with (None: run here, by a test)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # then unblock: a Ctrl-C that came during start-up is dropped
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if parent is not None:
        _end_with(parent)
    for name in _THREAD_VARIABLES:  # one thread per worker: the workers already share the cores
        os.environ[name] = "1"
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    player = TablePlayer(setup, clock=_SharedClock(slots), ctrl_c=lambda: False)
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):  # the main process is gone
            return
        if task is None:
            return
        index, spec = task
        slots[_SESSION] = index
        try:
            reply: tuple[str, int, Any] = ("done", index, player.play(spec))
        except AgentFailed as err:
            reply = ("failed", index, str(err))
        except BaseException as err:
            reply = ("error", index, f"{type(err).__name__}: {' '.join(str(err).split())}")
        connection.send(reply)


def _end_with(parent: int) -> None:
    """Linux: the kernel kills this worker when the main process ends, however it ends (killed too): a
    worker whose agent never answers would otherwise outlive it, never reading the pipe that says so."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # no prctl here: the pipe's end still stops an idle worker
        return
    if os.getppid() != parent:  # the main process ended before the request was made
        os._exit(0)


class _Worker:
    """One worker process, its pipe, its shared slots and the indices of the sessions it holds."""

    def __init__(self, context: Any, setup: TableSetup) -> None:
        self.slots = context.RawArray("d", 4)
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, setup, self.slots, os.getpid()), daemon=True)
        self.process.start()
        theirs.close()
        self.held: collections.deque[int] = collections.deque()

    def send(self, index: int, spec: GameSpec) -> None:
        self.connection.send((index, spec))
        self.held.append(index)


class SessionWorkers:
    """``count`` worker processes playing sessions of ``setup``; use as a context manager, which stops them.

    ``decision_timeout``: seconds an agent may think over one decision (None: no limit).
    """

    def __init__(
        self, setup: TableSetup, count: int, start_method: str = "spawn", decision_timeout: float | None = None
    ) -> None:
        self.setup = setup
        self.decision_timeout = decision_timeout
        self.workers: list[_Worker] = []
        context = multiprocessing.get_context(start_method)
        # SIGINT blocked while the workers start: each inherits the mask and ignores Ctrl-C before unblocking it.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            for _ in range(count):
                self.workers.append(_Worker(context, setup))
        except BaseException:
            self.kill()
            raise
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    def __enter__(self) -> SessionWorkers:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, traceback: object) -> None:
        if err is None:
            self.stop()
        else:
            self.kill()

    def play(self, specs: Sequence[GameSpec], on_result: Callable[[GameResult], None]) -> None:
        """Play every session of ``specs``, giving each result to ``on_result`` as it arrives (in any order).

        Raises :class:`~newmarket_env.eval.tournament.play.AgentFailed` (:class:`DecisionTimeout` for a
        decision past the timeout) or :class:`WorkerDied`; the caller's ``with`` block then kills the workers.
        """
        waiting = collections.deque(enumerate(specs))
        for worker in self.workers:
            for _ in range(IN_FLIGHT):
                self._give(worker, waiting, specs)
        while any(worker.held for worker in self.workers):
            busy = [worker for worker in self.workers if worker.held]
            ends = {worker.process.sentinel: worker for worker in busy}
            pipes = {worker.connection: worker for worker in busy}
            ready = wait([*pipes, *ends], timeout=TICK_S if self.decision_timeout else None)
            for ready_one in ready:
                worker = pipes.get(ready_one) or ends[ready_one]
                if not worker.held:
                    continue  # its pipe and its end were both ready: answered already
                if ready_one in ends and not worker.connection.poll():
                    raise self._died(worker, specs)
                on_result(self._receive(worker, specs))
                self._give(worker, waiting, specs)
            self._check_clocks(busy, specs)

    def _give(
        self, worker: _Worker, waiting: collections.deque[tuple[int, GameSpec]], specs: Sequence[GameSpec]
    ) -> None:
        """Send the worker the next session waiting, if any."""
        if not waiting:
            return
        try:
            worker.send(*waiting.popleft())
        except OSError:  # its end of the pipe is closed: it ended
            raise self._died(worker, specs) from None

    def _receive(self, worker: _Worker, specs: Sequence[GameSpec]) -> GameResult:
        try:
            kind, index, value = worker.connection.recv()
        except (EOFError, OSError):
            raise self._died(worker, specs) from None
        worker.held.remove(index)
        if kind == "failed":
            raise AgentFailed(value)
        if kind == "error":
            spec = specs[index]
            raise RuntimeError(
                f"session (block {spec.block}, line-up {spec.lineup}, seating {spec.seating}) failed: {value}"
            )
        return value

    def _check_clocks(self, busy: list[_Worker], specs: Sequence[GameSpec]) -> None:
        if not self.decision_timeout:
            return
        now = time.monotonic()
        for worker in busy:
            started = worker.slots[_STARTED]
            if started and now - started > self.decision_timeout:
                who = self._deciding(worker, specs)
                worker.process.kill()
                raise DecisionTimeout(
                    f"{who} did not answer within the decision timeout of {self.decision_timeout:g} s; "
                    "its worker process was stopped"
                )

    def _deciding(self, worker: _Worker, specs: Sequence[GameSpec]) -> str:
        """The agent at the decision the worker's slots show."""
        spec = specs[int(worker.slots[_SESSION])]
        return agent_at(self.setup, spec, int(worker.slots[_SEAT]), int(worker.slots[_DECISION]))

    def _died(self, worker: _Worker, specs: Sequence[GameSpec]) -> RuntimeError:
        worker.process.join(STOP_GRACE_S)
        code = worker.process.exitcode
        how = f"exit code {code}" if code is None or code >= 0 else f"killed by {signal.Signals(-code).name}"
        if worker.slots[_STARTED]:  # an agent was deciding: it ended the process (os._exit, a crash in C...)
            return AgentFailed(f"{self._deciding(worker, specs)} ended its worker process ({how})")
        spec = specs[worker.held[0] if worker.held else int(worker.slots[_SESSION])]
        return WorkerDied(
            f"a worker process ended ({how}) while playing the session of block {spec.block}, line-up "
            f"{spec.lineup}, seating {spec.seating}"
        )

    def stop(self) -> None:
        """Tell every worker to end, give them :data:`STOP_GRACE_S`, then kill any left."""
        for worker in self.workers:
            with contextlib.suppress(OSError):  # ended already
                worker.connection.send(None)
        deadline = time.monotonic() + STOP_GRACE_S
        for worker in self.workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
        self.kill()

    def kill(self) -> None:
        """Kill every worker still running and wait for it (no lock is shared: none can block another)."""
        for worker in self.workers:
            if worker.process.exitcode is None:
                worker.process.kill()
        for worker in self.workers:
            worker.process.join(STOP_GRACE_S)
            worker.connection.close()
