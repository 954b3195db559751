#!/bin/bash
# Runs every example scene for 24 steps with the yee binary $1 into the folder $2 (absolute
# paths; the
# normalisation runs first, into out/, which the others' `minus` keys name). Hash the outputs of
# two builds to compare them:
#   bench/example_output_hashes.sh OLD/yee /tmp/h_old; bench/example_output_hashes.sh NEW/yee /tmp/h_new
#   (cd /tmp/h_old && find . -name '*.npy' -o -name '*.csv' -o -name '*.vti' -o -name '*.pvd' | sort | xargs sha256sum) > old.sum
#   (same for /tmp/h_new), then diff the two sums.
set -e
cd "$(dirname "$0")/.."
for s in slab_spectrum_incident waveguide_bend_incident; do
  $1 run examples/scenes/$s.toml --quiet --steps 24 --out out/$s > /dev/null 2>&1 || echo "fail $s"
  mkdir -p $2; rm -rf $2/$s; cp -r out/$s $2/$s
done
for f in examples/scenes/*.toml; do
  s=$(basename $f .toml)
  case $s in *_incident) continue;; esac
  $1 run $f --quiet --steps 24 --out $2/$s > /dev/null 2>&1 || echo "fail $s"
done
