#![no_main]
//! Hadoop configuration XML: parse, expand every key, read the settings.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        spindle_hadoop::conf::fuzz_parse(text);
    }
});
