# bench/gpu_lib.sh: the helpers bench/gpu_check.sh and bench/device_window.sh share, sourced
# with YEE (the binary), OUT (the output folder) and SCENES (the folder of generated scenes) set.

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

# Compares every .npy and CSV (snapshots, probes, flux spectra, DFT sums) of $OUT/$1 with
# $OUT/$2: "identical (N files)" or what differs.
same() {
    local n=0 bad=""
    for f in "$OUT/$1"/*.npy "$OUT/$1"/*.csv; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        cmp -s "$f" "$OUT/$2/$(basename "$f")" || bad="$bad $(basename "$f")"
    done
    if [ "$n" -eq 0 ]; then echo "no outputs"; elif [ -z "$bad" ]; then echo "identical ($n files)"; else echo "DIFFER:$bad"; fi
}

# Runs $1 on the scalar backend and on the device three ways (one device rank, two on shm, a
# device rank beside a rayon rank), printing a table row each: identical or what differs.
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

# Runs scene $1 into $OUT/$2 on the device and prints the table row "| $3 | stepping rate | end
# to end |" (run.json's Mcells/s), or why the run failed.
speed_row() {
    local scene=$1 name=$2 label=$3
    if run "$scene" "$name" --backend cuda; then
        echo "| $label | $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(f\"{d['mcells_per_s']:.0f} | {d['end_to_end_mcells_per_s']:.0f}\")" "$OUT/$name/run.json") |"
    else
        echo "| $label | failed: $(tail -1 "$OUT/$name.log") | |"
    fi
}

# The run.json stepping rate of run $1 (Mcells/s).
rate() { python3 -c "import json,sys; print(f\"{json.load(open(sys.argv[1]))['mcells_per_s']:.0f}\")" "$OUT/$1/run.json"; }

# Run $1's ranks from its run.json, one line each: the x extent it ended with, its compute and
# share seconds, and the run's step seconds.
rank_stats() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("%s: step %.3f s, balance %s" % (sys.argv[2], d["step_seconds"], d["balance"].get("final_borders", "")[:1]))
for r in d["rank_stats"]:
    print("  rank %2d x %4d..%4d compute %.3f s share %.3f s" % (r["rank"], r["lo"][0], r["hi"][0], r["compute_seconds"], r["share_seconds"]))
' "$OUT/$1/run.json" "$1"
}

# The heterogeneous run (Balykov 2019 §3): one device rank and 15 rayon ranks (a core each) on
# the sphere cube at 256³ f32, $1 steps (200 by default): split evenly, by the measured speeds
# (static) and by measurement (dynamic), each against the device alone and the ideal split.
# The ranks split z (1x1x16): a host rank's share is a few whole planes, where a split along x
# left it rows of one or two cells, and its row kernels ran at a twentieth of their rate
# (2026-11-30, docs/cuda.md).
heterogeneous() {
    local het cpu gpu ideal list speeds name r
    het=$(cube het_sphere_256_f32 256 f32 sphere "${1:-200}")
    echo
    echo "heterogeneous: sphere 256³ f32 + CPML, ${1:-200} steps; rates from run.json (Mcells/s)"
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
            if run "$het" "het_$name" --ranks 16 --comm shm --topology 1x1x16 --rank-backends "$list" ${spec#*:}; then
                r=$(rate "het_$name")
                echo "| 1 device + 15 cores, $name | $r | $((100 * r / ideal)) % |"
                rank_stats "het_$name" >> "$OUT/het_ranks.txt"
            else
                echo "| 1 device + 15 cores, $name | failed: $(tail -1 "$OUT/het_$name.log") | |"
            fi
        done
    else
        echo "device alone failed: $(tail -1 "$OUT/het_gpu.log"); one-core rate '$cpu'"
    fi
}
