//! `fields.h5` read by h5py (its own HDF5 library, not the one yee links): every field dataset
//! equals the `.npy` of its component and step bit for bit, with its dtype; the attributes say
//! the spacing, time step, units and each component's Yee offset; the probe and flux tables
//! hold their CSVs' numbers; a resumed run writes on into the file. Without h5py the test
//! says so and passes, except under CI (`CI` set), where `.ci/run` installs it.
#![cfg(feature = "hdf5")]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hdf5")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// True when `python3` can import h5py and NumPy ([`yee_tests::external`]).
fn have_h5py() -> bool {
    yee_tests::external::python_runs("import h5py, numpy", "python3 -m pip install h5py numpy")
}

/// Checks `fields.h5` in `argv[1]` against the `.npy`, probe and flux files beside it and
/// run.json; `argv[2]` is the spacing the file must state. Prints what it compared.
const CHECK: &str = r#"
import glob, json, os, re, sys
import numpy as np
import h5py

out, spacing = sys.argv[1], float(sys.argv[2])
run = json.load(open(os.path.join(out, "run.json")))
assert run["outputs"].count("fields.h5") == 1, run["outputs"]
assert run["outputs"].count("fields.xmf") == (run["dims"] > 1 and run["value_type"][0] == "f"), run["outputs"]
f = h5py.File(os.path.join(out, "fields.h5"), "r")
assert f.attrs["spacing"] == spacing, f.attrs["spacing"]
assert f.attrs["time_step"] == run["dt_scene"], (f.attrs["time_step"], run["dt_scene"])
assert f.attrs["courant"] == run["courant"]
assert f.attrs["units"] == run["units"], f.attrs["units"]
assert list(f.attrs["grid"]) == run["grid"], f.attrs["grid"]
assert f.attrs["scene"] == run["scene"]
assert f.attrs["axes"] == "zyx"[3 - run["dims"]:]
# Yee 1966: E_a half a cell along a, H_a half a cell along the two other axes (x, y, z).
offsets = {"ex": (0.5, 0, 0), "ey": (0, 0.5, 0), "ez": (0, 0, 0.5),
           "hx": (0, 0.5, 0.5), "hy": (0.5, 0, 0.5), "hz": (0.5, 0.5, 0)}
expected = {}
for path in glob.glob(os.path.join(out, "*.npy")):
    m = re.fullmatch(r"(ex|ey|ez|hx|hy|hz)_(\d{6})\.npy", os.path.basename(path))
    if m:
        expected[(m.group(1), m.group(2))] = np.load(path)
found = {(c, s) for c in f["fields"] for s in f["fields"][c]}
assert found == set(expected), (sorted(found), sorted(expected))
for (c, s), npy in sorted(expected.items()):
    group = f["fields"][c]
    assert tuple(group.attrs["yee_offset"]) == offsets[c], (c, group.attrs["yee_offset"])
    ds = group[s]
    values = ds[()]
    assert values.dtype == npy.dtype, (c, s, values.dtype, npy.dtype)
    assert values.shape == npy.shape, (c, s, values.shape, npy.shape)
    assert np.array_equal(values, npy) and values.tobytes() == npy.tobytes(), (c, s)
    step = int(s)
    assert ds.attrs["step"] == step
    t = (step - (0 if c[0] == "e" else 0.5)) * run["dt_scene"]
    assert np.isclose(ds.attrs["time"], t, rtol=1e-12, atol=0), (c, s, ds.attrs["time"], t)
def table(name, csv):
    ds = f[name]
    with open(os.path.join(out, csv)) as text:
        header = text.readline().strip()
    rows = np.loadtxt(os.path.join(out, csv), delimiter=",", skiprows=1, ndmin=2)
    assert ds.attrs["columns"] == header, (name, ds.attrs["columns"], header)
    assert ds.dtype == np.float64 and np.array_equal(ds[()], rows), name
for p in run["probes"]:
    table("probes/" + p["name"], p["file"])
for flux in run["fluxes"]:
    table("flux/" + flux["name"], flux["csv"])
steps = sorted({s for _, s in expected})
print(f"h5py ok: {len(expected)} datasets, steps {' '.join(steps)}, {len(run['probes'])} probes, {len(run['fluxes'])} fluxes")
"#;

fn check_with_h5py(out: &Path, spacing: f64) -> String {
    let spacing = spacing.to_string();
    yee_tests::external::python_check(CHECK, &[out.as_os_str(), spacing.as_ref()], "h5py")
}

/// Reads `fields.xmf` in `argv[1]` with VTK's XDMF reader (ParaView's): at every time step
/// each cell array equals the `.npy` of its component and step.
const CHECK_XDMF: &str = r#"
import glob, os, re, sys
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

out = sys.argv[1]
steps = sorted({re.search(r"_(\d{6})\.npy$", p).group(1)
                for p in glob.glob(os.path.join(out, "*_*.npy"))
                if re.fullmatch(r"(ex|ey|ez|hx|hy|hz)_\d{6}\.npy", os.path.basename(p))})
reader = vtk.vtkXdmfReader()
reader.SetFileName(os.path.join(out, "fields.xmf"))
reader.UpdateInformation()
info = reader.GetOutputInformation(0)
times = info.Get(vtk.vtkStreamingDemandDrivenPipeline.TIME_STEPS())
assert times is not None and len(times) == len(steps), (times, steps)
arrays = 0
for t, step in zip(times, steps):
    reader.UpdateTimeStep(t)
    grid = reader.GetOutputDataObject(0)
    cells = grid.GetCellData()
    assert cells.GetNumberOfArrays() > 0, step
    for i in range(cells.GetNumberOfArrays()):
        name = cells.GetArrayName(i)
        values = vtk_to_numpy(cells.GetArray(i))
        expected = np.load(os.path.join(out, f"{name}_{step}.npy"))
        assert values.dtype == expected.dtype, (name, step, values.dtype, expected.dtype)
        assert np.array_equal(values, expected.reshape(-1)), (name, step)
        arrays += 1
print(f"xdmf ok: {len(times)} steps, {arrays} arrays")
"#;

/// True when `python3` can import VTK (whose XDMF reader is ParaView's).
fn have_vtk() -> bool {
    yee_tests::external::python_runs(
        "import vtk; vtk.vtkXdmfReader",
        "python3 -m pip install vtk",
    )
}

fn check_xdmf(out: &Path) -> String {
    yee_tests::external::python_check(CHECK_XDMF, &[out.as_os_str()], "VTK's XDMF reader")
}

fn yee_run(scene: &Path, out: &Path, extra: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", scene.to_str().unwrap(), "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap()
}

/// The MPI acceptance scene (f64, 3D, CPML, two probes, a flux box) with npy and HDF5
/// snapshots every 5 steps.
fn mpi3d(dir: &Path) -> PathBuf {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/mpi3d.toml");
    let text = std::fs::read_to_string(&scene).unwrap().replace(
        "[output.snapshots]",
        "[output.snapshots]\nevery = 5\nformats = [\"npy\", \"hdf5\"]",
    );
    let copy = dir.join("mpi3d.toml");
    std::fs::write(&copy, text).unwrap();
    copy
}

#[test]
fn h5py_reads_every_snapshot_probe_and_spectrum_as_the_other_files_hold_them() {
    let dir = out_dir("mpi3d");
    let scene = mpi3d(&dir);
    let out = dir.join("out");
    yee_run(&scene, &out, &["--steps", "12", "--ranks", "2"]);
    if have_h5py() {
        let report = check_with_h5py(&out, 1.0);
        assert!(
            report.contains("h5py ok: 18 datasets, steps 000005 000010 000012, 2 probes, 1 fluxes"),
            "{report}"
        );
    }
    if have_vtk() {
        let report = check_xdmf(&out);
        assert!(report.contains("xdmf ok: 3 steps, 18 arrays"), "{report}");
    }
}

#[test]
fn complex_si_fields_are_h5py_complex_with_the_cell_size_as_spacing() {
    let dir = out_dir("c32");
    let scene = dir.join("c32.toml");
    std::fs::write(
        &scene,
        r#"name = "c32"
[units]
system = "si"
cell_size = 0.005
[grid]
mode = "tmz"
size = [30, 20]
value_type = "c32"
[[sources]]
component = "ez"
position = [0.05, 0.05]
waveform = "ricker"
frequency = 3e9
delay = 0
[[probes]]
name = "e"
component = "ez"
position = [0.08, 0.06]
[[probes]]
name = "h"
component = "hy"
position = [0.08, 0.06]
[output.snapshots]
components = ["ez", "hx", "hy"]
every = 4
formats = ["hdf5", "npy"]
[run]
steps = 10
"#,
    )
    .unwrap();
    let out = dir.join("out");
    yee_run(&scene, &out, &[]);
    if have_h5py() {
        let report = check_with_h5py(&out, 0.005);
        assert!(
            report.contains("h5py ok: 9 datasets, steps 000004 000008 000010, 2 probes"),
            "{report}"
        );
    }
    // XDMF has no complex numbers: no index.
    assert!(!out.join("fields.xmf").exists());
}

#[test]
fn a_resumed_run_writes_on_into_its_fields_h5() {
    let dir = out_dir("resume");
    let scene = mpi3d(&dir);
    let straight = dir.join("straight");
    yee_run(&scene, &straight, &["--steps", "30"]);
    // Checkpoints at 20 steps; resuming the finished folder from there rewrites steps 25
    // and 30 and keeps the earlier ones.
    let cut = dir.join("cut");
    yee_run(&scene, &cut, &["--steps", "30", "--checkpoint-every", "20"]);
    let output = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", scene.to_str().unwrap(), "--quiet", "--steps", "30"])
        .arg("--resume")
        .arg(&cut)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(cut.join("run.json")).unwrap()).unwrap();
    assert_eq!(report["resumed_from"]["step"], 20);
    if have_h5py() {
        // The resumed folder's file against its own .npy files, and those against the
        // straight run's.
        let report = check_with_h5py(&cut, 1.0);
        assert!(
            report
                .contains("h5py ok: 36 datasets, steps 000005 000010 000015 000020 000025 000030"),
            "{report}"
        );
        if have_vtk() {
            let report = check_xdmf(&cut);
            assert!(report.contains("xdmf ok: 6 steps, 36 arrays"), "{report}");
        }
        for entry in std::fs::read_dir(&straight).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "npy") {
                let name = path.file_name().unwrap();
                assert!(
                    std::fs::read(&path).unwrap() == std::fs::read(cut.join(name)).unwrap(),
                    "{}",
                    name.to_string_lossy()
                );
            }
        }
    }
}
