#!/usr/bin/env bash
# The memory estimate `yee check` prints against the peak resident set `yee run` reports
# (run.json's peak_rss_bytes), for every example scene stepped 40 times (2400 with a resonances
# block; the peak does not grow with the step count). Usage: bench/memory_estimate_examples.sh [YEE_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
B="${1:-target/debug/yee}"
OUT="$(mktemp -d)"
# Normalisation runs first, into the folder their partner's `minus` names.
for s in examples/scenes/*_incident.toml examples/scenes/*.toml; do
    n=$(basename "$s" .toml)
    [ -e "$OUT/$n.done" ] && continue
    case $n in *_incident) o=out/$n ;; *) o=$OUT/$n ;; esac
    rm -rf "$o"
    e=$("$B" check "$s" | awk '/^memory/ { v = $3; u = $4 } END {
        m = (u == "GiB") ? 1024 : (u == "KiB") ? 1 / 1024 : 1; print v * m }')
    # A `[[resonances]]` block needs samples after its `after` (the ring's: step 2000).
    steps=40
    grep -q '^\[\[resonances\]\]' "$s" && steps=2400
    "$B" run --quiet --steps "$steps" --out "$o" "$s" >/dev/null
    # A scan's top-level run.json lists its traces; the first trace's holds its peak (the
    # traces run one after another in this process, so the process peak is in the last).
    report="$o/run.json"
    [ -d "$o/trace_000" ] && report="$(ls -d "$o"/trace_* | tail -1)/run.json"
    p=$(grep -o '"peak_rss_bytes": [0-9]*' "$report" | awk '{ print $2 / 1048576 }')
    awk -v n="$n" -v e="$e" -v p="$p" \
        'BEGIN { printf "%-24s estimate %7.1f MiB  peak %7.1f MiB  %+5.1f %%\n", n, e, p, (e - p) / p * 100 }'
    touch "$OUT/$n.done"
done
