//! ParaView data collections (`.pvd`): the time series of a run's `.vti` snapshots, so ParaView
//! (File → Open the `.pvd`) steps through them with their times.

use std::io::Write;

/// Writes a collection of `files` (relative to the `.pvd`), each with its time.
pub fn write(out: &mut impl Write, files: &[(f64, String)]) -> std::io::Result<()> {
    writeln!(out, r#"<?xml version="1.0"?>"#)?;
    writeln!(
        out,
        r#"<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">"#
    )?;
    writeln!(out, "  <Collection>")?;
    for (time, file) in files {
        let file = file
            .replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;");
        writeln!(
            out,
            r#"    <DataSet timestep="{time:e}" group="" part="0" file="{file}"/>"#
        )?;
    }
    writeln!(out, "  </Collection>")?;
    writeln!(out, "</VTKFile>")
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_file_is_a_dataset_with_its_time() {
        let mut out = Vec::new();
        super::write(
            &mut out,
            &[(0.5, "fields_000010.vti".into()), (1e-15, "a&b.vti".into())],
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(r#"timestep="5e-1" group="" part="0" file="fields_000010.vti""#));
        assert!(text.contains(r#"file="a&amp;b.vti""#));
        assert_eq!(text.matches("<DataSet").count(), 2);
    }
}
