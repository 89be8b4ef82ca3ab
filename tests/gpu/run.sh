#!/usr/bin/env bash
# One prepared GPU session, at most BUDGET seconds (default 540), results in one folder:
#   tests/gpu/run.sh [BUDGET_S] [OUT_DIR]
# 1. the CUDA tests (tests/gpu: every model family on CUDA, graph capture with vmap and autograd,
#    resume from a checkpoint and from a budget cut), and the trainer's CPU tests on this machine;
# 2. python -m lib.bench suite --save: plain loop (eager, compiled), trainer at K = 1/16/64/256,
#    the 56-member memorization group, Figure 2a's paper-size group, with the matmul ceiling;
# 3. python -m lib.bench paper-cost --save: the five headline sweeps, then the papers named in
#    $PAPER_COST (default: all five and the course; "none" skips the step) less $SKIP, for at most
#    $COST_S seconds in all and $COST_LIMIT per sweep;
# 4. python -m lib.papers queue for the rest of the budget ($QUEUE names the sweeps, in order;
#    $PER_SWEEP caps each one's share, so a short window advances several papers).
# Everything it writes ends up in OUT_DIR/: log.txt, results.tgz (data/bench, data/*.paper.json)
# and, when they fit, the checkpoints of groups in progress as ckpt.tgz.* (cat ckpt.tgz.* | tar xz).
# Unpacked into the repository (and the checkpoints carried), a rerun resumes the queue there.
set -u
BUDGET=${1:-540}
OUT_DIR=${2:-${OUT:-gpu-out}}
mkdir -p "$OUT_DIR"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" OMP_WAIT_POLICY=PASSIVE
PY=${PYTHON:-python3}
start=$(date +%s)
left() { echo $(( BUDGET - ($(date +%s) - start) )); }
step() { echo; echo "=== $1 ($(( $(date +%s) - start ))s of $BUDGET)"; }
# results (small) and checkpoints (can be hundreds of MB) travel apart: the device tool brings back at
# most 8 files of 16 MB, and a later call's copy of the tree removes what this one wrote outside
# ignored paths, so everything must leave through OUT_DIR
pack() {
  tar czf "$OUT_DIR/results.tgz" data/bench $(ls data/*.paper.json 2>/dev/null) 2>/dev/null
  rm -f "$OUT_DIR"/ckpt.tgz.*
  if [ -d data/checkpoints ] && [ "$(du -sm data/checkpoints | cut -f1)" -le ${CKPT_MB:-55} ]; then
    tar czf - data/checkpoints | split -b 15M - "$OUT_DIR/ckpt.tgz."
  elif [ -d data/checkpoints ]; then
    echo "checkpoints: $(du -sh data/checkpoints | cut -f1), too large to bring back (groups in progress restart)"
  fi
}
{
step "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
$PY -c "import torch, platform; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(), 'python', platform.python_version())"

step "CUDA tests (tests/gpu) and the trainer's tests"
timeout ${TEST_S:-150} $PY -m pytest -q -p no:cacheprovider tests/gpu tests/test_train.py tests/test_queue.py 2>&1 | tail -25

step "bench suite"
timeout ${BENCH_S:-180} $PY -m lib.bench suite --save --steps ${BENCH_STEPS:-200} 2>&1 | grep -v "^W[0-9]" | tail -60
pack

if [ "${PAPER_COST:-all}" != none ]; then
  step "paper cost"
  # the five headline sweeps first, then one process per paper: a sweep that breaks its CUDA
  # context or its host memory takes only that process's rows with it (each row is saved as soon
  # as it is measured); the whole step stops after $COST_S seconds
  headline="chen2024.figure2_paper_sizes mahdavi2024.fig2a bhattamishra2024.index_lookup boixadsera2024.identity_scalings richard2024.architectures"
  cost_end=$(( $(date +%s) + ${COST_S:-200} ))
  for name in headline ${PAPER_COST:-chen2024 mahdavi2024 bhattamishra2024 boixadsera2024 richard2024 course}; do
    t=$(( cost_end - $(date +%s) ))
    [ "$t" -gt 20 ] || { echo "paper-cost: no time left for $name"; continue; }
    if [ "$name" = headline ]; then args="--only $headline"; else args="--only $name --skip $headline ${SKIP:-}"; fi
    timeout $t $PY -m lib.bench paper-cost --save --probe ${PROBE:-3} --limit ${COST_LIMIT:-25} $args \
      2>&1 | sed 's/\r/\n/g' | grep -v "it/s\]\|^W[0-9]\|^ *$" | tail -30
  done
  pack
fi

step "paper-scale queue"
budget=$(( $(left) - ${RESERVE:-25} ))
if [ "$budget" -gt 20 ]; then
  timeout $(( budget + 60 )) $PY -m lib.papers queue --budget $budget --margin 5 \
    ${PER_SWEEP:+--per-sweep $PER_SWEEP} ${QUEUE:-} 2>&1 | sed 's/\r/\n/g' | grep -v "it/s\]\|^ *$" | tail -80
fi
$PY -m lib.papers status ${QUEUE:-} 2>&1 | tail -50
pack
step "done"
} 2>&1 | tee "$OUT_DIR/log.txt"
