#!/usr/bin/env bash
# Instructions per cell and step of a scene's stepping on one thread, counted by callgrind, so
# independent of the machine's load (docs/performance.md, "Counted instructions"): the scene is
# run for 4 and for 14 steps and the difference divided by 10 steps and the grid's cells, which
# takes the set-up out. Valgrind runs the sweep's AVX2 clone (it has no AVX-512).
#   cargo build --release -p yee && bench/count_instructions.sh bench/scenes/cpml128.toml [target/release/yee]
set -euo pipefail
scene="${1:?usage: bench/count_instructions.sh SCENE.toml [BINARY]}"
binary="${2:-target/release/yee}"
[ -r "$scene" ] || { echo "$scene: no such scene file" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
size="$(sed -n 's/^size *= *\[\([0-9, ]*\)\].*/\1/p' "$scene" | head -1)"
[ -n "$size" ] || { echo "$scene: no 'size = [...]' line" >&2; exit 2; }
cells="$(awk -F, '{p = 1; for (i = 1; i <= NF; i++) p *= $i; print p}' <<<"$size")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
count() {
    if ! RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" \
        "$binary" run "$scene" --steps "$1" --quiet --out "$work/out.$1" >"$work/log.$1" 2>&1; then
        echo "$binary run $scene --steps $1 failed under valgrind:" >&2
        tail -n 20 "$work/log.$1" >&2
        exit 1
    fi
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/log.$1"
}
short="$(count 4)"
long="$(count 14)"
awk -v s="$short" -v l="$long" -v c="$cells" -v f="$scene" \
    'BEGIN {printf "%s: %.1f instructions per cell and step (%d cells)\n", f, (l - s) / 10 / c, c}'
