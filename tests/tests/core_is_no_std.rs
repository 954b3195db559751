//! The core stays `#![no_std]`: no `std::` outside its test modules.

use std::fs;
use std::path::Path;

fn check_dir(dir: &Path, offenders: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            check_dir(&path, offenders);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (n, line) in code.lines().enumerate() {
                let code_part = line.split("//").next().unwrap_or("");
                if code_part.contains("std::") || code_part.contains("extern crate std") {
                    offenders.push(format!("{}:{}: {line}", path.display(), n + 1));
                }
            }
        }
    }
}

#[test]
fn core_names_no_std_outside_tests() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src");
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    assert!(
        lib.contains("#![no_std]"),
        "core/src/lib.rs must declare #![no_std]"
    );
    let mut offenders = Vec::new();
    check_dir(&src, &mut offenders);
    assert!(
        offenders.is_empty(),
        "std in core:\n{}",
        offenders.join("\n")
    );
}
