//! Any bytes as a scene file: the loader (TOML parsing, then resolving names, units and
//! defaults into a `Setup`) returns an error naming the file, or a scene whose `Setup` passes
//! `validate()`. Never a panic, never an allocation the scene's size does not justify (run with
//! `-rss_limit_mb`/`-malloc_limit_mb`, see docs/testing.md). Bytes that are not UTF-8 are
//! refused before parsing, as `yee_scene::load` does.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = Path::new("fuzz.toml");
    match yee_scene::parse(file, text) {
        Err(e) => {
            let message = e.to_string();
            assert!(
                message.starts_with("fuzz.toml"),
                "the error names the file: {message}"
            );
        }
        Ok(scene) => {
            if let Err(e) = scene.setup().validate() {
                panic!("the loader accepted a scene whose setup is invalid: {e}");
            }
        }
    }
});
