//! The `.vti` snapshots read by VTK itself (`vtkXMLImageDataReader` from its Python package,
//! `pip install vtk`): every array equals the `.npy` of the same component bit for bit; the
//! `.pvd` collection (read as XML: VTK's Python package has no reader of it) lists every
//! snapshot in time order. Without VTK for Python the test says so and
//! passes, except under CI (`CI` set), where `.ci/run` installs it and its absence fails.

use std::path::{Path, PathBuf};
use std::process::Command;

fn out_dir(name: &str) -> PathBuf {
    let dir = crate::tmp_dir(module_path!()).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// True when `python3` can import VTK and NumPy ([`yee_tests::external`]).
fn have_vtk() -> bool {
    yee_tests::external::python_runs("import vtk, numpy", "python3 -m pip install vtk numpy")
}

/// Compares every array of every `.vti` in `out` with the `.npy` files of the same step and
/// checks `fields.pvd`; prints the read time of each file.
const CHECK: &str = r#"
import glob, os, re, sys, time
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

out = sys.argv[1]
vtis = sorted(glob.glob(os.path.join(out, "fields_*.vti")))
assert vtis, "no .vti written"
for path in vtis:
    step = re.search(r"fields_(\d+)\.vti", path).group(1)
    t = time.perf_counter()
    reader = vtk.vtkXMLImageDataReader()
    reader.SetFileName(path)
    reader.Update()
    image = reader.GetOutput()
    seconds = time.perf_counter() - t
    dims = image.GetDimensions()
    cells = image.GetCellData()
    assert cells.GetNumberOfArrays() > 0, path
    for i in range(cells.GetNumberOfArrays()):
        name = cells.GetArrayName(i)
        values = vtk_to_numpy(cells.GetArray(i))
        # A field's .npy is per step; the geometry's, written once, has the bare name.
        npy = os.path.join(out, f"{name}_{step}.npy")
        if not os.path.exists(npy):
            npy = os.path.join(out, f"{name}.npy")
        expected = np.load(npy)
        # .npy is (z, y, x) over the active axes, VTK's cell order is x fastest: the same order.
        assert values.dtype == expected.dtype, (name, values.dtype, expected.dtype)
        assert np.array_equal(values, expected.reshape(-1)), name
    print(f"{os.path.basename(path)}: {cells.GetNumberOfArrays()} arrays {dims} read in {seconds:.4f} s, {os.path.getsize(path)} bytes")
# VTK's Python package has no .pvd reader (ParaView's is vtkPVDReader): an XML parser reads
# the collection, whose every file VTK has read above.
import xml.etree.ElementTree as ET
root = ET.parse(os.path.join(out, "fields.pvd")).getroot()
assert root.get("type") == "Collection", root.attrib
sets = list(root.iter("DataSet"))
listed = [d.get("file") for d in sets]
assert listed == [os.path.basename(v) for v in vtis], (listed, vtis)
times = [float(d.get("timestep")) for d in sets]
assert times == sorted(times) and len(set(times)) == len(times), times
print("pvd ok:", len(listed), "datasets")
"#;

fn check_with_vtk(out: &Path) -> String {
    yee_tests::external::python_check(CHECK, &[out.as_os_str()], "VTK's reader")
}

fn yee_run(scene: &Path, out: &Path, extra: &[&str]) {
    let status = Command::new(env!("CARGO_BIN_EXE_yee"))
        .args(["run", scene.to_str().unwrap(), "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn vtk_reads_every_snapshot_as_the_npy_holds_it() {
    if !have_vtk() {
        return;
    }
    // f64, six components, CPML, snapshots every 5 steps and at the end.
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/mpi3d.toml");
    let dir = out_dir("mpi3d");
    let text = std::fs::read_to_string(&scene)
        .unwrap()
        .replace("[output.snapshots]", "[output.snapshots]\nevery = 5");
    let copy = dir.join("mpi3d.toml");
    std::fs::write(&copy, text).unwrap();
    let out = dir.join("out");
    yee_run(&copy, &out, &["--steps", "12"]);
    let report = check_with_vtk(&out);
    assert!(report.contains("pvd ok: 3 datasets"), "{report}");
}

/// The geometry as a reader sees it: ε and material numbers of a box and a disc in a 2D
/// scene, from the `.npy` files (checked against the shapes' bounds by NumPy) and inside a
/// zlib-compressed `.vti` (checked against the `.npy` by [`CHECK`]).
const GEOMETRY: &str = r#"
import os, sys
import numpy as np
out = sys.argv[1]
eps = np.load(os.path.join(out, "eps.npy"))
material = np.load(os.path.join(out, "material.npy"))
sigma = np.load(os.path.join(out, "sigma.npy"))
assert eps.shape == (30, 40), eps.shape
y, x = np.mgrid[0:30, 0:40] + 0.5
box = (x > 5) & (x < 15) & (y > 10) & (y < 20)
disc = (x - 28) ** 2 + (y - 15) ** 2 <= 6 ** 2
expected = np.where(disc, 2.25, np.where(box, 4.0, 1.0))
assert np.array_equal(eps, expected), np.argwhere(eps != expected)[:5]
assert np.array_equal(material, np.where(disc, 2, np.where(box, 1, 0)))
assert np.array_equal(sigma, np.where(box & ~disc, 0.01, 0.0))
print("geometry ok")
"#;

#[test]
fn geometry_is_written_once_as_npy_and_in_every_zlib_vti() {
    if !have_vtk() {
        return;
    }
    let dir = out_dir("geometry");
    let scene = dir.join("geometry.toml");
    std::fs::write(
        &scene,
        r#"name = "geometry"
[grid]
mode = "tmz"
size = [40, 30]
[materials.glass]
eps = 4.0
sigma = 0.01
[materials.water]
eps = 2.25
[[geometry]]
shape = "box"
material = "glass"
lo = [5, 10]
hi = [15, 20]
[[geometry]]
shape = "cylinder"
material = "water"
center = [28, 15]
radius = 6
[[sources]]
component = "ez"
position = [20, 5]
waveform = "ricker"
frequency = 0.1
[output.snapshots]
components = ["ez", "eps", "material", "sigma"]
every = 4
compression = "zlib"
[run]
steps = 8
"#,
    )
    .unwrap();
    let out = dir.join("out");
    yee_run(&scene, &out, &[]);
    let report = check_with_vtk(&out);
    assert!(report.contains("fields_000008.vti: 4 arrays"), "{report}");
    assert!(report.contains("pvd ok: 2 datasets"), "{report}");
    yee_tests::external::python_check(
        GEOMETRY,
        &[out.as_os_str()],
        "NumPy's reading of the geometry",
    );
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let outputs: Vec<&str> = run["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    assert_eq!(
        run["materials"],
        serde_json::json!(["vacuum", "glass", "water"])
    );
    for file in ["eps.npy", "material.npy", "sigma.npy", "fields.pvd"] {
        assert_eq!(outputs.iter().filter(|&&f| f == file).count(), 1, "{file}");
    }
}

#[test]
fn a_96_cubed_f32_snapshot_is_its_raw_size_and_vtk_reads_it() {
    let dir = out_dir("cube96");
    let scene = dir.join("cube96.toml");
    std::fs::write(
        &scene,
        r#"name = "cube96"
[grid]
mode = "3d"
size = [96, 96, 96]
value_type = "f32"
[[sources]]
component = "ez"
position = [48, 48, 48]
waveform = "ricker"
frequency = 0.1
delay = 0
[output.snapshots]
components = ["ex", "ey", "ez"]
[run]
steps = 3
"#,
    )
    .unwrap();
    let out = dir.join("out");
    yee_run(&scene, &out, &[]);
    let raw = 3 * 96usize.pow(3) * 4;
    let size = std::fs::metadata(out.join("fields_000003.vti"))
        .unwrap()
        .len() as usize;
    assert!(
        size as f64 <= 1.1 * raw as f64,
        "a .vti of {raw} bytes of values takes {size}"
    );
    if have_vtk() {
        let report = check_with_vtk(&out);
        eprintln!("{report}");
    }
}
