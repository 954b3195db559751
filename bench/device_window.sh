#!/usr/bin/env bash
# bench/device_window.sh YEE YEE_BEFORE PARTITION_SCALE [THREADS]: what one short window on a
# lent GPU machine (16 cores; about 10 minutes of a session's device time) measures, in the
# order the figures are worth, each step under its own timeout and printed as it finishes:
#   1. issue 53: RCDC at scale on THREADS threads (bench/many_core_check.sh section 3);
#   2. issue 44: the device's bits: scenes on `--backend scalar` and on the device (one device
#      rank, two on shm, a device rank beside a rayon rank), outputs compared byte for byte;
#   3. issue 44: the device's stepping rate (run.json) of YEE against YEE_BEFORE, a build from
#      before a kernel change, run after run on the same cubes (vacuum 256³ twice each, 512³
#      and CPML + sphere 256³ once each, f32), and `yee bench --backend cuda` (each row's
#      fraction of the device triad it measures itself) of this build's vacuum and sphere and
#      the one before's vacuum;
#   4. issue 45: temporal blocking of vacuum at 256³ on THREADS threads (many_core_check.sh
#      section 1's vacuum rows);
#   5. issue 44: the heterogeneous run, one device rank beside 15 rayon ranks
#      (bench/gpu_lib.sh's `heterogeneous`, 100 steps);
#   6. issue 45: temporal blocking of the CPML, sphere and lossy scenes (section 1's scenes).
#   7. issue 45: one-step realistic scenes on one thread (many_core_check.sh section 2), on a
#      quiet host;
#   8. issue 45: tile shapes and shm ranks × threads on the vacuum cube (many_core_check.sh
#      section 4: where the tiles pay on many cores);
#   9. issue 44: Nsight Compute's view of the curl launches (`ncu`, where the host has it: 3
#      steps of the vacuum cube at 256³ f32, the first four `yee_curl` launches), in $OUT/ncu.txt
#      and summarised.
# `WINDOW="bits speed"` runs only the steps named (of 53, bits, speed, bench, 45v, het, 45s,
# 45one, 45r, ncu; all but the last three by default), in the order above. Nothing is compiled there: carry release binaries built here with `--features yee/cuda`
# (stripped: the working tree that travels is 64 MiB at most). bench/gpu_check.sh is the
# whole check, for a longer window.
set -u
YEE=$(realpath "${1:-target/release/yee}")
BEFORE=$(realpath "${2:-target/release/yee_before}")
PARTITION_SCALE=$(realpath "${3:-target/release/partition_scale}")
THREADS=${4:-$(nproc)}
cd "$(dirname "$0")/.."
OUT=${OUT:-out/device_window}
SCENES="$OUT/scenes"
mkdir -p "$SCENES"
START=$SECONDS
NOW=$YEE
# shellcheck source=bench/gpu_lib.sh
source bench/gpu_lib.sh
stamp() { echo; echo "[$((SECONDS - START)) s] $*"; }
WINDOW=${WINDOW:-53 bits speed bench 45v het 45s}
# Whether WINDOW names step $1.
step() { [[ " $WINDOW " == *" $1 "* ]]; }

echo "device-window: $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
echo "device-window: host $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

step 53 && stamp "1. issue 53" &&
    SECTIONS=3 bench/many_core_check.sh "$YEE" "$PARTITION_SCALE" "$THREADS" | grep -v "^many-core-check"

if step bits; then
stamp "2. issue 44: bits on the device"
echo "| scene | value | device run | against the scalar run |"
echo "| --- | --- | --- | --- |"
for v in f32 f64; do
    check "$(variant apps/yee/tests/scenes/device3d.toml $v '' device3d_$v)" device3d $v
done
# The CPML's stretch 1/κ ≠ 1 (the curl launch multiplies by it only where it is not 1).
sed 's/^thickness = 4$/thickness = 4\nkappa_max = 3.0/' apps/yee/tests/scenes/device3d.toml > "$SCENES/device3d_kappa.toml"
check "$SCENES/device3d_kappa.toml" device3d_kappa f64
check examples/scenes/dipole_halfspace3d.toml dipole_halfspace3d f64 --steps 300
check examples/scenes/bend2d.toml bend2d f64
fi

if step speed; then
stamp "3. issue 44: the device's stepping rate, this build against the one before"
echo "| scene | cells | steps | build | device Mcells/s (stepping) | end to end |"
echo "| --- | ---: | ---: | --- | ---: | ---: |"
for spec in "vacuum 256 f32 pec 400 4" "vacuum 512 f32 pec 200 2" "sphere 256 f32 sphere 400 2"; do
    set -- $spec
    scene=$(cube "speed_$1_$2_$3" "$2" "$3" "$4" "$5")
    builds="before now"
    [ "$6" = 4 ] && builds="before now before now"
    for build in $builds; do
        YEE=$NOW
        [ $build = before ] && YEE=$BEFORE
        speed_row "$scene" "speed_$1_$2_$3_$build" "$1 $3 ($4) | $2³ | $5 | $build"
    done
done
fi
YEE=$NOW
if step bench; then
stamp "3b. issue 44: yee bench --backend cuda"
for spec in "now:vacuum 256" "now:sphere 256" "before:vacuum 256"; do
    bin=$NOW
    [ "${spec%%:*}" = before ] && bin=$BEFORE
    echo "yee bench --backend cuda --scenes --only '${spec#*:}' (${spec%%:*}):"
    timeout 90 "$bin" bench --backend cuda --scenes --only "${spec#*:}" --rounds 1 2>&1 | grep -v INFO
done
fi

step 45v && stamp "4. issue 45: vacuum" &&
    SECTIONS=1v bench/many_core_check.sh "$YEE" "$PARTITION_SCALE" "$THREADS" | grep -v "^many-core-check"

if step het; then
stamp "5. issue 44: heterogeneous"
heterogeneous 100
cat "$OUT/het_ranks.txt"
fi

step 45s && stamp "6. issue 45: scenes" &&
    SECTIONS=1s bench/many_core_check.sh "$YEE" "$PARTITION_SCALE" "$THREADS" | grep -v "^many-core-check"

step 45one && stamp "7. issue 45: one thread" &&
    SECTIONS=2 bench/many_core_check.sh "$YEE" "$PARTITION_SCALE" "$THREADS" | grep -v "^many-core-check"

step 45r && stamp "8. issue 45: tiles and ranks" &&
    SECTIONS=4 bench/many_core_check.sh "$YEE" "$PARTITION_SCALE" "$THREADS" | grep -v "^many-core-check"

if step ncu; then
stamp "9. issue 44: ncu"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
    scene=$(cube ncu_vacuum_256_f32 256 f32 pec 3)
    timeout 200 "$NCU" --clock-control none -k regex:yee_curl -c 4 --section SpeedOfLight \
        --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
        --section LaunchStats --section SchedulerStats "$YEE" run "$scene" --backend cuda --quiet \
        --out "$OUT/ncu_run" > "$OUT/ncu.txt" 2>&1
    grep -E "yee_curl|Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Compute \(SM\)|Achieved Occupancy|Registers|Issued Ipc|No Eligible|Stall|Mem Busy|Max Bandwidth|Warp Cycles Per Issued" "$OUT/ncu.txt" | head -120
else
    echo "no ncu on this host"
fi
fi
stamp "done"
