#!/usr/bin/env bash
# bench/many_core_check.sh YEE PARTITION_SCALE [THREADS]: the figures of issues 45 and 53 that
# need a many-core host (the lent GPU machine's 16 cores; nothing is compiled there). Carry two
# release binaries built elsewhere:
#   cargo build --release -p yee && cargo build --release -p yee-partition-compare --bin partition_scale
# and run, in the repository root, `bench/many_core_check.sh target/release/yee
# target/release/partition_scale 16` (the steps' timeouts add up to 580 s, under the device
# tool's 600 s a command; what finished is printed as it finishes). THREADS defaults to every core.
# `SECTIONS="1 3"` runs only sections 1 and 3 ("1 2 3" by default; "1v" is section 1's vacuum
# rows alone, "1s" its scenes alone), in this order: bench/device_window.sh runs them a few at a
# time between its GPU sections.
# Prints:
#   1. issue 45, temporal blocking where memory binds: `yee bench --time-block auto` at 256³
#      on THREADS threads (vacuum, then CPML and the sphere), each row's rate over the
#      one-step rate of the same run (goal ≥ 2 in f32) and over the one-step roofline (goal
#      ≥ 1.5 in f32), medians over 3 rounds for vacuum and over one round (5 runs a row) for
#      the scenes;
#   2. issue 45, one-step realistic scenes on one thread, blocking off: each scene's roofline
#      fraction over vacuum's in the same `yee bench` run, one round of 5 runs a row (goal
#      ≥ 0.9; the same command with `--rounds 2` took 172 s on the 2-core machine), which a
#      quiet host measures better than a shared 2-core one;
#   3. issue 53, RCDC at scale: a 662³ spherical shell at tile 8 (about 10⁸ active cells)
#      into 4096 parts (goal ≤ 10 s on 16 threads) and the 256³ shell at tile 1 into 64 parts
#      (goal ≤ 60 s and ≤ 1 GB), on THREADS threads, with each thread's CPU seconds and the
#      peak resident memory (`/usr/bin/time -v`);
#   4. issue 45, where the tiles pay on THREADS threads: `yee run` of the vacuum cube at 256³
#      f32 (bench/scenes/vacuum256.toml, 64 steps), one rank one step at a time and in tiles of
#      k = 2, 4, 8 and auto (auto also sized for a 32 MiB and an 8 MiB cache, `--cache-bytes`:
#      a VM's share of a cache other tenants use is less than the OS reports, and for the
#      cache measured, `--cache-bytes measure`, its knee in the row), then shm ranks sharing the threads (each rank its own arrays,
#      tiles and ghost zones k deep: `--topology` 1x2x1, 1x2x2, 1x4x4 and 2x2x4, auto and k =
#      4, and one step at a time), and one thread alone one step at a time and in `auto`
#      tiles, two rounds alternated config by config; each row's
#      `mcells_per_s` (owned cells) over the one-rank one-step rate of its round.
# docs/performance.md ("Temporal blocking") and docs/partitioning.md ("At scale") say what
# each figure was on the 2-core machine. `QUICK=1` checks the script itself on any machine in a
# minute or two (42–80 s on the 2-core machine): `yee bench --quick` (smoke rates, not measurements) on the
# bench's 100³ problems, and small shells.
set -u
YEE=$(realpath "${1:-target/release/yee}")
PARTITION_SCALE=$(realpath "${2:-target/release/partition_scale}")
THREADS=${3:-$(nproc)}
SECTIONS=${SECTIONS:-1 2 3 4}
# Whether SECTIONS names $1 (or its whole section: "1" for "1v").
wants() { [[ " $SECTIONS " == *" $1 "* || " $SECTIONS " == *" ${1:0:1} "* ]]; }
cd "$(dirname "$0")/.."
QUICK_FLAG=()
SHELLS=("662 8 4096" "256 1 64")
SIDE=256
CUBE=bench/scenes/vacuum256.toml
CUBE_STEPS=64
if [ -n "${QUICK:-}" ]; then
    # The bench's 100³ problems: its 256³ scenes' set-up alone outgrows the steps' timeouts
    # on a 2-core machine.
    QUICK_FLAG=(--quick)
    SHELLS=("96 8 64" "48 1 8")
    SIDE=100
    CUBE=bench/scenes/vacuum128.toml
    CUBE_STEPS=8
fi
echo "many-core-check: $(date -u +%Y-%m-%dT%H:%MZ), host $(nproc) cores, $(free -g | awk '/Mem:/ { print $2 }') GiB, $THREADS threads"
echo "many-core-check: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

# The rows of `yee bench --json` (stdin) as a table: the problem, value type, backend, time
# block, threads, Mcells/s, fraction of the roofline, and the blocked rows' two ratios.
table() {
    python3 -c '
import json, sys
text = sys.stdin.read()
if not text.strip():
    sys.exit("(no rows: the step timed out or failed)")
rows = json.loads(text)
print("| problem | value | backend | time block | threads | Mcells/s | of roofline | over one step | over one-step roofline |")
print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    tb = r.get("time_block", "off")
    ratios = ("%.2f" % r["one_step_ratio"], "%.2f" % r["one_step_roofline_ratio"]) if tb != "off" else ("", "")
    print("| %s | %s | %s | %s | %d | %.0f | %.2f | %s | %s |" % (r["problem"], r["value_type"], r["backend"], tb,
          r["threads"], r["mcells_per_s"], r["fraction_of_roofline"], ratios[0], ratios[1]))
'
}

# Each section runs when SECTIONS names it (bodies left unindented: they hold Python text).
if wants 1v || wants 1s; then
echo
echo "1. issue 45: temporal blocking at ${SIDE}³ on $THREADS threads (goal: f32 ≥ 2 over one step, ≥ 1.5 over the one-step roofline)"
wants 1v && timeout 100 "$YEE" bench --threads "$THREADS" --time-block auto --only "3D ${SIDE}^3" \
    --no-scalar --rounds 3 --json "${QUICK_FLAG[@]}" 2>/dev/null | table
wants 1s && timeout 170 "$YEE" bench --threads "$THREADS" --time-block auto --scenes --only "${SIDE}^3" \
    --no-scalar --rounds 1 --json "${QUICK_FLAG[@]}" 2>/dev/null | python3 -c '
import json, sys
text = sys.stdin.read()
rows = [r for r in json.loads(text) if not r["problem"].startswith("vacuum")] if text.strip() else None
sys.stdout.write(json.dumps(rows) if rows is not None else "")' | table

fi

if wants 2; then
echo
echo "2. issue 45: one-step realistic scenes on one thread, fraction over vacuum's (goal ≥ 0.9)"
timeout 150 "$YEE" bench --threads 1 --scenes --only "$SIDE" --no-scalar --rounds 1 --json "${QUICK_FLAG[@]}" 2>/dev/null |
    python3 -c '
import json, sys
text = sys.stdin.read()
if not text.strip():
    sys.exit("(no rows: the step timed out or failed)")
rows = json.loads(text)
print("| problem | value | Mcells/s | of roofline | over vacuum |")
print("| --- | --- | ---: | ---: | ---: |")
for vt in ("f32", "f64"):
    mine = [r for r in rows if r["value_type"] == vt]
    vacuum = [r for r in mine if r["problem"].startswith("vacuum")]
    for r in mine:
        over = r["fraction_of_roofline"] / vacuum[0]["fraction_of_roofline"] if vacuum else float("nan")
        print("| %s | %s | %.0f | %.2f | %.2f |" % (r["problem"], vt, r["mcells_per_s"], r["fraction_of_roofline"], over))
'

fi

if wants 3; then
echo
echo "3. issue 53: RCDC on $THREADS threads (goals: 662³ tile 8 ≤ 10 s; 256³ tile 1 ≤ 60 s and ≤ 1 GB)"
for args in "${SHELLS[@]}"; do
    limit=90
    [ "$args" = "662 8 4096" ] && limit=70
    # The peak resident memory from GNU time where the host has it (partition_scale prints
    # its own times either way).
    measure=(/usr/bin/time -f "peak RSS %M KiB, %e s wall, %U + %S s CPU")
    [ -x /usr/bin/time ] || { measure=(); echo "(no /usr/bin/time here: no peak RSS)"; }
    # shellcheck disable=SC2086
    timeout $limit "${measure[@]}" "$PARTITION_SCALE" $args "$THREADS" 2>&1 | grep -v "^Command"
done
fi

if wants 4; then
echo
echo "4. issue 45: tiles and ranks on $THREADS threads, $CUBE, $CUBE_STEPS steps (rate over one rank's one step of the same round)"
# A config's first word is the --time-block, the rest `yee run` arguments; "t1" before it runs
# that config on one thread (the per-core rate the many-thread rows are worth).
CONFIGS=("off" "2" "4" "8" "auto" "auto --cache-bytes 32M" "auto --cache-bytes 8M" "auto --cache-bytes measure" "t1 off" "t1 auto"
    "auto --topology 1x2x1" "auto --topology 1x2x2" "4 --topology 1x2x2"
    "auto --topology 1x4x4" "4 --topology 1x4x4" "4 --topology 2x2x4" "off --topology 2x2x4")
WORK=$(mktemp -d)
for round in 1 2; do
    for i in "${!CONFIGS[@]}"; do
        # shellcheck disable=SC2086
        set -- ${CONFIGS[$i]}
        threads=$THREADS
        [ "$1" = t1 ] && { threads=1; shift; }
        block=$1
        shift
        RAYON_NUM_THREADS=$threads timeout 60 "$YEE" run "$CUBE" --steps "$CUBE_STEPS" --time-block "$block" "$@" \
            --quiet --out "$WORK/r$round.$i" >/dev/null 2>&1 || echo "(config '${CONFIGS[$i]}' failed or timed out)"
    done
done
python3 - "$WORK" "${CONFIGS[@]}" <<'PY'
import json, os, sys
work, configs = sys.argv[1], sys.argv[2:]
def row(r, i):
    path = os.path.join(work, "r%d.%d" % (r, i), "run.json")
    return json.load(open(path)) if os.path.exists(path) else None
print("| --time-block, ranks | ran, k, exchange every, cache MiB (from) | Mcells/s (rounds) | over one rank's one step |")
print("| --- | --- | ---: | ---: |")
mib = lambda b: "%.1f" % (b / 2**20) if b else "-"
for i, c in enumerate(configs):
    runs = [row(r, i) for r in (1, 2)]
    base = [row(r, 0) for r in (1, 2)]
    rates = ["%.0f" % d["mcells_per_s"] if d else "-" for d in runs]
    over = ["%.2f" % (d["mcells_per_s"] / b["mcells_per_s"]) if d and b else "-" for d, b in zip(runs, base)]
    tb = next((d["time_block"] for d in runs if d), None)
    ran = "%s, k %s, %s, %s (%s)" % (tb["ran"], tb["k"], tb["exchange_every"], mib(tb.get("cache_bytes")), tb.get("cache_from")) if tb else "-"
    probe = tb.get("cache_probe") if tb else None
    if probe:
        ran += ", knee %s MiB in %.2f s" % (mib(probe["knee_bytes"]), probe["seconds"])
    print("| %s | %s | %s | %s |" % (c, ran, ", ".join(rates), ", ".join(over)))
PY
rm -rf "$WORK"
fi
