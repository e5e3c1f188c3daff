#!/usr/bin/env bash
# Mutation testing of the parts outside the engine (issue 17), with mutmut 3.
#
#   scripts/mutation.sh                 every module below
#   scripts/mutation.sh saved replay    only these modules
#   SAMPLE=40 scripts/mutation.sh       at most 40 mutants per module, a fixed (seeded) sample
#   SAMPLE=40 SEED=18 scripts/...       another fixed sample (a fresh one measures tests written
#                                       against the first sample's survivors without that bias)
#   REV=1b7788e scripts/mutation.sh     the code and tests of a commit instead of the working tree
#   NAMES="a b" scripts/mutation.sh M   only these mutants of module M (to check survivors again)
#
# Modules: agents (agents/ without saved.py), saved (agents/saved.py), train (train/),
# tournament (eval/tournament/), replay (newmarket_env/records/); guided
# (agents/guided_search.py alone, also part of agents) only when named.
#
# Why a copy: mutmut rewrites the sources it mutates, and the working tree is shared, so every
# module runs in its own copy under $MUTATION_DIR (default /tmp/newmarket-mutation/<module>).
# Why the copy is re-laid: pyproject maps agents/ -> newmarket_env.agents (also train/, eval/);
# mutmut names a mutant after its file path and only finds the module it mutated when the path is
# the import name, so the copy moves those folders under newmarket_env/. The installed package
# (an editable install of the working tree) is then shadowed by the copy, which comes first on
# sys.path (mutmut puts mutants/ there; PYTHONPATH does it for the CLI tests' subprocesses).
# Each module is tested only by its own test files and its own doctests (TESTS below; the saved agent's
# batch tests live in tests/agents), so a run fits a small machine. The Ray tests of the tournament and
# training backends are in the selection: a Ray cluster started in a worker forked by mutmut's default
# "fork" isolation hangs, one forked from mutmut's fork server (ISOLATION=forkserver, the default here)
# starts and stops cleanly, and its Ray workers inherit MUTANT_UNDER_TEST, so they run the mutant too.
# mutmut also runs, per mutant, only the tests that reached the mutated function, widened here to
# every test of the files holding them (mutant_sample.py --widen: a module-scoped fixture's calls
# are otherwise credited to the first test of its file only).
#
# The score per module is printed at the end (scripts/mutant_sample.py --score; `mutmut results` in
# the module's folder lists the survivors, `mutmut show NAME` one diff); docs/testing.md records the figures and the survivors judged harmless.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
MUTATION_DIR=${MUTATION_DIR:-/tmp/newmarket-mutation}
MUTMUT_VERSION=3.8.1
CHILDREN=${CHILDREN:-1}
SAMPLE=${SAMPLE:-0}
# forkserver: each mutant's worker is forked from a process that has not run the tests (mutmut's
# "fork" forks the one that has, and a Ray cluster started after that fork hangs).
ISOLATION=${ISOLATION:-forkserver}

declare -A ONLY TESTS
ONLY[agents]="newmarket_env/agents/*.py"
TESTS[agents]="tests/agents newmarket_env/agents"
ONLY[saved]="newmarket_env/agents/saved.py"
TESTS[saved]="tests/train/test_saved*.py tests/agents/test_saved_batch.py newmarket_env/agents/saved.py"
ONLY[train]="newmarket_env/train/*.py"
TESTS[train]="tests/train tests/cli/test_command_help.py tests/ray/test_labels_on_ray.py tests/ray/test_evaluate_on_ray.py newmarket_env/train"
ONLY[tournament]="newmarket_env/eval/tournament/*.py"
TESTS[tournament]="tests/tournament tests/cli/test_command_help.py tests/ray/test_tournament_on_ray.py tests/ray/test_backend_input.py tests/ray/test_ray_task_errors.py newmarket_env/eval/tournament"
ONLY[guided]="newmarket_env/agents/guided_search.py"  # part of agents, alone: its racing and prior weight
TESTS[guided]="tests/agents newmarket_env/agents/guided_search.py"
ONLY[replay]="newmarket_env/records"
TESTS[replay]="tests/cli/test_replay*.py newmarket_env/records"

modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(agents saved train tournament replay)
for m in "${modules[@]}"; do
  [ -n "${ONLY[$m]:-}" ] || { echo "unknown module '$m'; allowed: ${!ONLY[*]}" >&2; exit 2; }
done

"$PYTHON" -c "import mutmut" 2>/dev/null || "$PYTHON" -m pip install --quiet "mutmut==$MUTMUT_VERSION"
MUTMUT=$(dirname "$PYTHON")/mutmut

lay_out_copy() {  # $1: target folder; the working tree (or commit $REV) and the built engine, re-laid
  local target=$1
  rm -rf "$target"
  mkdir -p "$target"
  if [ -n "${REV:-}" ]; then
    (cd "$ROOT" && git archive "$REV") | tar -C "$target" -xf -
  else
    (cd "$ROOT" && git ls-files --cached --others --exclude-standard | while read -r f; do
       [ -f "$f" ] && printf '%s\0' "$f"; done | tar --null -T - -cf -) | tar -C "$target" -xf -
  fi
  (cd "$ROOT" && cp newmarket_env/engine/*.so "$target/newmarket_env/engine/" 2>/dev/null || true)
  for pkg in agents train eval; do mv "$target/$pkg" "$target/newmarket_env/$pkg"; done
}

write_config() {  # $1: target folder, $2: module
  local target=$1 module=$2 args=""
  local t
  for t in $(cd "$target" && ls -d ${TESTS[$module]} 2>/dev/null); do args+="    $t"$'\n'; done
  # agents/ is scored without saved.py, which is its own module here.
  local skip=""
  [ "$module" = agents ] && skip="do_not_mutate = newmarket_env/agents/saved.py"
  cat > "$target/setup.cfg" <<EOF
[mutmut]
source_paths = newmarket_env
only_mutate = ${ONLY[$module]}
$skip
process_isolation = ${ISOLATION}
pytest_add_cli_args =
    -p no:xdist
    -p no:cacheprovider
pytest_add_cli_args_test_selection =
$args
also_copy =
    configs
    docs
EOF
  # mutmut reads [tool.mutmut] from pyproject first; the copy's pyproject has none, so setup.cfg counts.
  # also_copy: the tests run inside mutants/, and read the shipped configs/ and the reference docs/ there.
}

summary=()
for module in "${modules[@]}"; do
  work="$MUTATION_DIR/$module"
  echo "== $module: copy in $work"
  lay_out_copy "$work"
  write_config "$work" "$module"
  cd "$work"
  mkdir -p mutants  # mutmut puts mutants/ on sys.path only if it exists when it starts
  names=()
  # Generate the mutants and collect which tests reach each function (no mutant matches the name),
  # then widen that selection to whole test files.
  PYTHONPATH="$work/mutants" "$MUTMUT" run --max-children "$CHILDREN" "no-such-mutant" >/dev/null 2>&1 || true
  "$PYTHON" "$ROOT/scripts/mutant_sample.py" --widen
  if [ -n "${NAMES:-}" ]; then
    read -r -a names <<< "$NAMES"  # these mutants only (names as `mutmut results` prints them)
  elif [ "$SAMPLE" -gt 0 ]; then
    # A fixed sample of the mutants' names (seeded, so a rerun picks the same ones).
    mapfile -t names < <("$PYTHON" "$ROOT/scripts/mutant_sample.py" "$SAMPLE")
  fi
  PYTHONPATH="$work/mutants" "$MUTMUT" run --max-children "$CHILDREN" "${names[@]}" || true
  "$MUTMUT" export-cicd-stats >/dev/null || true
  summary+=("$module: $("$PYTHON" "$ROOT/scripts/mutant_sample.py" --score)")
  cd "$ROOT"
done
printf '%s\n' "== mutation score per module (killed / scored)" "${summary[@]}"
