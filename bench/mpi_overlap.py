#!/usr/bin/env python3
"""Two MPI processes against one on bench/scenes/vacuum160.toml (3D 160^3, f32), with the halo
exchange overlapped with the interior update and after the whole update, beside Kim & Park's
model (2012, eqs. (1)-(10)) calibrated on this machine by `yee mpi-calibrate`.

Each round runs, back to back: one process on the whole grid; two processes overlapped; two
processes without overlap; and two independent one-process runs of half the grid at the same
time (the no-communication limit of a machine whose processes share the memory bus). The
medians over the rounds are printed. One rayon thread per process. Needs an MPI build:
    cargo build --release -p yee --features mpi && python3 bench/mpi_overlap.py [ROUNDS] [STEPS]
Run it on a quiet machine: a build beside it halves the figures.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
YEE = os.path.join(ROOT, "target", "release", "yee")
SCENE = os.path.join(ROOT, "bench", "scenes", "vacuum160.toml")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2"]
ENV = dict(os.environ, RAYON_NUM_THREADS="1")


def rate(out):
    with open(os.path.join(out, "run.json")) as f:
        return json.load(f)["mcells_per_s"]


def run(prefix, scene, out, steps, extra=()):
    cmd = prefix + [YEE, "run", scene, "--quiet", "--steps", str(steps), "--out", out, *extra]
    subprocess.run(cmd, check=True, env=ENV)
    return rate(out)


def concurrent_halves(half, tmp, steps):
    """Two one-process runs of half the grid at once: their summed rate."""
    procs = []
    for i in range(2):
        out = os.path.join(tmp, f"half{i}")
        cmd = [YEE, "run", half, "--quiet", "--comm", "shm", "--ranks", "1", "--steps", str(steps), "--out", out]
        procs.append((subprocess.Popen(cmd, env=ENV), out))
    for p, _ in procs:
        if p.wait() != 0:
            sys.exit("a half-grid run failed")
    return sum(rate(out) for _, out in procs)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    if not os.path.exists(YEE):
        sys.exit("build yee first: cargo build --release -p yee --features mpi")
    with open(SCENE) as f:
        text = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        half = os.path.join(tmp, "half.toml")
        with open(half, "w") as f:
            f.write(text.replace("size = [160, 160, 160]", "size = [160, 160, 80]").replace("[80, 80, 80]", "[80, 80, 40]"))
        rows = {"1 process": [], "2 processes, overlapped": [], "2 processes, exchange after update": [], "2 x half grid, no communication": []}
        for _ in range(rounds):
            rows["1 process"].append(run([], SCENE, os.path.join(tmp, "one"), steps, ["--comm", "shm", "--ranks", "1"]))
            rows["2 processes, overlapped"].append(run(MPIRUN, SCENE, os.path.join(tmp, "ov"), steps))
            rows["2 processes, exchange after update"].append(run(MPIRUN, SCENE, os.path.join(tmp, "seq"), steps, ["--no-overlap"]))
            rows["2 x half grid, no communication"].append(concurrent_halves(half, tmp, steps))
    med = {k: statistics.median(v) for k, v in rows.items()}
    one = med["1 process"]
    model = json.loads(subprocess.run(
        MPIRUN + [YEE, "mpi-calibrate", "--grid", "160x160x160", "--nbyte", "4", "--mcells-per-s", f"{one}", "--json"],
        check=True, capture_output=True, text=True, env=ENV).stdout)
    print(f"3D 160^3 f32, {steps} steps, medians of {rounds} rounds (Mcells/s; % of 2 x one process)")
    for k, v in med.items():
        runs = ", ".join(f"{x:.1f}" for x in rows[k])
        print(f"  {k:<38} {v:8.1f}  {100 * v / (2 * one):5.1f} %   [{runs}]")
    print(f"  {'model: overlapped (eq. (9))':<38} {model['predicted_overlap_mcells_per_s']:8.1f}  "
          f"{100 * model['predicted_overlap_mcells_per_s'] / (2 * one):5.1f} %")
    print(f"  {'model: exchange after update':<38} {model['predicted_sequential_mcells_per_s']:8.1f}  "
          f"{100 * model['predicted_sequential_mcells_per_s'] / (2 * one):5.1f} %")
    limit = med["2 x half grid, no communication"]
    print(f"calibration: LT_mpi {model['lt_mpi'] * 1e6:.2f} us, BW_mpi {model['bw_mpi'] / 1e9:.2f} GB/s, "
          f"LT_memcpy {model['lt_memcpy'] * 1e6:.2f} us, BW_memcpy {model['bw_memcpy'] / 1e9:.2f} GB/s, "
          f"R = {model['r']:.1f}, R0 = {model['r0']:.2f}")
    print(f"overlapped / no-communication limit: {100 * med['2 processes, overlapped'] / limit:.1f} %; "
          f"exchange after update / limit: {100 * med['2 processes, exchange after update'] / limit:.1f} %")


if __name__ == "__main__":
    main()
