"""What the machine's cores give to independent work: the ``vector_env newmarket control`` workload (one thread)
in one process, then in one process per core at once, each process a whole vector env of its own.

No memory, no lock and no Python interpreter is shared between the processes, so their summed rate over the
single process's rate is what any parallel design of the vector env could reach on this machine at best (its
threads share one interpreter; a design with one process per core would add the exchange of the
observations). It puts the ``vector_env newmarket control, 2 threads`` row of ``newmarket bench`` in scale:

    python -m newmarket_env.eval.bench.cores --seconds 8 --rounds 3

prints each round's rates and the median ratio (processes together over one alone).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time
from collections.abc import Sequence

from newmarket_env.eval.bench.training import vector_control


def _rate(seconds: float, ready, start, results) -> None:
    """Learner decisions per second of one thread-1 vector env stepped for ``seconds`` after ``start`` is set
    (``ready`` is told once the env is built and warm)."""
    play, _note = vector_control(threads=1)
    play(0)  # warm up outside the timed span
    ready.put(True)
    start.wait()
    began, decisions = time.perf_counter(), 0
    while time.perf_counter() - began < seconds:
        decisions += play(0)[0]
    results.put(decisions / (time.perf_counter() - began))


def together(processes: int, seconds: float) -> list[float]:
    """Each process's rate when ``processes`` of them run the workload at the same time."""
    context = multiprocessing.get_context("spawn")
    ready, start, results = context.Queue(), context.Event(), context.Queue()
    workers = [context.Process(target=_rate, args=(seconds, ready, start, results)) for _ in range(processes)]
    for worker in workers:
        worker.start()
    for _ in workers:  # every process built its env and warmed up: they start timing together
        ready.get()
    start.set()
    rates = [results.get() for _ in workers]
    for worker in workers:
        worker.join()
    return rates


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m newmarket_env.eval.bench.cores",
        description="The vector env workload in one process, then in one process per core at once: the "
        "machine's own ceiling for stepping tables in parallel.",
    )
    parser.add_argument("--seconds", type=float, default=8.0, help="timed seconds a round (default 8)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--processes", type=int, default=None, help="default: the machine's cores")
    args = parser.parse_args(argv)
    if args.processes is None:
        from newmarket_env.engine._batch import machine_cores  # compiled, as the workload itself

        args.processes = machine_cores()
    if args.seconds <= 0 or args.rounds < 1 or args.processes < 2:
        parser.error("--seconds must be > 0, --rounds >= 1 and --processes >= 2")
    ratios = []
    for round_ in range(args.rounds):
        (alone,) = together(1, args.seconds)
        rates = together(args.processes, args.seconds)
        ratios.append(sum(rates) / alone)
        print(
            f"round {round_ + 1}: one process {alone:,.0f} learner decisions/s; {args.processes} at once "
            f"{' + '.join(f'{r:,.0f}' for r in rates)} = {sum(rates):,.0f} ({ratios[-1]:.2f}x)",
            flush=True,
        )
    print(f"median: {args.processes} processes at once = {statistics.median(ratios):.2f}x one process")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
