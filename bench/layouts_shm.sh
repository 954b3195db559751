#!/bin/bash
# One slowed shm rank of eight on 128³ (issue 22; docs/balancing.md, "Layouts beyond the tensor
# grid"): step_seconds of tensor off and dynamic, then tensor, jagged and kd static from the
# dynamic run's profile. Usage: bench/layouts_shm.sh [SECONDS_PER_MCELL] [OUT]
set -e
slow=${1:-0.5}
out=${2:-/tmp/layouts_shm}
yee=${YEE:-target/release/yee}
scene=$(dirname "$0")/scenes/vacuum128.toml
mkdir -p "$out"
step() { python3 -c "import json; print(json.load(open('$1/run.json'))['step_seconds'])"; }
common=(--ranks 8 --topology 2x2x2 --comm shm --steps 100 --quiet)
"$yee" run "$scene" "${common[@]}" --out "$out/base"
echo "no slowdown, tensor off: $(step "$out/base")"
"$yee" run "$scene" "${common[@]}" --slowdown "3=$slow" --out "$out/off"
echo "tensor off: $(step "$out/off")"
"$yee" run "$scene" "${common[@]}" --slowdown "3=$slow" --balance dynamic --rebalance-every 20 --out "$out/dyn"
echo "tensor dynamic: $(step "$out/dyn")"
for layout in tensor jagged kd; do
    "$yee" run "$scene" "${common[@]}" --slowdown "3=$slow" --balance static \
        --profile "$out/dyn/profile.json" --layout $layout --out "$out/static_$layout"
    echo "$layout static: $(step "$out/static_$layout")"
done
