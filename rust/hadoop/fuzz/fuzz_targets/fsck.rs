#![no_main]
//! `hdfs fsck -files -blocks -locations` text, then the instance built from it.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(blocks) = spindle_hadoop::parse_fsck(&text) {
        if let Ok(f) = spindle_hadoop::to_instance(&blocks, None, spindle_core::CostModel::default()) {
            let _ = spindle_core::Instance::from_file(f);
        }
    }
});
