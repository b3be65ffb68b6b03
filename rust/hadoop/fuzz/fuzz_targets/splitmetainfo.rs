#![no_main]
//! `job.splitmetainfo` bytes, then the instance built from the splits.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(splits) = spindle_hadoop::parse_split_meta_info(data) {
        let blocks = spindle_hadoop::splits_to_blocks(&splits);
        if let Ok(f) = spindle_hadoop::to_instance(&blocks, None, spindle_core::CostModel::default()) {
            let _ = spindle_core::Instance::from_file(f);
        }
    }
});
