//! Full 3×3 `eps` and `mu` tensors in material definitions (docs/scene.md, "Anisotropic
//! materials"): the material the scene resolves to, and the errors naming the key.

use std::path::Path;

fn parse(material: &str) -> Result<yee_scene::Scene, String> {
    let text = format!(
        r#"
[grid]
mode = "3d"
size = [4, 4, 40]

[boundaries]
x_low = "periodic"
x_high = "periodic"
y_low = "periodic"
y_high = "periodic"

[materials.crystal]
{material}

[[geometry]]
shape = "box"
material = "crystal"
lo = [-1, -1, 10]
hi = [5, 5, 20]

[run]
steps = 1
"#
    );
    yee_scene::parse(Path::new("tensors.toml"), &text).map_err(|e| e.to_string())
}

#[test]
fn a_symmetric_tensor_becomes_the_inverse_entries() {
    let s = parse("eps = [[2.5, 0.3, 0.0], [0.3, 2.0, 0.0], [0.0, 0.0, 3.0]]").unwrap();
    let m = s.regions[0].material;
    let c = m.coupling.expect("off-diagonal entries");
    // (ε⁻¹)xy = −0.3/(2.5·2 − 0.09).
    assert!((c.eps_inverse[2] + 0.3 / 4.91).abs() < 1e-15, "{c:?}");
    assert_eq!(c.mu_inverse, [0.0; 3]);
    let back = m.full_tensor(true);
    assert!((back[0][1] - 0.3).abs() < 1e-14 && (back[2][2] - 3.0).abs() < 1e-14);
    s.setup().validate().unwrap();
}

#[test]
fn a_diagonal_tensor_is_the_diagonal_material() {
    let s = parse("mu = [[1.0, 0, 0], [0, 2.0, 0], [0, 0, 1.5]]").unwrap();
    let d = parse("mu = [1.0, 2.0, 1.5]").unwrap();
    assert_eq!(s.regions[0].material, d.regions[0].material);
}

#[test]
fn a_bad_tensor_is_named() {
    let skew = parse("eps = [[2.0, 0.3, 0], [0.2, 2.0, 0], [0, 0, 2.0]]").unwrap_err();
    assert!(
        skew.contains("materials.crystal.eps") && skew.contains("not symmetric"),
        "{skew}"
    );
    let indefinite = parse("mu = [[1.0, 2.0, 0], [2.0, 1.0, 0], [0, 0, 1.0]]").unwrap_err();
    assert!(
        indefinite.contains("materials.crystal.mu") && indefinite.contains("positive definite"),
        "{indefinite}"
    );
    let ragged = parse("eps = [[2.0, 0.3], [0.3, 2.0, 0], [0, 0, 2.0]]").unwrap_err();
    assert!(ragged.contains("eps"), "{ragged}");
}
