//! Mode sources and monitors of one mirror parity (`parity`, Meep's `eig_parity`): in a slab
//! guide centred in the grid, the first odd mode launched by `parity = "odd_y"` (mode 0 of
//! that parity, mode 1 of the unfiltered list) arrives whole in the odd mode; the parity on a
//! cross-section that is not symmetric, about the normal, or about z against the scene's
//! polarisation is refused, naming the key.

use std::process::Command;

/// A 2D TMz guide of ε = 12, 2 a wide, centred across the grid (10 × 8 a, 10 cells per a),
/// carrying an even and an odd mode over 0.12 … 0.15 c/a; a mode source of `parity` at x = 2
/// along +x, the monitors `odd` (`odd_y`, mode 0) and `all` (unfiltered, modes 0 and 1) at
/// x = 8 and `back` (`odd_y`) at x = 3; `source_extra` goes into the source's table, the
/// guide's y range is `[lo, hi]`.
fn guide(source_extra: &str, lo: f64, hi: f64) -> String {
    format!(
        r#"name = "odd_guide"
[units]
resolution = 10
[grid]
mode = "tmz"
size = [10, 8]
[boundaries]
all = "cpml"
[materials.si]
eps = 12.0
[[geometry]]
shape = "box"
material = "si"
lo = [0, {lo}]
hi = [10, {hi}]
[[sources]]
kind = "mode"
axis = "x"
position = 2
direction = "+"
{source_extra}waveform = "gaussian"
frequency = 0.135
width = 20
[[modes]]
name = "odd"
axis = "x"
position = 8
parity = "odd_y"
fmin = 0.12
fmax = 0.15
count = 7
[[modes]]
name = "all"
axis = "x"
position = 8
modes = [0, 1]
fmin = 0.12
fmax = 0.15
count = 7
[[modes]]
name = "back"
axis = "x"
position = 3
parity = "odd_y"
fmin = 0.12
fmax = 0.15
count = 7
[run]
time = 300
"#
    )
}

/// `|S|²` forward and backward of a row.
fn s_power(row: &std::collections::HashMap<String, f64>) -> [f64; 2] {
    let p = |k: &str| row[&format!("{k}_re")].powi(2) + row[&format!("{k}_im")].powi(2);
    [p("s_forward"), p("s_backward")]
}

/// The odd mode launched with `parity = "odd_y"`: `|S21|²` of the odd monitor's mode 0 at
/// least 0.995 over the band (measured 0.99980 … 1.00009), `|S11|²` behind at most 1e-3
/// (measured ≤ 3.1e-7); the unfiltered monitor's mode 1 is the odd monitor's mode 0 (the same
/// n_eff and `|S21|²`, measured equal to 4e-16) and its even mode 0 carries nothing (measured
/// 3e-31: the mirror symmetry); without the parity, `mode = 0` launches the even mode instead
/// (`|S21|²` 0.999998 … 1.000005, the odd mode 2e-30).
#[test]
fn an_odd_mode_launched_arrives_in_the_odd_mode() {
    let dir = crate::tmp_dir(module_path!());
    let out = crate::run_text(&dir, "odd", &guide("parity = \"odd_y\"\n", 3.0, 5.0));
    let odd = crate::csv_rows(&out.join("modes_odd.csv"));
    let all = crate::csv_rows(&out.join("modes_all.csv"));
    let back = crate::csv_rows(&out.join("modes_back.csv"));
    assert_eq!((odd.len(), all.len(), back.len()), (7, 14, 7));
    for (k, row) in odd.iter().enumerate() {
        let f = row["frequency"];
        let [t, _] = s_power(row);
        assert!(
            (0.995..1.005).contains(&t),
            "f {f}: |S21|² of the odd mode {t}"
        );
        let [_, r] = s_power(&back[k]);
        assert!(r <= 1e-3, "f {f}: |S11|² {r}");
        let (even, odd_all) = (&all[2 * k], &all[2 * k + 1]);
        assert_eq!((even["mode"], odd_all["mode"]), (0.0, 1.0));
        assert!(
            (odd_all["n_eff"] - row["n_eff"]).abs() < 1e-9,
            "f {f}: n_eff"
        );
        assert!(
            (s_power(odd_all)[0] - t).abs() < 1e-9,
            "f {f}: mode 1 unfiltered"
        );
        assert!(
            s_power(even)[0] < 1e-12,
            "f {f}: the even mode {:?}",
            s_power(even)
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let entries = json["modes"].as_array().unwrap();
    let parities: Vec<Option<&str>> = entries.iter().map(|m| m["parity"].as_str()).collect();
    assert_eq!(parities, [Some("odd_y"), None, Some("odd_y")]);
    let out = crate::run_text(&dir, "even", &guide("", 3.0, 5.0));
    let all = crate::csv_rows(&out.join("modes_all.csv"));
    let ([even, _], [odd, _]) = (s_power(&all[6]), s_power(&all[7]));
    assert!(
        even > 0.995 && odd < 1e-12,
        "without the parity mode 0 is the even mode: {even}, {odd}"
    );
}

/// A parity on a guide off the grid's centre, about the plane's normal, about z against a
/// TMz scene's modes (all odd in z), on a soft source, and a mode number beyond the guided
/// modes of a parity are refused, naming the key.
#[test]
fn a_parity_the_plane_cannot_have_is_refused() {
    let dir = crate::tmp_dir(module_path!()).join("keys");
    std::fs::create_dir_all(&dir).unwrap();
    // `yee run`: the monitors' modes are checked before the run starts (`yee check` reads the
    // scene and the sources' modes).
    let check = |name: &str, text: &str| {
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        Command::new(env!("CARGO_BIN_EXE_yee"))
            .args(["run", "--quiet", "--out"])
            .arg(dir.join(name))
            .arg(&file)
            .output()
            .unwrap()
    };
    let odd = "parity = \"odd_y\"\n";
    let soft = guide(odd, 3.0, 5.0).replace(
        "kind = \"mode\"\naxis = \"x\"\nposition = 2\ndirection = \"+\"\n",
        "component = \"ez\"\nposition = [2, 4]\n",
    );
    let cases = [
        (
            "shifted",
            guide(odd, 2.5, 4.5),
            "sources[0].parity: the plane x=2 at frequency 0.135: a parity about y needs a \
             cross-section symmetric about its centre (cell 40 along y), but ε of Ez at cell 25 \
             along y is",
        ),
        (
            "normal",
            guide("parity = \"even_x\"\n", 3.0, 5.0),
            "sources[0].parity: \"even_x\": `even_x` mirrors along x, the plane's normal",
        ),
        (
            "word",
            guide("parity = \"symmetric\"\n", 3.0, 5.0),
            "sources[0].parity: \"symmetric\": `symmetric` is not one of even_x, odd_x",
        ),
        (
            "polarisation",
            guide("parity = \"te\"\n", 3.0, 5.0),
            "sources[0].parity: the plane x=2 at frequency 0.135: every mode of this 2D scene \
             is odd in z (its E lies along z)",
        ),
        (
            "soft",
            soft,
            "sources[0].parity: only a mode source (kind = \"mode\") takes it",
        ),
        (
            "count",
            guide(odd, 3.0, 5.0).replace(
                "parity = \"odd_y\"\nfmin = 0.12",
                "parity = \"odd_y\"\nmodes = [1]\nfmin = 0.12",
            ),
            "modes[0].modes: mode 1: the plane x=8 carries 1 guided mode of parity odd_y",
        ),
    ];
    for (name, text, message) in cases {
        let out = check(name, &text);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}");
        assert!(stderr.contains(message), "{name}: {stderr}");
    }
}
