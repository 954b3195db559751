#!/bin/bash
# One slowed shm rank of eight on 128³ (issue 22; docs/balancing.md, "Layouts beyond the tensor
# grid"): step_seconds of tensor off and dynamic, then tensor, jagged and kd static from the
# dynamic run's profile, and kd dynamic.
# Usage: bench/layouts_shm.sh [SECONDS_PER_MCELL] [OUT] [ALL_SECONDS_PER_MCELL]
# With ALL_SECONDS_PER_MCELL every rank sleeps that long per million cell updates and rank 3
# SECONDS_PER_MCELL: sleeping ranks need no core, so eight ranks on fewer cores behave like
# eight machines whose speeds the sleeps set; the ideal step time is printed beside them.
set -e
slow=${1:-0.5}
out=${2:-/tmp/layouts_shm}
all=${3:-}
yee=${YEE:-target/release/yee}
scene=$(dirname "$0")/scenes/vacuum128.toml
mkdir -p "$out"
step() { python3 -c "import json; print(json.load(open('$1/run.json'))['step_seconds'])"; }
common=(--ranks 8 --topology 2x2x2 --comm shm --steps 100 --quiet)
base=()
if [ -n "$all" ]; then
    for r in 0 1 2 3 4 5 6 7; do base+=(--slowdown "$r=$all"); done
fi
slowed=("${base[@]}" --slowdown "3=$slow")
"$yee" run "$scene" "${common[@]}" "${base[@]}" --out "$out/base"
echo "no slowdown, tensor off: $(step "$out/base")"
if [ -n "$all" ]; then
    # Each rank's seconds per cell in the base run (its compute plus its sleep, equal shares),
    # rank 3's with its sleep raised: the ideal is cells over the sum of the speeds.
    python3 - "$out/base/run.json" "$all" "$slow" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
all_s, slow_s = float(sys.argv[2]) * 1e-6, float(sys.argv[3]) * 1e-6
cells = 128 ** 3
per_cell = doc["step_seconds"] / doc["steps"] / (cells / 8)
speeds = [1 / per_cell] * 7 + [1 / (per_cell - all_s + slow_s)]
print(f"ideal step time x 100 steps: {cells / sum(speeds) * doc['steps']:.3f}")
PY
fi
"$yee" run "$scene" "${common[@]}" "${slowed[@]}" --out "$out/off"
echo "tensor off: $(step "$out/off")"
"$yee" run "$scene" "${common[@]}" "${slowed[@]}" --balance dynamic --rebalance-every 20 --out "$out/dyn"
echo "tensor dynamic: $(step "$out/dyn")"
for layout in tensor jagged kd; do
    "$yee" run "$scene" "${common[@]}" "${slowed[@]}" --balance static \
        --profile "$out/dyn/profile.json" --layout $layout --out "$out/static_$layout"
    echo "$layout static: $(step "$out/static_$layout")"
done
"$yee" run "$scene" "${common[@]}" "${slowed[@]}" --balance dynamic --rebalance-every 20 \
    --layout kd --out "$out/dyn_kd"
echo "kd dynamic: $(step "$out/dyn_kd")"
