#!/usr/bin/env bash
# DRAM bytes per cell update, one step at a time against wavefront tiles (issue 45;
# docs/performance.md, "Temporal blocking"), from cachegrind's simulation of this machine's
# last-level cache (size, ways and line read from /sys/devices/system/cpu/cpu0/cache): each
# scene runs on one thread for SHORT and for LONG steps with each --time-block, and the
# difference of the last-level misses (data reads and writes: line fills, write-allocates
# included) times the line size is divided by (LONG - SHORT) steps and the grid's cells, which
# takes the set-up out. Cachegrind counts no write-backs of dirty lines: the bytes are those
# read from DRAM (fills), not those written back, in both columns alike. A tile reads each
# array once, however many steps it holds, so LONG − SHORT must be a multiple of each block's
# k (the `k` column, from run.json; for auto, what auto took): then the long run is the short
# one's tiles and whole tiles more; otherwise the difference is not LONG − SHORT steps' worth
# of tiles, and the script says so (auto's k = 7 over 2 and 6 steps: one tile each, 0 B).
#   cargo build --release -p yee && bench/time_block_traffic.sh [BINARY] [SHORT] [LONG] [BLOCKS]
#   (defaults: target/release/yee, 2, 6, "off 4"; scenes: bench/scenes/vacuum256.toml and
#   bench/scenes/sphere256_diagonal.toml, or TB_SCENES="a.toml b.toml"; TB_LL="SIZE,WAYS,LINE"
#   for another last-level cache than this machine's)
set -euo pipefail
binary="${1:-target/release/yee}"
short="${2:-2}"
long="${3:-6}"
blocks="${4:-off 4}"
scenes="${TB_SCENES:-bench/scenes/vacuum256.toml bench/scenes/sphere256_diagonal.toml}"
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
[ -x "$binary" ] || { echo "$binary: not built (cargo build --release -p yee)" >&2; exit 2; }
[ "$long" -gt "$short" ] || { echo "LONG ($long) must exceed SHORT ($short)" >&2; exit 2; }
# The largest cache cpu0 reports: its size, ways and line.
llc=""
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
    size="$(sed 's/K$/*1024/; s/M$/*1048576/' "$d/size" | bc)"
    if [ -z "$llc" ] || [ "$size" -gt "${llc%%,*}" ]; then
        llc="$size,$(cat "$d/ways_of_associativity"),$(cat "$d/coherency_line_size")"
    fi
done
[ -n "$llc" ] || { echo "no cache sizes under /sys/devices/system/cpu/cpu0/cache" >&2; exit 2; }
# Cachegrind simulates only power-of-two set counts: a cache whose sets are not (a 260 MiB,
# 20-way L3 share) is simulated with the largest power-of-two set count below, and says so.
IFS=, read -r size ways line <<<"$llc"
sets=$((size / ways / line))
pow=1
while [ $((pow * 2)) -le "$sets" ]; do pow=$((pow * 2)); done
if [ "$pow" -ne "$sets" ]; then
    echo "LL of $size bytes has $sets sets, not a power of two: simulating $((pow * ways * line)) bytes" >&2
    llc="$((pow * ways * line)),$ways,$line"
fi
# TB_LL="SIZE,WAYS,LINE" simulates another machine's last-level cache (docs/performance.md's
# table is for 33554432,16,64).
llc="${TB_LL:-$llc}"
line="${llc##*,}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
misses() { # scene block steps -> last-level data misses (reads + writes)
    local tag
    tag="$(basename "$1" .toml).$2.$3"
    if ! RAYON_NUM_THREADS=1 valgrind --tool=cachegrind --cache-sim=yes --LL="$llc" \
        --cachegrind-out-file="$work/cg.$tag" "$binary" run "$1" --steps "$3" --quiet \
        --backend rayon --time-block "$2" --out "$work/out.$tag" >"$work/log.$tag" 2>&1; then
        echo "$binary run $1 --time-block $2 --steps $3 failed under valgrind:" >&2
        tail -n 20 "$work/log.$tag" >&2
        exit 1
    fi
    grep -q '"ran"' "$work/out.$tag/run.json" &&
        sed -n 's/.*"ran": *"\([a-z-]*\)".*/\1/p' "$work/out.$tag/run.json" >"$work/ran.$tag"
    sed -n 's/.*"k": *\([0-9]*\).*/\1/p' "$work/out.$tag/run.json" | head -1 >"$work/k.$tag"
    sed -n 's/.*LL misses: *\([0-9,]*\) .*/\1/p' "$work/log.$tag" | head -1 | tr -d ,
}
echo "LL $llc (size,ways,line); steps $short and $long; bytes = LL data misses x $line"
printf '%-24s %-6s %-10s %3s %14s %10s\n' scene block ran k "B/cell update" "vs off"
for scene in $scenes; do
    size="$(sed -n 's/^size *= *\[\([0-9, ]*\)\].*/\1/p' "$scene" | head -1)"
    cells="$(awk -F, '{p = 1; for (i = 1; i <= NF; i++) p *= $i; print p}' <<<"$size")"
    base=""
    for block in $blocks; do
        a="$(misses "$scene" "$block" "$short")"
        b="$(misses "$scene" "$block" "$long")"
        ran="$(cat "$work/ran.$(basename "$scene" .toml).$block.$long" 2>/dev/null || echo '?')"
        k="$(cat "$work/k.$(basename "$scene" .toml).$block.$long" 2>/dev/null || echo 1)"
        k="${k:-1}"
        if [ $(((long - short) % k)) -ne 0 ]; then
            echo "$(basename "$scene" .toml) --time-block $block took k = $k: $long - $short steps is not a multiple of it, so the row below is not the traffic of $((long - short)) steps" >&2
        fi
        bytes="$(awk -v a="$a" -v b="$b" -v c="$cells" -v n="$((long - short))" -v l="$line" \
            'BEGIN {printf "%.2f", (b - a) * l / n / c}')"
        [ -n "$base" ] || base="$bytes"
        printf '%-24s %-6s %-10s %3s %14s %10s\n' "$(basename "$scene" .toml)" "$block" "$ran" "$k" \
            "$bytes" "$(awk -v x="$bytes" -v y="$base" 'BEGIN {printf "%.2fx", x / y}')"
    done
done
