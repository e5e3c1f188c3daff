#!/usr/bin/env bash
# The algorithm leaderboard's training runs (docs/training/leaderboard.md): each VARIANT:METHOD runs its
# config (configs/<variant>_<method>.yaml) for MINUTES of wall clock into runs/leaderboard/<variant>_<method>,
# two runs at a time (one a core on the 2-core machine: run.threads=1, NEWMARKET_THREADS=1), with run.total_steps raised so that the clock, not
# a config's step count, ends every run, and with no periodic evaluation (it would spend the
# budget unevenly: the leaderboard measures the checkpoints afterwards). RLlib PPO saves a checkpoint every
# 10,000 learner decisions so that one falls near the budget. Run from the repository root:
#   scripts/leaderboard_runs.sh 10 newmarket:ppo newmarket:exit newmarket:dmc newmarket:rllib_ppo
# Each run's output goes to runs/leaderboard/<variant>_<method>.log. LEADERBOARD_OUT replaces runs/leaderboard;
# PYTHON replaces .venv/bin/python.
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: scripts/leaderboard_runs.sh MINUTES VARIANT:METHOD [VARIANT:METHOD ...]" >&2
    exit 2
fi
minutes=$1
shift
python=${PYTHON:-.venv/bin/python}
for run in "$@"; do
    if [ ! -f "configs/${run%%:*}_${run#*:}.yaml" ]; then
        echo "error: no config configs/${run%%:*}_${run#*:}.yaml for $run; give VARIANT:METHOD, e.g. newmarket:dmc" >&2
        exit 2
    fi
done
out=${LEADERBOARD_OUT:-runs/leaderboard}
ceiling=10000000000  # run.total_steps: no config's own step budget ends a run before the clock does
mkdir -p "$out"
one_run() {
    local variant=${1%%:*} method=${1#*:}
    local name=${variant}_${method}
    local extra=()
    if [ "$method" = rllib_ppo ]; then extra=(--set run.checkpoint_every=10000); fi
    "$python" -m newmarket_env.train "configs/${name}.yaml" --set "run.max_minutes=$minutes" --set eval.every=0 --set run.threads=1 \
        --set run.total_steps=$ceiling --set "run.out_dir=$out/${name}" --no-progress "${extra[@]}" \
        > "$out/${name}.log" 2>&1 \
        && echo "done: $name" || echo "FAILED: $name ($out/${name}.log)"
}
export -f one_run
export minutes python out ceiling
export NEWMARKET_THREADS=1 OMP_NUM_THREADS=1  # one core a run: its batches' threads and its label workers' BLAS
printf '%s\n' "$@" | xargs -P 2 -I{} bash -c 'one_run "$@"' _ {}
