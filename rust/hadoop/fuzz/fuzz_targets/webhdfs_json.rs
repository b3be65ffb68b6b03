#![no_main]
//! WebHDFS response bodies: block locations (both ops), file statuses, RemoteException.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    spindle_hadoop::webhdfs::fuzz_parse(data);
    if let Ok(blocks) = spindle_hadoop::webhdfs::parse_block_locations("/f", data) {
        let _ = spindle_hadoop::to_instance(&blocks, None, spindle_core::CostModel::default());
    }
});
