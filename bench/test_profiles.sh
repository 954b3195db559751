#!/usr/bin/env bash
# The README's `cargo test` built and run under several test profiles, side by side on one
# machine: docs/testing.md's profile table. The dependencies are built once (their profile,
# `[profile.dev.package."*"]`, which the test profile inherits, stays the same); before each
# variant the workspace's own crates are cleaned, so each row is the build of all of them plus
# the whole run.
#
#   bench/test_profiles.sh            every variant below
#   bench/test_profiles.sh 1 3        the first and the third only
#
# Each variant states every opt-level it uses (over whatever Cargo.toml says): the default of
# the workspace's crates, the kernel crates' (core, em, scalar, rayon) and the `yee` app
# crate's, then any other `--config` overrides. Prints a Markdown table: build and run wall
# seconds, and the tests that passed and were ignored (the same in every row, or a variant
# dropped some).
set -euo pipefail
cd "$(dirname "$0")/.."

WORKSPACE=(yee-core yee-em yee-scalar yee-rayon yee-noop yee-cuda yee-comm-shm yee-comm-sim
    yee-io yee-scene yee-runtime yee yee-examples yee-tests)
KERNELS=(yee-core yee-em yee-scalar yee-rayon)
# name|workspace opt-level|kernel crates|yee app crate|other overrides
VARIANTS=(
    "opt-level 3 everywhere|3|3|3|"
    "opt-level 3, the yee app crate at 1|3|3|1|"
    "opt-level 2 everywhere|2|2|2|"
    "opt-level 1 everywhere|1|1|1|"
    "opt-level 1, the kernel crates at 3|1|3|1|"
    "opt-level 3, the yee app crate and yee-tests at 1|3|3|1|--config profile.test.package.yee-tests.opt-level=1"
    "opt-level 3, the yee app crate at 1, codegen-units 4|3|3|1|--config profile.test.codegen-units=4"
    "opt-level 3, the yee app crate at 1, codegen-units 64|3|3|1|--config profile.test.codegen-units=64"
    "opt-level 3, the yee app crate at 1, full debug info|3|3|1|--config profile.test.debug=true"
)
chosen=("$@")
if [ ${#chosen[@]} -eq 0 ]; then
    chosen=($(seq 1 ${#VARIANTS[@]}))
fi

cargo test --no-run --quiet
log="$(mktemp)"
echo "| test profile | build s | run s | total s | passed | ignored |"
echo "| --- | --- | --- | --- | --- | --- |"
for i in "${chosen[@]}"; do
    IFS='|' read -r name level kernels app other <<<"${VARIANTS[$((i - 1))]}"
    overrides=(--config "profile.test.opt-level=$level"
        --config "profile.test.package.yee.opt-level=$app")
    for k in "${KERNELS[@]}"; do
        overrides+=(--config "profile.test.package.$k.opt-level=$kernels")
    done
    # shellcheck disable=SC2206 # the other overrides are words
    overrides+=($other)
    cargo clean --quiet $(printf -- '-p %s ' "${WORKSPACE[@]}") "${overrides[@]}"
    t0=$(date +%s.%N)
    cargo test --no-run --quiet "${overrides[@]}"
    t1=$(date +%s.%N)
    cargo test "${overrides[@]}" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
    t2=$(date +%s.%N)
    awk -v name="$name" -v t0="$t0" -v t1="$t1" -v t2="$t2" '
        /^test result:/ { p += $4; i += $8 }
        END { printf "| %s | %.0f | %.0f | %.0f | %d | %d |\n", name, t1 - t0, t2 - t1, t2 - t0, p, i }
    ' "$log"
done
