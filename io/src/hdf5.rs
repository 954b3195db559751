//! HDF5 output (feature `hdf5`): one file per run holding every field snapshot as a dataset per
//! component and step (`/fields/<component>/<step:06>`), the probe series and flux spectra as
//! tables (`/probes/<name>`, `/flux/<name>`), and the attributes a reader needs to place them.
//!
//! Field datasets have the `.npy` files' shape and element type (complex as h5py's compound
//! `{r, i}`); a table is a float64 array of rows whose `columns` attribute is its CSV's header.

use std::io;
use std::path::Path;

use h5::types::VarLenUnicode;
use hdf5_metno as h5;
use num_complex::Complex;
use yee_core::{Real, Scalar};

/// The run as the file's root attributes describe it.
#[derive(Clone, Debug)]
pub struct RunAttributes<'a> {
    /// The scene's name.
    pub scene: &'a str,
    /// "si" or "normalised".
    pub units: &'a str,
    /// The cell size (metres in SI scenes, 1 normalised).
    pub spacing: f64,
    /// Δt in scene units.
    pub time_step: f64,
    /// The Courant number.
    pub courant: f64,
    /// Cells along x, y, z.
    pub grid: [usize; 3],
    /// The mode: "1d", "tmz", "tez" or "3d".
    pub mode: &'a str,
    /// The axis order of the field datasets, slowest first ("zyx", "yx" or "x").
    pub axes: &'a str,
    /// The yee that wrote the file.
    pub yee_version: &'a str,
}

/// One component's values at one step.
#[derive(Clone, Copy, Debug)]
pub struct Field<'a, T> {
    /// Its name ("ex" … "hz").
    pub component: &'a str,
    /// Its offset from the cell's corner in cells, along x, y, z.
    pub yee_offset: [f64; 3],
    /// The step.
    pub step: u64,
    /// The time its values are of, in scene units.
    pub time: f64,
    /// The dataset's shape (C order).
    pub shape: &'a [usize],
    /// The values, the last axis of `shape` fastest.
    pub values: &'a [T],
}

/// An open output file; every write goes straight to it.
pub struct H5File {
    file: h5::File,
}

fn other(e: h5::Error) -> io::Error {
    io::Error::other(e.to_string())
}

fn text(s: &str) -> h5::Result<VarLenUnicode> {
    s.parse::<VarLenUnicode>()
        .map_err(|e| format!("attribute text `{s}`: {e}").into())
}

fn scalar_attr<T: h5::H5Type>(loc: &h5::Location, name: &str, value: &T) -> h5::Result<()> {
    loc.new_attr::<T>().create(name)?.write_scalar(value)
}

fn array_attr<T: h5::H5Type>(loc: &h5::Location, name: &str, values: &[T]) -> h5::Result<()> {
    loc.new_attr::<T>()
        .shape(values.len())
        .create(name)?
        .write_raw(values)
}

/// The values' little-endian bytes read back as `N`-byte reals (two per complex value).
fn reals<T: Scalar, R, const N: usize>(values: &[T], from: fn([u8; N]) -> R) -> Vec<R> {
    let mut bytes = vec![0u8; T::BYTES];
    let mut out = Vec::with_capacity(values.len() * T::BYTES / N);
    for &v in values {
        v.write_le(&mut bytes);
        out.extend(
            bytes
                .chunks_exact(N)
                .map(|c| from(core::array::from_fn(|i| c[i]))),
        );
    }
    out
}

fn complexes<R: Copy>(parts: Vec<R>) -> Vec<Complex<R>> {
    parts
        .chunks_exact(2)
        .map(|p| Complex::new(p[0], p[1]))
        .collect()
}

fn write_dataset<E: h5::H5Type>(
    group: &h5::Group,
    name: &str,
    shape: &[usize],
    values: &[E],
) -> h5::Result<h5::Dataset> {
    let dataset = group.new_dataset::<E>().shape(shape).create(name)?;
    dataset.write_raw(values)?;
    Ok(dataset)
}

impl H5File {
    /// Creates `path` (truncating it) with the run's root attributes.
    pub fn create(path: &Path, run: &RunAttributes) -> io::Result<H5File> {
        let file = h5::File::create(path).map_err(other)?;
        let root: &h5::Location = &file;
        (|| -> h5::Result<()> {
            scalar_attr(root, "scene", &text(run.scene)?)?;
            scalar_attr(root, "units", &text(run.units)?)?;
            scalar_attr(root, "spacing", &run.spacing)?;
            scalar_attr(root, "time_step", &run.time_step)?;
            scalar_attr(root, "courant", &run.courant)?;
            array_attr(root, "grid", &run.grid.map(|n| n as u64))?;
            scalar_attr(root, "mode", &text(run.mode)?)?;
            scalar_attr(root, "axes", &text(run.axes)?)?;
            scalar_attr(root, "yee_version", &text(run.yee_version)?)?;
            Ok(())
        })()
        .map_err(other)?;
        Ok(H5File { file })
    }

    /// Opens an existing `path` to write on into it.
    pub fn open(path: &Path) -> io::Result<H5File> {
        Ok(H5File {
            file: h5::File::open_rw(path).map_err(other)?,
        })
    }

    /// Takes away what a run resumed after `step` writes again: the field datasets of later
    /// steps, the probes and the flux spectra.
    pub fn remove_after(&self, step: u64) -> io::Result<()> {
        (|| -> h5::Result<()> {
            if self.file.link_exists("fields") {
                for group in self.file.group("fields")?.groups()? {
                    for name in group.member_names()? {
                        if name.parse::<u64>().is_ok_and(|s| s > step) {
                            group.unlink(&name)?;
                        }
                    }
                }
            }
            for table in ["probes", "flux"] {
                if self.file.link_exists(table) {
                    self.file.unlink(table)?;
                }
            }
            Ok(())
        })()
        .map_err(other)
    }

    /// Writes `field` as `/fields/<component>/<step:06>` (replacing a dataset of that step),
    /// with attributes `step` and `time`; the component's group has `yee_offset`.
    pub fn write_field<T: Scalar>(&self, field: &Field<T>) -> io::Result<()> {
        let count: usize = field.shape.iter().product();
        if count != field.values.len() {
            return Err(io::Error::other(format!(
                "{} values for a shape {:?}",
                field.values.len(),
                field.shape
            )));
        }
        (|| -> h5::Result<()> {
            let path = format!("fields/{}", field.component);
            let group = if self.file.link_exists(&path) {
                self.file.group(&path)?
            } else {
                let group = self.file.create_group(&path)?;
                array_attr(&group, "yee_offset", &field.yee_offset)?;
                group
            };
            let name = format!("{:06}", field.step);
            if group.link_exists(&name) {
                group.unlink(&name)?;
            }
            let (shape, values) = (field.shape, field.values);
            let dataset = match T::NAME {
                "f32" => write_dataset(&group, &name, shape, &reals(values, f32::from_le_bytes)),
                "f64" => write_dataset(&group, &name, shape, &reals(values, f64::from_le_bytes)),
                "c32" => write_dataset(
                    &group,
                    &name,
                    shape,
                    &complexes(reals(values, f32::from_le_bytes)),
                ),
                _ => write_dataset(
                    &group,
                    &name,
                    shape,
                    &complexes(reals(values, f64::from_le_bytes)),
                ),
            }?;
            scalar_attr(&dataset, "step", &field.step)?;
            scalar_attr(&dataset, "time", &field.time)?;
            Ok(())
        })()
        .map_err(other)
    }

    /// Writes `rows` (row after row, as many values each as `columns` names) as the float64
    /// table `path` (e.g. `probes/p1`), replacing one there; `columns` is its CSV's header.
    pub fn write_table(&self, path: &str, columns: &str, rows: &[f64]) -> io::Result<()> {
        let width = columns.split(',').count();
        if rows.len() % width != 0 {
            return Err(io::Error::other(format!(
                "{} values do not make rows of `{columns}`",
                rows.len()
            )));
        }
        (|| -> h5::Result<()> {
            if self.file.link_exists(path) {
                self.file.unlink(path)?;
            }
            if let Some((parent, _)) = path.rsplit_once('/') {
                if !self.file.link_exists(parent) {
                    self.file.create_group(parent)?;
                }
            }
            let dataset = write_dataset(&self.file, path, &[rows.len() / width, width], rows)?;
            scalar_attr(&dataset, "columns", &text(columns)?)?;
            Ok(())
        })()
        .map_err(other)
    }

    /// The steps of the field datasets in the file, in order, each with its components.
    pub fn snapshots(&self) -> io::Result<Vec<(u64, Vec<String>)>> {
        let mut steps = std::collections::BTreeMap::<u64, Vec<String>>::new();
        (|| -> h5::Result<()> {
            if !self.file.link_exists("fields") {
                return Ok(());
            }
            let fields = self.file.group("fields")?;
            for component in fields.member_names()? {
                for name in fields.group(&component)?.member_names()? {
                    if let Ok(step) = name.parse::<u64>() {
                        steps.entry(step).or_default().push(component.clone());
                    }
                }
            }
            Ok(())
        })()
        .map_err(other)?;
        Ok(steps.into_iter().collect())
    }

    /// Flushes and closes the file.
    pub fn close(self) -> io::Result<()> {
        self.file.flush().map_err(other)?;
        self.file.close().map_err(other)
    }
}

/// A probe's series as the rows of its CSV ([`crate::csv::write_probe`]): its header and
/// `step, time, value` (`step, time, re, im` for complex) per sample.
pub fn probe_rows<T: Scalar>(
    series: &[T],
    time_of: impl Fn(u64) -> f64,
) -> (&'static str, Vec<f64>) {
    let complex = T::NAME.starts_with('c');
    let mut rows = Vec::with_capacity(series.len() * if complex { 4 } else { 3 });
    for (i, v) in series.iter().enumerate() {
        let step = i as u64 + 1;
        rows.extend([step as f64, time_of(step), v.re().to_f64()]);
        if complex {
            rows.push(v.im().to_f64());
        }
    }
    let columns = if complex {
        "step,time,re,im"
    } else {
        "step,time,value"
    };
    (columns, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> RunAttributes<'static> {
        RunAttributes {
            scene: "t",
            units: "normalised",
            spacing: 1.0,
            time_step: 0.5,
            courant: 0.5,
            grid: [3, 2, 1],
            mode: "tmz",
            axes: "yx",
            yee_version: "0",
        }
    }

    fn path(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("yee-io-hdf5-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn fields_and_tables_read_back_with_their_attributes() {
        let p = path("fields.h5");
        let values: Vec<Complex<f32>> = (0..6).map(|i| Complex::new(i as f32, -0.5)).collect();
        let f = H5File::create(&p, &run()).unwrap();
        for step in [1, 2] {
            f.write_field(&Field {
                component: "ez",
                yee_offset: [0.0, 0.0, 0.5],
                step,
                time: step as f64 * 0.5,
                shape: &[2, 3],
                values: &values,
            })
            .unwrap();
        }
        let (columns, rows) = probe_rows(&[1.5f64, 2.5], |s| s as f64 * 0.5);
        f.write_table("probes/p", columns, &rows).unwrap();
        f.close().unwrap();

        let f = H5File::open(&p).unwrap();
        f.remove_after(1).unwrap();
        f.close().unwrap();
        let file = h5::File::open(&p).unwrap();
        assert_eq!(
            file.attr("spacing").unwrap().read_scalar::<f64>().unwrap(),
            1.0
        );
        assert_eq!(
            file.attr("grid").unwrap().read_raw::<u64>().unwrap(),
            [3, 2, 1]
        );
        let group = file.group("fields/ez").unwrap();
        assert_eq!(group.member_names().unwrap(), ["000001"]);
        let offset = group.attr("yee_offset").unwrap().read_raw::<f64>().unwrap();
        assert_eq!(offset, [0.0, 0.0, 0.5]);
        let dataset = group.dataset("000001").unwrap();
        assert_eq!(dataset.shape(), [2, 3]);
        assert_eq!(dataset.read_raw::<Complex<f32>>().unwrap(), values);
        assert_eq!(
            dataset.attr("step").unwrap().read_scalar::<u64>().unwrap(),
            1
        );
        assert!(!file.link_exists("probes"));
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn a_table_is_its_csv_rows() {
        let p = path("table.h5");
        let f = H5File::create(&p, &run()).unwrap();
        let (columns, rows) = probe_rows(&[Complex::new(1.0f64, 2.0)], |_| 0.25);
        assert_eq!(columns, "step,time,re,im");
        f.write_table("probes/a", columns, &rows).unwrap();
        assert!(f.write_table("flux/b", "frequency,flux", &[1.0]).is_err());
        f.close().unwrap();
        let file = h5::File::open(&p).unwrap();
        let table = file.dataset("probes/a").unwrap();
        assert_eq!(table.shape(), [1, 4]);
        assert_eq!(table.read_raw::<f64>().unwrap(), [1.0, 0.25, 1.0, 2.0]);
        std::fs::remove_file(&p).unwrap();
    }
}
