#!/bin/bash
# Stepping from Python against `yee run` on the same 256³ CPML scene (f32, a dielectric sphere,
# a point source), side by side: ROUNDS alternating runs of each, the median Mcells/s of the
# stepping (run.json's mcells_per_s, the same clock for both) and of the whole run (wall time
# around the call), and their ratios.
#   bench/python_vs_cli.sh [PYTHON] [ROUNDS] [STEPS] [SIZE]
# PYTHON must have the package installed (python3 -m pip install ./python); the yee binary is
# target/release/yee (cargo build --release -p yee).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-python3}; ROUNDS=${2:-3}; STEPS=${3:-60}; N=${4:-256}
BIN=target/release/yee
WORK=$(mktemp -d)
cat > $WORK/cpml.toml <<TOML
name = "cpml$N"
[grid]
mode = "3d"
size = [$N, $N, $N]
courant = 0.5
value_type = "f32"
[boundaries]
all = "cpml"
[boundaries.cpml]
thickness = 10
[materials.glass]
eps = 2.25
[[geometry]]
shape = "sphere"
material = "glass"
center = [$((N / 2)), $((N / 2)), $((N / 2))]
radius = $((N / 6))
[[sources]]
component = "ez"
position = [$((N / 4)), $((N / 2)), $((N / 2))]
waveform = "ricker"
frequency = 0.05
[run]
steps = $STEPS
TOML
$BIN check $WORK/cpml.toml > /dev/null
for r in $(seq 1 $ROUNDS); do
  s=$(date +%s.%N); $BIN run $WORK/cpml.toml --quiet --out $WORK/cli > /dev/null; e=$(date +%s.%N)
  echo "cli $(python3 -c "import json;print(json.load(open('$WORK/cli/run.json'))['mcells_per_s'])") $(python3 -c "print($N**3*$STEPS/($e-$s)/1e6)")" >> $WORK/rates
  $PY - <<PYEOF >> $WORK/rates
import time, yee
scene = yee.Scene.load("$WORK/cpml.toml")
t = time.perf_counter()
sim = yee.Simulation(scene, out="$WORK/py")
sim.run(progress=False)
wall = time.perf_counter() - t
print("py", sim.report["mcells_per_s"], $N**3 * $STEPS / wall / 1e6)
PYEOF
done
python3 - $WORK/rates <<'PYEOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = lambda who, i: statistics.median(float(r[i]) for r in rows if r[0] == who)
for i, what in ((1, "stepping"), (2, "whole run")):
    cli, py = med("cli", i), med("py", i)
    print(f"{what:10s} Mcells/s: yee run {cli:8.1f}, Python {py:8.1f}, Python/yee run {py / cli:.3f}")
PYEOF
rm -rf $WORK
