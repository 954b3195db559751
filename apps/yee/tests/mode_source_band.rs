//! Broadband mode sources (`num_freqs`): the fundamental mode of the taper example's input
//! guide (ε = 12, 1 a wide, 10 cells per a, TMz: a strongly dispersive slab, n_eff 2.50 …
//! 2.93 over the band) launched over ±25 % of its centre frequency with the mode found at
//! three frequencies against the centre frequency's alone; the same bits on one rank and on
//! several; bad values refused naming the key.

/// The band the monitors take: f₀ = 0.135 ± 25 %.
const BAND: (f64, f64) = (0.10125, 0.16875);

/// The guide along x (12 × 6 a, CPML 1 a), a mode source at x = 3 along +x (Gaussian,
/// f₀ = 0.135, width 12: its spectrum above 1 % of its peak over 0.0947 … 0.1753, the band
/// `num_freqs` spans), mode monitors and flux planes at x = 10 (`down`) and x = 2 (`up`, 1 a
/// behind the source) over [`BAND`], 11 frequencies.
fn guide(extra: &str) -> String {
    let mut text = format!(
        r#"name = "band"
[units]
resolution = 10
[grid]
mode = "tmz"
size = [12, 6]
[boundaries]
all = "cpml"
[materials.si]
eps = 12.0
[[geometry]]
shape = "box"
material = "si"
lo = [0, 2.5]
hi = [12, 3.5]
[[sources]]
kind = "mode"
axis = "x"
position = 3
direction = "+"
waveform = "gaussian"
frequency = 0.135
width = 12
{extra}[run]
time = 200
"#
    );
    for (name, x) in [("down", 10), ("up", 2)] {
        text.push_str(&format!(
            "[[flux]]\nname = \"{name}_flux\"\naxis = \"x\"\nposition = {x}\nfmin = {lo}\n\
             fmax = {hi}\ncount = 11\n[[modes]]\nname = \"{name}\"\naxis = \"x\"\n\
             position = {x}\nfmin = {lo}\nfmax = {hi}\ncount = 11\n",
            lo = BAND.0,
            hi = BAND.1
        ));
    }
    text
}

/// Per frequency of one run: the launched mode's share of all the power leaving (`|A⁺|²`
/// downstream over the net power through both planes, the node sums of the mode monitors),
/// the power out behind the source over that downstream, the launched mode going the wrong
/// way behind the source (`|S|²`), and `|S21|²` downstream.
struct Launch {
    frequency: f64,
    share: f64,
    backward: f64,
    wrong_way: f64,
    s21: f64,
}

fn launches(out: &std::path::Path) -> Vec<Launch> {
    let rows = |name: &str| crate::csv_rows(&out.join(format!("modes_{name}.csv")));
    let s = |row: &std::collections::HashMap<String, f64>, k: &str| {
        num_complex::Complex64::new(row[&format!("{k}_re")], row[&format!("{k}_im")]).norm_sqr()
    };
    rows("down")
        .iter()
        .zip(rows("up"))
        .map(|(d, u)| {
            let (ahead, behind) = (d["power"], -u["power"]);
            assert!(ahead > 0.0 && behind > 0.0, "{d:?} {u:?}");
            Launch {
                frequency: d["frequency"],
                share: d["forward_power"] / (ahead + behind),
                backward: behind / ahead,
                wrong_way: s(&u, "s_backward"),
                s21: s(d, "s_forward"),
            }
        })
        .collect()
}

/// With `num_freqs = 3` the source carries at each frequency of the band that frequency's
/// mode: at every frequency of ±25 % the launched mode takes at least 99.5 % of the power
/// leaving (measured ≥ 99.951 %), the power out behind the source is at most 1e-3 of that
/// ahead (measured ≤ 1.04e-4, mostly not the mode: the launched mode going the wrong way is
/// at most 1e-5, measured ≤ 2.6e-6; without the H layer's phase beyond the centre
/// frequency's delay 1.6e-5, which fails), and
/// `|S21|²` is 1 within 1e-3 (measured ≤ 5.1e-4 off). With the centre frequency's mode alone
/// (`num_freqs = 1`, the default) the wrong-way mode is 2.4e-3 at the low edge and 9.4e-4 at
/// the high one (power behind 3.2e-3 and 1.8e-3): asserted at least 100 times the broadband
/// source's at both edges, and above 1e-3 somewhere in the band.
#[test]
fn a_broadband_mode_source_launches_each_frequencys_mode_one_way() {
    let dir = crate::tmp_dir(module_path!());
    let narrow = launches(&crate::run_text(&dir, "one", &guide("")));
    let broad = launches(&crate::run_text(&dir, "three", &guide("num_freqs = 3\n")));
    assert_eq!(broad.len(), 11);
    for b in &broad {
        let f = b.frequency;
        assert!(b.share >= 0.995, "f {f}: launched share {}", b.share);
        assert!(b.backward <= 1e-3, "f {f}: backward {}", b.backward);
        assert!(b.wrong_way <= 1e-5, "f {f}: wrong way {}", b.wrong_way);
        assert!((b.s21 - 1.0).abs() <= 1e-3, "f {f}: |S21|² {}", b.s21);
    }
    for edge in [0, 10] {
        let (n, b) = (&narrow[edge], &broad[edge]);
        assert!(
            n.wrong_way >= 100.0 * b.wrong_way,
            "f {}: one frequency {} against three {}",
            n.frequency,
            n.wrong_way,
            b.wrong_way
        );
    }
    let worst = narrow.iter().map(|n| n.backward).fold(0.0, f64::max);
    assert!(worst > 1e-3, "one frequency: backward at most {worst}");
}

/// One rank and four (and rayon threads) write the same `modes_<name>.csv` and flux of a
/// broadband source, byte for byte: the taps are found once per run, the same on every rank.
#[test]
fn a_broadband_mode_source_is_the_same_bits_on_any_decomposition() {
    let dir = crate::tmp_dir(module_path!()).join("ranks");
    crate::mode_sources::same_mode_outputs_on_any_decomposition(
        &dir,
        &guide("num_freqs = 3\n"),
        "1500",
    );
}

/// `yee check` says how many frequencies the mode is found at; `num_freqs` 0, beyond 10, on
/// a Ricker pulse, on a band too narrow for it or on a soft source is refused, naming the key.
#[test]
fn bad_num_freqs_are_refused() {
    let dir = crate::tmp_dir(module_path!()).join("keys");
    std::fs::create_dir_all(&dir).unwrap();
    let check = |name: &str, text: &str| crate::check_text(&dir, name, text);
    let ok = check("ok", &guide("num_freqs = 3\n"));
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert!(ok.status.success(), "{stdout}");
    assert!(
        stdout.contains("its mode found at 3 frequencies over 0.0947"),
        "{stdout}"
    );
    let soft = guide("").replace(
        "kind = \"mode\"\naxis = \"x\"\nposition = 3\ndirection = \"+\"\n",
        "component = \"ez\"\nposition = [3, 3]\nnum_freqs = 2\n",
    );
    let cases = [
        (
            "zero",
            guide("num_freqs = 0\n"),
            "sources[0].num_freqs: 0: give 1",
        ),
        (
            "many",
            guide("num_freqs = 11\n"),
            "sources[0].num_freqs: 11: give 1 (the centre frequency alone) to 10",
        ),
        (
            "narrow",
            guide("num_freqs = 10\n").replace("width = 12", "width = 400"),
            "sources[0].num_freqs: 10: over the waveform's band",
        ),
        (
            "ricker",
            guide("num_freqs = 2\n")
                .replace("waveform = \"gaussian\"", "waveform = \"ricker\"")
                .replace("width = 12\n", ""),
            "sources[0].num_freqs: 2: a mode source recomputes its mode across the band of a \
             gaussian waveform",
        ),
        (
            "soft",
            soft,
            "sources[0].num_freqs: only a mode source (kind = \"mode\") takes it",
        ),
    ];
    for (name, text, message) in cases {
        let out = check(name, &text);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}");
        assert!(stderr.contains(message), "{name}: {stderr}");
    }
}
