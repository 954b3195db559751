//! Mode sources (`[[sources]]` of `kind = "mode"`): the fundamental mode of a straight
//! single-mode slab guide (ε = 4, 8 cells wide, TMz, the guide of `mode_monitors`) launched
//! at x = 200 one way, the power through flux planes and mode monitors 170 cells either side;
//! the same bits on one rank and on several; bad keys refused naming them.

use std::process::Command;

/// The guide along x, a mode source on the plane x = 200 travelling `direction`, mode
/// monitors and flux planes at x = 370 (`down`) and x = 30 (`up`), over the band 0.02 … 0.03
/// where only TE0 is guided (`V = k₀ w/2 √3 < π/2` up to f = 0.036); `extra` goes into the
/// source's table.
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
    text
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
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("guide.toml");
    std::fs::write(&file, guide("+", "")).unwrap();
    let run = |name: &str, args: &[&str]| {
        let out = dir.join(name);
        let status = Command::new(env!("CARGO_BIN_EXE_yee"))
            .args(["run", "--quiet", "--steps", "1200", "--out"])
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
    let check = |name: &str, text: &str| {
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        Command::new(env!("CARGO_BIN_EXE_yee"))
            .arg("check")
            .arg(&file)
            .output()
            .unwrap()
    };
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
