"""The end of a run with worker processes is certain: it never waits on a worker that does not stop, and says
nothing but its own lines. (With multiprocessing.Pool, leaving the pool sent its workers SIGTERM while holding
the lock they waited on: a worker whose SIGTERM did not reach its main thread, or that ignored it, hung the
run for ever; and the workers' SIGTERM handler raised inside their exit handlers: "Exception ignored in
atexit callback ... cannot release un-acquired lock".)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

HOSTILE = "tests.tournament.hostile_agents:Hostile"
NEWMARKET = Path(sys.executable).parent / "newmarket"
REPOSITORY = Path(__file__).resolve().parents[2]
HANG_GUARD_S = 300  # only so a hung run fails instead of hanging CI; never an assertion on speed


@pytest.mark.slow
def test_workers_that_ignore_sigterm_do_not_hold_up_the_end(tmp_path):
    """Agents that make their worker ignore SIGTERM (some libraries do): the run still ends, as it should."""
    command = [str(NEWMARKET), "tournament", "--agents", f"{HOSTILE},random,random,random", "--blocks", "2"]
    command += ["--agent-option", f"{HOSTILE}:answer=deaf_to_sigterm", "--workers", "2", "--resamples", "20"]
    done = subprocess.run(
        [*command, "--quiet", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        cwd=REPOSITORY,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "games.csv").read_text().count("\n") == 1 + 8 * 4


STRESS = textwrap.dedent(
    """
    import faulthandler, multiprocessing, sys
    from newmarket_env.eval.tournament import TournamentConfig, TournamentStopped, plan_tournament
    from newmarket_env.eval.tournament.runner import play_schedule

    HOSTILE = "tests.tournament.hostile_agents:Hostile"
    def plan(answer):
        agents = (HOSTILE, "random", "random", "random")
        options = {HOSTILE: {"answer": answer}}  # from the first decision
        return plan_tournament(TournamentConfig(agents=agents, blocks=1, rules={"num_deals": 1}, agent_options=options))

    if __name__ == "__main__":
        count, guard = int(sys.argv[1]), float(sys.argv[2])
        plans = {answer: plan(answer) for answer in ("deaf_to_sigterm", "error", "sleep")}
        ended = {"played": 0, "stopped": 0}
        for k in range(count):
            faulthandler.dump_traceback_later(guard, exit=True)  # a hang says where it is, then ends
            answer = {7: "error", 8: "sleep"}.get(k % 10, "deaf_to_sigterm")
            how = {"workers": 1 if k % 10 == 9 else 2, "decision_timeout": 0.2 if answer == "sleep" else None}
            method = "spawn" if k % 20 == 0 else "fork"  # spawn as the command does; fork to fit CI's time
            setup, specs = plans[answer].setup, plans[answer].specs
            try:
                assert len(play_schedule(setup, specs, start_method=method, **how)) == len(specs)
                ended["played"] += 1
            except TournamentStopped:
                ended["stopped"] += 1
            assert not multiprocessing.active_children(), "a worker outlived its run"
        faulthandler.cancel_dump_traceback_later()
        print(ended["played"], ended["stopped"])
    """
)


@pytest.mark.slow
def test_two_hundred_short_tournaments_end_without_a_hang_or_a_stray_message(tmp_path):
    """Runs that end normally, stop on an agent's error, and stop at the decision timeout; by 1 worker and by 2,
    spawned and forked; their workers ignore SIGTERM. Each must end, leave no worker and print nothing."""
    script = tmp_path / "stress.py"
    script.write_text(STRESS)
    done = subprocess.run(
        [sys.executable, str(script), "200", "120"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S * 4,
        cwd=REPOSITORY,
        env={**os.environ, "PYTHONPATH": str(REPOSITORY)},
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout == "160 40\n"


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_workers_end_with_a_killed_main_process_even_inside_a_decision(tmp_path):
    marker = tmp_path / "sleeping"
    command = [str(NEWMARKET), "tournament", "--agents", f"{HOSTILE},random,random,random", "--blocks", "2"]
    command += ["--agent-option", f"{HOSTILE}:answer=sleep", "--agent-option", f"{HOSTILE}:marker={marker}"]
    command += ["--workers", "2", "--decision-timeout", "0", "--quiet", "--out", str(tmp_path / "out")]
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL, cwd=REPOSITORY)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while not marker.exists():  # an ordering wait: until an agent is in its endless decision
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        workers = [c for c in _children(process.pid) if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text()]
        assert len(workers) == 2  # (the other child is multiprocessing's resource tracker)
        process.kill()  # no way for the main process to stop its workers itself
        process.wait()
        while not all(_gone(w) for w in workers):
            assert time.monotonic() < deadline, "a worker outlived the main process"
            time.sleep(0.1)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for worker in workers:
            if not _gone(worker):
                os.kill(worker, signal.SIGKILL)
