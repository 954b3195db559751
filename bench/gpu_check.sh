#!/usr/bin/env bash
# bench/gpu_check.sh YEE [OUT]: what a person with a GPU machine runs in a few minutes, with a
# release binary built elsewhere (`cargo build --release -p yee --features yee/cuda`; nothing
# is compiled on the GPU host). Prints one table (docs/cuda.md records each one):
#   1. bit for bit: scenes run on `--backend scalar` and on `--backend cuda` (one device rank,
#      two device ranks on shm, a device rank beside a rayon rank), every .npy and probe CSV
#      compared byte for byte;
#   2. speed: `yee run --backend cuda` on vacuum and CPML + sphere scenes, f32 and f64,
#      the stepping rate run.json reports (Mcells/s);
#   3. `yee bench --backend cuda`: the device chunk stepped alone against the device's own
#      triad (vacuum, CPML, sphere and lossy half-space at 256³, f32 and f64);
#   4. the heterogeneous run (Balykov 2019 §3): one device rank beside 15 rayon ranks of one
#      core each, split evenly, by the measured speeds (static) and by measurement (dynamic),
#      against the device alone and the ideal split (the sum of the measured rates);
#   5. the rayon backend's scaling on the host's cores (`yee bench --threads`), vacuum and CPML;
#   6. overlap on the device (Kim & Park 2012's kernel split: each rank's border shell, halo
#      packs and copies on a second stream beside the interior) against none: two device
#      ranks on shm, `--overlap kernel-split` and `--overlap none`, run.json's `overlap` and
#      rates, the outputs of the two compared byte for byte.
set -u
YEE=$(realpath "${1:-target/release/yee}")
OUT=${2:-out/gpu_check}
cd "$(dirname "$0")/.."
mkdir -p "$OUT"
SCENES="$OUT/scenes"
mkdir -p "$SCENES"
echo "gpu-check: $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
echo "gpu-check: host $(nproc) cores, $YEE"

# shellcheck source=bench/gpu_lib.sh
source bench/gpu_lib.sh

echo "| scene | value | device run | against the scalar run |"
echo "| --- | --- | --- | --- |"
for v in f32 f64; do
    check "$(variant apps/yee/tests/scenes/device3d.toml $v '' device3d_$v)" device3d $v
    check "$(variant examples/scenes/dipole2d.toml $v '' dipole2d_$v)" dipole2d $v
done
check examples/scenes/cavity3d.toml cavity3d f64 --steps 2000
check examples/scenes/slab1d.toml slab1d f64
check examples/scenes/bend2d.toml bend2d f64
check examples/scenes/dipole_halfspace3d.toml dipole_halfspace3d f64 --steps 300
# Mode sources (soft point sources expanded by the mode solver) and mode monitors: modes_*.csv.
check examples/scenes/taper.toml taper f64
check examples/scenes/coupler.toml coupler f64

echo
echo "| scene | cells | steps | device Mcells/s (stepping) | end to end |"
echo "| --- | ---: | ---: | ---: | ---: |"
for spec in "vacuum 256 f32 pec 400" "vacuum 256 f64 pec 400" "sphere 256 f32 sphere 400" \
    "sphere 256 f64 sphere 400" "vacuum 512 f32 pec 200"; do
    set -- $spec
    name="speed_$1_$2_$3"
    speed_row "$(cube "$name" "$2" "$3" "$4" "$5")" "$name" "$1 $3 ($4) | $2³ | $5"
done
echo
echo "overlap on the device: two device ranks on shm (--topology 2x1x1), kernel-split against none"
echo "| scene | --overlap | run.json overlap | device Mcells/s (stepping) | end to end | outputs |"
echo "| --- | --- | --- | ---: | ---: | --- |"
for spec in "vacuum 256 f32 pec 200" "sphere 256 f32 sphere 200"; do
    set -- $spec
    scene=$(cube "overlap_$1_$2_$3" "$2" "$3" "$4" "$5")
    # Probes beside the ranks' border (x = side/2) and inside, for the byte comparison.
    printf '[[probes]]\nname = "border"\ncomponent = "ez"\nposition = [%d, %d, %d]\n[[probes]]\nname = "inside"\ncomponent = "hy"\nposition = [%d, %d, %d]\n' \
        $(($2 / 2)) $(($2 / 2)) $(($2 / 3)) $(($2 / 4)) $(($2 / 2)) $(($2 / 2)) >> "$scene"
    for overlap in none kernel-split; do
        name="overlap_$1_$2_$3_$overlap"
        if run "$scene" "$name" --backend cuda --ranks 2 --comm shm --topology 2x1x1 --overlap "$overlap"; then
            rate=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f\"{str(d['overlap']).lower()} | {d['mcells_per_s']:.0f} | {d['end_to_end_mcells_per_s']:.0f}\")" "$OUT/$name/run.json")
            against="reference"
            [ "$overlap" = none ] || against=$(same "overlap_$1_$2_$3_none" "$name")
            echo "| $1 $3 $2³ ($4, $5 steps) | $overlap | $rate | $against |"
        else
            echo "| $1 $3 $2³ ($4, $5 steps) | $overlap | failed: $(tail -1 "$OUT/$name.log") | | | |"
        fi
    done
done

echo
echo "the device chunk stepped alone against the device's triad (yee bench --backend cuda):"
timeout 240 "$YEE" bench --backend cuda --scenes --only "256^3" 2>&1 | grep -v INFO

heterogeneous 200

echo
echo "rayon on the host's cores (yee bench, 3D 256 vacuum and CPML):"
timeout 240 "$YEE" bench --threads 1,2,4,8,16 --only "3D 256^3" --no-scalar 2>&1 | tail -12
timeout 300 "$YEE" bench --threads 1,2,4,8,16 --scenes --only "CPML 256^3" --no-scalar 2>&1 | tail -12
