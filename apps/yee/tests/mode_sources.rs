//! Mode sources (`[[sources]]` of `kind = "mode"`): the fundamental mode of a straight
//! single-mode slab guide (ε = 4, 8 cells wide, TMz, the guide of `mode_monitors`) launched
//! at x = 200 one way, the power through flux planes and mode monitors 170 cells either side;
//! the same bits on one rank and on several; bad keys refused naming them.

use std::path::Path;
use std::process::Command;

/// The guide along x, a mode source on the plane x = 200 travelling `direction`, mode
/// monitors and flux planes at x = 370 (`down`) and x = 30 (`up`), mode monitors 20 cells
/// either side of the source (`near_down` at 220, `near_up` at 180), over the band
/// 0.02 … 0.03 where only TE0 is guided (`V = k₀ w/2 √3 < π/2` up to f = 0.036); `extra` goes
/// into the source's table.
fn guide(direction: &str, extra: &str) -> String {
    let mut text = String::from(crate::mode_monitors::GUIDE);
    text += &format!(
        r#"[[sources]]
kind = "mode"
axis = "x"
position = 200
direction = "{direction}"
{extra}waveform = "gaussian"
frequency = 0.025
width = 30
[run]
time = 1600
"#
    );
    for (name, x) in [("down", 370), ("up", 30)] {
        text.push_str(&format!(
            "[[flux]]\nname = \"{name}_flux\"\naxis = \"x\"\nposition = {x}\nfmin = 0.02\n\
             fmax = 0.03\ncount = 11\n[[modes]]\nname = \"{name}\"\naxis = \"x\"\n\
             position = {x}\nfmin = 0.02\nfmax = 0.03\ncount = 11\n"
        ));
    }
    for (name, x) in [("near_down", 220), ("near_up", 180)] {
        text.push_str(&format!(
            "[[modes]]\nname = \"{name}\"\naxis = \"x\"\nposition = {x}\nfmin = 0.02\n\
             fmax = 0.03\ncount = 11\n"
        ));
    }
    text
}

/// A monitor's S-parameter columns as `(s_forward, s_backward)` per row.
fn s_of(row: &std::collections::HashMap<String, f64>) -> [num_complex::Complex64; 2] {
    let c = |k: &str| num_complex::Complex64::new(row[&format!("{k}_re")], row[&format!("{k}_im")]);
    [c("s_forward"), c("s_backward")]
}

/// The S-parameters of a run launched from x = 200 along `sign` (±1), its files in `out`: the
/// run has one mode source and nothing else, so every monitor's amplitudes are divided by the
/// amplitude it launches ([`yee_modes::launch`]). In the straight guide the mode reaches the far
/// plane 170 cells on whole: `|S21|²` within 5e-4 of 1 (measured ≥ 0.99985; dividing by the
/// waveform's spectrum instead of the launched amplitude is 2.6 % off at the band's edges and
/// 0.9 % at its centre; leaving out the `e^{iβ/2}` of the H layer gives 0.9931 at f = 0.02), its phase `β·170` within 2e-3 rad (measured ≤ 7.8e-4, β the grid's
/// own); 20 cells from the source the launched mode's `|S|²` is 1 within 1e-4 (measured
/// ≤ 1.7e-5) and what comes back, `|S11|²`, at most 1e-6 (measured ≤ 3.8e-8). Behind the
/// source, the launched mode going the wrong way: at most 1.1e-3 (measured 1.0e-3 at f = 0.02,
/// 5.5e-4 at 0.03, 6e-10 at f₀). Power conservation on the far plane: `|A⁺|² − |A⁻|²` within
/// 1e-3 of the net power through it (measured ≤ 2.1e-4). run.json names the source and gives
/// `|S|²`.
fn check_s_parameters(out: &std::path::Path, sign: f64) {
    let (far, near, behind) = if sign > 0.0 {
        ("down", "near_down", "near_up")
    } else {
        ("up", "near_up", "near_down")
    };
    let rows = |name: &str| crate::csv_rows(&out.join(format!("modes_{name}.csv")));
    let along = |s: [num_complex::Complex64; 2]| if sign > 0.0 { s } else { [s[1], s[0]] };
    for ((f, n), b) in rows(far).iter().zip(rows(near)).zip(rows(behind)) {
        let freq = f["frequency"];
        let [s21, _] = along(s_of(f));
        assert!(
            (s21.norm_sqr() - 1.0).abs() < 5e-4,
            "f {freq}: |S21|² {}",
            s21.norm_sqr()
        );
        let beta = 2.0 * std::f64::consts::PI * freq * f["n_eff"];
        let phase = (s21 * num_complex::Complex64::from_polar(1.0, -beta * 170.0)).arg();
        assert!(
            phase.abs() < 2e-3,
            "f {freq}: S21's phase off β·170 by {phase}"
        );
        let [launched, s11] = along(s_of(&n));
        assert!(
            (launched.norm_sqr() - 1.0).abs() < 1e-4,
            "f {freq}: {launched}"
        );
        assert!(s11.norm_sqr() < 1e-6, "f {freq}: |S11|² {}", s11.norm_sqr());
        let [_, wrong_way] = along(s_of(&b));
        assert!(wrong_way.norm_sqr() < 1.1e-3, "f {freq}: {wrong_way}");
        let (fw, bw) = (f["forward_power"], f["backward_power"]);
        let carried = sign * (fw - bw);
        let net = sign * f["power"];
        assert!(
            (carried / net - 1.0).abs() < 1e-3,
            "f {freq}: {carried} of {net}"
        );
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let entry = &report["modes"][0];
    assert_eq!(entry["source"], 0);
    assert_eq!(entry["s_forward_power"][0].as_array().unwrap().len(), 11);
    assert_eq!(entry["s_backward_power"][0].as_array().unwrap().len(), 11);
}

/// Launched along +x and along −x (the scene is symmetric: both give the same numbers): at
/// every frequency of the band the power leaving through the plane the mode travels to is at
/// least 99.8 % of all the power leaving (measured ≥ 99.90 %, the least at the band's low
/// edge), the power out through the other plane at most 1.1e-3 of it (measured 1.01e-3 at
/// f = 0.02, 5.5e-4 at 0.03, 9.6e-8 at the centre frequency, where the source is exact:
/// asserted ≤ 1e-6 there), the launched mode's `|A|²` at least 99 % of the flux through the
/// plane it travels to (measured 1.0023 … 1.0056 of it: the amplitudes sum over the nodes,
/// the flux interpolates onto the cells' centres, as in `mode_monitors`), the reverse mode
/// there below 1e-6 of it (measured ≤ 1e-9). The launched power follows `|G(f)|²` of the
/// unit-power mode, `G(f) = w√(2π)/2 · exp(−(2π(f − f₀)w)²/2)` the Gaussian's spectrum,
/// within 3 % (measured 0.9 % low at f₀, 2.6 % at the band's edges: there the mode's profile
/// is not the centre frequency's).
#[test]
fn a_mode_source_launches_its_mode_one_way() {
    let dir = crate::tmp_dir(module_path!());
    for (direction, name, along, against) in [
        ("+", "forward", "down", "up"),
        ("-", "backward", "up", "down"),
    ] {
        let out = crate::run_text(&dir, name, &guide(direction, ""));
        let sign = if direction == "+" { 1.0 } else { -1.0 };
        check_s_parameters(&out, sign);
        let modes = crate::csv_rows(&out.join(format!("modes_{along}.csv")));
        let flux_along = crate::csv_rows(&out.join(format!("flux_{along}_flux.csv")));
        let flux_against = crate::csv_rows(&out.join(format!("flux_{against}_flux.csv")));
        assert_eq!(modes.len(), 11);
        for ((m, fa), fb) in modes.iter().zip(&flux_along).zip(&flux_against) {
            let f = m["frequency"];
            let (out_along, out_against) = (sign * fa["flux"], -sign * fb["flux"]);
            assert!(out_along > 0.0, "{name}: {f}: {out_along}");
            let share = out_along / (out_along + out_against.abs());
            assert!(share > 0.998, "{name}: f {f}: {share}");
            let leak = out_against.abs() / out_along;
            assert!(leak < 1.1e-3, "{name}: f {f}: {leak}");
            if (f - 0.025).abs() < 1e-9 {
                assert!(leak < 1e-6, "{name}: f {f}: {leak}");
            }
            let (launched, returned) = match direction {
                "+" => (m["forward_power"], m["backward_power"]),
                _ => (m["backward_power"], m["forward_power"]),
            };
            assert!(
                launched / out_along > 0.99,
                "{name}: {m:?} flux {out_along}"
            );
            assert!(returned < 1e-6 * launched, "{name}: {m:?}");
            let (w, f0) = (30.0, 0.025);
            let g = w * (2.0 * std::f64::consts::PI).sqrt() / 2.0
                * (-(2.0 * std::f64::consts::PI * (f - f0) * w).powi(2) / 2.0).exp();
            assert!(
                (launched / (g * g) - 1.0).abs() < 0.03,
                "{name}: f {f}: {launched} against |G|² {}",
                g * g
            );
        }
    }
}

/// One rank and four (and rayon threads) write the same `modes_<name>.csv` and flux, byte
/// for byte.
#[test]
fn a_mode_source_is_the_same_bits_on_any_decomposition() {
    let dir = crate::tmp_dir(module_path!()).join("ranks");
    same_mode_outputs_on_any_decomposition(&dir, &guide("+", ""), "1200");
}

/// Runs the guide scene `text` (monitors `down` and `up`, flux `up`) for `steps` steps on one
/// scalar rank, four scalar ranks and three rayon ranks, in `dir`: the mode amplitudes and the
/// flux are the same bytes on each.
pub(crate) fn same_mode_outputs_on_any_decomposition(dir: &Path, text: &str, steps: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join("guide.toml");
    std::fs::write(&file, text).unwrap();
    let run = |name: &str, args: &[&str]| {
        let out = dir.join(name);
        let status = Command::new(env!("CARGO_BIN_EXE_yee"))
            .args(["run", "--quiet", "--steps", steps, "--out"])
            .arg(&out)
            .args(args)
            .arg(&file)
            .status()
            .unwrap();
        assert!(status.success(), "{name}");
        ["modes_down.csv", "modes_up.csv", "flux_up_flux.csv"]
            .map(|f| std::fs::read(out.join(f)).unwrap())
    };
    let one = run("one", &["--ranks", "1", "--backend", "scalar"]);
    let four = run("four", &["--ranks", "4", "--backend", "scalar"]);
    assert_eq!(one, four);
    let threads = run("rayon", &["--ranks", "3", "--backend", "rayon"]);
    assert_eq!(one, threads);
}

/// `yee check` solves for the mode and describes the sheets; a mode the plane does not guide
/// at the centre frequency, a direction other than "+" or "-", a plane outside the grid and a
/// component are refused, naming the key.
#[test]
fn a_mode_source_is_described_and_bad_keys_are_refused() {
    let dir = crate::tmp_dir(module_path!()).join("keys");
    std::fs::create_dir_all(&dir).unwrap();
    let check = |name: &str, text: &str| crate::check_text(&dir, name, text);
    let ok = check("ok", &guide("-", ""));
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert!(ok.status.success(), "{stdout}");
    assert!(
        stdout.contains("source 0    mode 0 along -x, n_eff 1.57")
            && stdout.contains("E sheet at x=200, H sheet at x=200.5, 159 soft nodes"),
        "{stdout}"
    );
    let cases = [
        (
            "mode",
            guide("+", "mode = 1\n"),
            "sources[0].mode: mode 1: the plane x=200 at frequency 0.025 carries 1 guided mode",
        ),
        (
            "direction",
            guide("up", ""),
            "sources[0].direction: Some(\"up\"): a mode source travels \"+\" or \"-\"",
        ),
        (
            "position",
            guide("+", "").replace("position = 200", "position = 400"),
            "sources[0].position: 400 must lie inside the grid",
        ),
        (
            "component",
            guide("+", "component = \"ez\"\n"),
            "sources[0].component: a mode source fills the grid's cross-section",
        ),
    ];
    for (name, text, message) in cases {
        let out = check(name, &text);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}");
        assert!(stderr.contains(message), "{name}: {stderr}");
    }
}
