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

# A copy of scene $1 with `value_type = $2` (and the top-level lines $3) as $SCENES/$4.toml.
variant() {
    local text
    text=$(cat "$1")
    printf '%s\n' "${3:-}" "${text/\[grid\]/[grid]
value_type = \"$2\"}" > "$SCENES/$4.toml"
    echo "$SCENES/$4.toml"
}

# Runs scene $1 into $OUT/$2 with the remaining arguments; prints nothing, returns its status.
run() {
    local scene=$1 name=$2
    shift 2
    rm -rf "${OUT:?}/$name"
    timeout 300 "$YEE" run "$scene" --quiet --out "$OUT/$name" "$@" > "$OUT/$name.log" 2>&1
}

# Compares every .npy and CSV (snapshots, probes, flux spectra, DFT sums) of $OUT/$1 with $OUT/$2: "identical (N files)" or what differs.
same() {
    local n=0 bad=""
    for f in "$OUT/$1"/*.npy "$OUT/$1"/*.csv; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        cmp -s "$f" "$OUT/$2/$(basename "$f")" || bad="$bad $(basename "$f")"
    done
    if [ "$n" -eq 0 ]; then echo "no outputs"; elif [ -z "$bad" ]; then echo "identical ($n files)"; else echo "DIFFER:$bad"; fi
}

echo "| scene | value | device run | against the scalar run |"
echo "| --- | --- | --- | --- |"
check() {
    local scene=$1 label=$2 value=$3
    shift 3
    run "$scene" "s_$label" --backend scalar "$@" || { echo "| $label | $value | scalar failed: $(tail -1 "$OUT/s_$label.log") | |"; return; }
    for device in "cuda" "cuda2" "mixed"; do
        local args=(--backend cuda)
        case $device in
            cuda2) args=(--backend cuda --ranks 2 --comm shm) ;;
            mixed) args=(--ranks 2 --comm shm --rank-backends cuda,rayon) ;;
        esac
        if run "$scene" "${device}_$label" "${args[@]}" "$@"; then
            echo "| $label | $value | ${args[*]} | $(same "s_$label" "${device}_$label") |"
        else
            echo "| $label | $value | ${args[*]} | failed: $(tail -1 "$OUT/${device}_$label.log") |"
        fi
    done
}
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

# Speed: a cube of side $2 of value type $3, vacuum in PEC or CPML + a dielectric sphere.
cube() {
    local name=$1 side=$2 value=$3 kind=$4 steps=$5
    {
        echo "name = \"$name\""
        echo 'smoothing = "diagonal"'
        echo "[grid]"
        echo "mode = \"3d\""
        echo "size = [$side, $side, $side]"
        echo "value_type = \"$value\""
        if [ "$kind" = sphere ]; then
            echo "[boundaries]"
            echo 'all = "cpml"'
            echo "[materials.glass]"
            echo "eps = 2.25"
            echo "[[geometry]]"
            echo 'shape = "sphere"'
            echo 'material = "glass"'
            echo "center = [$((side / 2)), $((side / 2)), $((side / 2))]"
            echo "radius = $((side / 4))"
        fi
        echo "[[sources]]"
        echo 'component = "ez"'
        echo "position = [$((side / 3)), $((side / 2)), $((side / 2))]"
        echo 'waveform = "ricker"'
        echo "frequency = 0.05"
        echo "[run]"
        echo "steps = $steps"
    } > "$SCENES/$name.toml"
    echo "$SCENES/$name.toml"
}
echo
echo "| scene | cells | steps | device Mcells/s (stepping) | end to end |"
echo "| --- | ---: | ---: | ---: | ---: |"
for spec in "vacuum 256 f32 pec 400" "vacuum 256 f64 pec 400" "sphere 256 f32 sphere 400" \
    "sphere 256 f64 sphere 400" "vacuum 512 f32 pec 200"; do
    set -- $spec
    name="speed_$1_$2_$3"
    scene=$(cube "$name" "$2" "$3" "$4" "$5")
    if run "$scene" "$name" --backend cuda; then
        rate=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f\"{d['mcells_per_s']:.0f} | {d['end_to_end_mcells_per_s']:.0f}\")" "$OUT/$name/run.json")
        echo "| $1 $3 ($4) | $2³ | $5 | $rate |"
    else
        echo "| $1 $3 ($4) | $2³ | $5 | failed: $(tail -1 "$OUT/$name.log") | |"
    fi
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

# The heterogeneous run: one device rank and 15 rayon ranks (a core each) on the sphere scene.
rate() { python3 -c "import json,sys; print(f\"{json.load(open(sys.argv[1]))['mcells_per_s']:.0f}\")" "$OUT/$1/run.json"; }
het=$(cube het_sphere_256_f32 256 f32 sphere 200)
echo
echo "heterogeneous: sphere 256³ f32 + CPML, 200 steps; rates from run.json (Mcells/s)"
cpu=$(timeout 240 "$YEE" bench --threads 1 --scenes --only "sphere 256" --no-scalar --json 2>/dev/null |
    python3 -c "import json,sys; print(f\"{[r for r in json.load(sys.stdin) if r['value_type'] == 'f32'][0]['mcells_per_s']:.0f}\")")
if run "$het" het_gpu --backend cuda && [ -n "$cpu" ]; then
    gpu=$(rate het_gpu)
    ideal=$((gpu + 15 * cpu))
    list="cuda$(printf ',rayon%.0s' $(seq 15))"
    speeds="$gpu$(printf ",$cpu%.0s" $(seq 15))"
    echo "| run | Mcells/s | of the ideal $ideal (device $gpu + 15 × one core $cpu) |"
    echo "| --- | ---: | ---: |"
    echo "| device alone | $gpu | $((100 * gpu / ideal)) % |"
    for spec in "even:--balance off" "static:--balance static --speeds $speeds" \
        "dynamic:--balance dynamic --rebalance-every 20"; do
        name=${spec%%:*}
        if run "$het" "het_$name" --ranks 16 --comm shm --topology 16x1x1 --rank-backends "$list" ${spec#*:}; then
            r=$(rate "het_$name")
            echo "| 1 device + 15 cores, $name | $r | $((100 * r / ideal)) % |"
        else
            echo "| 1 device + 15 cores, $name | failed: $(tail -1 "$OUT/het_$name.log") | |"
        fi
    done
else
    echo "device alone failed: $(tail -1 "$OUT/het_gpu.log"); one-core rate '$cpu'"
fi

echo
echo "rayon on the host's cores (yee bench, 3D 256 vacuum and CPML):"
timeout 240 "$YEE" bench --threads 1,2,4,8,16 --only "3D 256^3" --no-scalar 2>&1 | tail -12
timeout 300 "$YEE" bench --threads 1,2,4,8,16 --scenes --only "CPML 256^3" --no-scalar 2>&1 | tail -12
