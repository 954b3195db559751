//! XDMF (version 2) index of an HDF5 file's field snapshots, for ParaView's XDMF reader: a
//! temporal collection of uniform co-rectilinear grids whose cell data are the datasets
//! `/fields/<component>/<step:06>`.

use std::io::Write;

/// What the index describes.
#[derive(Clone, Debug)]
pub struct Index<'a> {
    /// The HDF5 file, relative to the index.
    pub file: &'a str,
    /// Cells along x, y, z.
    pub grid: [usize; 3],
    /// 2 or 3: the axes the datasets have.
    pub dims: usize,
    /// The cell size.
    pub spacing: f64,
    /// Bytes per value: 4 (float32) or 8 (float64).
    pub precision: usize,
    /// The snapshots: step, time and the components written at it.
    pub steps: &'a [(u64, f64, Vec<String>)],
}

/// Writes the index; `dims` other than 2 or 3 is an error (XDMF has no 1D co-rectilinear mesh).
pub fn write(out: &mut impl Write, index: &Index) -> std::io::Result<()> {
    let d = index.dims;
    if !(2..=3).contains(&d) {
        return Err(std::io::Error::other(format!(
            "XDMF co-rectilinear meshes are 2D or 3D, not {d}D"
        )));
    }
    // Slowest axis first, as the datasets are.
    let cells: Vec<usize> = index.grid[..d].iter().rev().copied().collect();
    let join = |v: &[String]| v.join(" ");
    let nodes = join(
        &cells
            .iter()
            .map(|n| (n + 1).to_string())
            .collect::<Vec<_>>(),
    );
    let shape = join(&cells.iter().map(|n| n.to_string()).collect::<Vec<_>>());
    let origin = join(&vec!["0".to_string(); d]);
    let spacing = join(&vec![format!("{:e}", index.spacing); d]);
    let (topology, geometry) = if d == 3 {
        ("3DCoRectMesh", "ORIGIN_DXDYDZ")
    } else {
        ("2DCoRectMesh", "ORIGIN_DXDY")
    };
    writeln!(out, r#"<?xml version="1.0" ?>"#)?;
    writeln!(out, r#"<Xdmf Version="2.0">"#)?;
    writeln!(out, r#" <Domain>"#)?;
    writeln!(
        out,
        r#"  <Grid Name="fields" GridType="Collection" CollectionType="Temporal">"#
    )?;
    for (step, time, components) in index.steps {
        writeln!(out, r#"   <Grid Name="step {step:06}" GridType="Uniform">"#)?;
        writeln!(out, r#"    <Time Value="{time:e}"/>"#)?;
        writeln!(
            out,
            r#"    <Topology TopologyType="{topology}" Dimensions="{nodes}"/>"#
        )?;
        writeln!(out, r#"    <Geometry GeometryType="{geometry}">"#)?;
        for values in [&origin, &spacing] {
            writeln!(
                out,
                r#"     <DataItem Dimensions="{d}" NumberType="Float" Precision="8" Format="XML">{values}</DataItem>"#
            )?;
        }
        writeln!(out, r#"    </Geometry>"#)?;
        for c in components {
            writeln!(
                out,
                r#"    <Attribute Name="{c}" AttributeType="Scalar" Center="Cell">"#
            )?;
            writeln!(
                out,
                r#"     <DataItem Dimensions="{shape}" NumberType="Float" Precision="{}" Format="HDF">{}:/fields/{c}/{step:06}</DataItem>"#,
                index.precision, index.file
            )?;
            writeln!(out, r#"    </Attribute>"#)?;
        }
        writeln!(out, r#"   </Grid>"#)?;
    }
    writeln!(out, r#"  </Grid>"#)?;
    writeln!(out, r#" </Domain>"#)?;
    writeln!(out, r#"</Xdmf>"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_3d_index_names_each_dataset_with_its_shape() {
        let steps = [(5, 2.5, vec!["ex".to_string(), "hz".to_string()])];
        let index = Index {
            file: "fields.h5",
            grid: [4, 3, 2],
            dims: 3,
            spacing: 0.5,
            precision: 4,
            steps: &steps,
        };
        let mut bytes = Vec::new();
        write(&mut bytes, &index).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains(r#"TopologyType="3DCoRectMesh" Dimensions="3 4 5""#));
        assert!(text.contains(r#"Precision="4" Format="HDF">fields.h5:/fields/hz/000005<"#));
        assert!(text.contains(r#"Dimensions="2 3 4""#));
        assert!(text.contains(r#"<Time Value="2.5e0"/>"#));
        let one = Index { dims: 1, ..index };
        assert!(write(&mut Vec::new(), &one).is_err());
    }
}
