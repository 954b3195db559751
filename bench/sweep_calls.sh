#!/usr/bin/env bash
# Fails if the AVX-512 and AVX2 clones of the rayon backend's row sweep call code of the crate
# out of line: such code is compiled for the baseline target (SSE2) only, whatever its caller's
# features (docs/performance.md, "Code the fast path left at SSE2"). Library calls through the
# GOT (allocator, memcpy) are allowed.
#   cargo build --release -p yee && bench/sweep_calls.sh [target/release/yee]
set -euo pipefail
binary="${1:-target/release/yee}"
status=0
for clone in sweep_batch_avx_avx2_avx512bw sweep_batch_avx_avx2_sse; do
    body="$(objdump -d --no-show-raw-insn -C "$binary" \
        | awk -v c="$clone" '$0 ~ "^[0-9a-f]+ <yee_rayon::curl::sweep_batch::" c {p=1; n++; next} /^$/{p=0} p')"
    if [ -z "$body" ]; then
        echo "$binary: no $clone clone of yee_rayon::curl::sweep_batch found" >&2
        exit 2
    fi
    calls="$(grep -E '\scall' <<<"$body" | grep -v '_DYNAMIC' || true)"
    if [ -n "$calls" ]; then
        echo "$clone calls out of line (compiled for the baseline target):" >&2
        sed 's/.*call *[0-9a-f]* //' <<<"$calls" | sort | uniq -c >&2
        status=1
    fi
done
exit "$status"
