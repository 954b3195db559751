//! Full 3×3 `eps` and `mu` tensors in material definitions (docs/scene.md, "Anisotropic
//! materials"): the material the scene resolves to, and the errors naming the key.

use std::path::Path;

fn parse(material: &str) -> Result<yee_scene::Scene, String> {
    parse_at("", material)
}

/// The scene with `grid_keys` (a `courant = …` line, or nothing) added to its `[grid]`.
fn parse_at(grid_keys: &str, material: &str) -> Result<yee_scene::Scene, String> {
    let text = format!(
        r#"
[grid]
mode = "3d"
size = [4, 4, 40]
{grid_keys}

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

/// The Courant check takes the tensor's smallest eigenvalue, not its diagonal: this ε has
/// every diagonal entry at least 1 but the eigenvalues 0.4, 1 and 2, so light polarised along
/// (1, −1, 0) travels at 1/√0.4 of its vacuum speed and the 3D limit 1/√3 falls to
/// √0.4/√3 = 0.3651.
#[test]
fn a_tensor_faster_than_vacuum_lowers_the_courant_limit() {
    let fast = "eps = [[1.2, 0.8, 0.0], [0.8, 1.2, 0.0], [0.0, 0.0, 1.0]]";
    let limit = (0.4f64 / 3.0).sqrt();
    let at = |courant: f64| parse_at(&format!("courant = {courant}"), fast);
    // The default Courant number, 0.99/√3, is refused, naming the region and the limit …
    let message = parse(fast).unwrap_err();
    assert!(
        message.contains("region 0")
            && message.contains("must be at most 0.365148")
            && message.contains("lower `courant`"),
        "{message}"
    );
    // … as is one just past the limit; one just below it runs.
    assert!(at(limit * 1.001).is_err());
    at(limit * 0.999).unwrap().setup().validate().unwrap();
}
