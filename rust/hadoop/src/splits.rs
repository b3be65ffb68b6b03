//! MapReduce's `job.splitmetainfo` (`JobSplitWriter.writeJobSplitMetaInfo`,
//! `SplitMetaInfoReader.readSplitMetaInfo`): `"META-SPL"`, VInt version 1,
//! VInt split count, then per split a VInt location count, the locations
//! (`Text.writeString`), VLong start offset in `job.split` and VLong input
//! length. Each split becomes a block named `job.split@<start offset>`.

use crate::blocks::{Block, Replica};

pub const HEADER: &[u8; 8] = b"META-SPL";
pub const VERSION: i32 = 1;
/// `mapreduce.job.split.metainfo.maxsize` default; the caller reads the
/// file with this limit (or the configured one) before parsing it.
pub const MAX_SIZE: usize = 10_000_000;

#[derive(Debug, thiserror::Error)]
pub enum SplitError {
    #[error("split meta-info: not a job.splitmetainfo file (header {found:?}, want \"META-SPL\")")]
    Header { found: String },
    #[error("split meta-info: unsupported version {version} (want {VERSION})")]
    Version { version: i64 },
    #[error("split meta-info: at byte {offset}: {problem}")]
    At { offset: usize, problem: String },
}

/// One split record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMetaInfo {
    pub locations: Vec<String>,
    pub start_offset: i64,
    pub input_data_length: i64,
}

struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn err(&self, problem: impl Into<String>) -> SplitError {
        SplitError::At {
            offset: self.pos,
            problem: problem.into(),
        }
    }

    fn byte(&mut self, what: &str) -> Result<i8, SplitError> {
        let b = *self
            .b
            .get(self.pos)
            .ok_or_else(|| self.err(format!("file ends inside {what} (truncated?)")))?;
        self.pos += 1;
        Ok(b as i8)
    }

    /// `WritableUtils.readVLong`.
    fn vlong(&mut self, what: &str) -> Result<i64, SplitError> {
        let first = self.byte(what)?;
        let len = if first >= -112 {
            1
        } else if first < -120 {
            -119 - first as i32
        } else {
            -111 - first as i32
        };
        if len == 1 {
            return Ok(first as i64);
        }
        let mut v: i64 = 0;
        for _ in 0..len - 1 {
            v = (v << 8) | (self.byte(what)? as u8 as i64);
        }
        let negative = first < -120 || (-112..0).contains(&first);
        Ok(if negative { !v } else { v })
    }

    /// `WritableUtils.readVInt`.
    fn vint(&mut self, what: &str) -> Result<i32, SplitError> {
        let at = self.pos;
        let v = self.vlong(what)?;
        i32::try_from(v).map_err(|_| SplitError::At {
            offset: at,
            problem: format!("{what} {v} does not fit in an int"),
        })
    }

    /// `Text.readString`.
    fn text(&mut self, what: &str) -> Result<String, SplitError> {
        let at = self.pos;
        let n = self.vint(what)?;
        let n = usize::try_from(n).map_err(|_| SplitError::At {
            offset: at,
            problem: format!("negative length {n} of {what}"),
        })?;
        let end = self.pos.checked_add(n).filter(|&e| e <= self.b.len());
        let end = end.ok_or_else(|| {
            self.err(format!(
                "{what} of {n} bytes runs past the end of the file (truncated?)"
            ))
        })?;
        let s = std::str::from_utf8(&self.b[self.pos..end])
            .map_err(|_| self.err(format!("{what} is not UTF-8")))?
            .to_string();
        self.pos = end;
        Ok(s)
    }
}

/// Reads a whole `job.splitmetainfo` file (already read with a size limit).
pub fn parse_split_meta_info(b: &[u8]) -> Result<Vec<SplitMetaInfo>, SplitError> {
    if b.len() < HEADER.len() || &b[..HEADER.len()] != HEADER {
        let found = String::from_utf8_lossy(&b[..b.len().min(HEADER.len())]).into_owned();
        return Err(SplitError::Header { found });
    }
    let mut c = Cursor {
        b,
        pos: HEADER.len(),
    };
    let version = c.vint("version")?;
    if version != VERSION {
        return Err(SplitError::Version {
            version: version as i64,
        });
    }
    let at = c.pos;
    let n = c.vint("split count")?;
    if n < 0 {
        return Err(SplitError::At {
            offset: at,
            problem: format!("negative split count {n}"),
        });
    }
    // Each split takes at least 3 bytes: no allocation from a forged count.
    let mut out = Vec::with_capacity((n as usize).min(b.len() / 3));
    for i in 0..n {
        let at = c.pos;
        let nloc = c.vint(&format!("location count of split {i}"))?;
        if nloc < 0 {
            return Err(SplitError::At {
                offset: at,
                problem: format!("negative location count {nloc} in split {i}"),
            });
        }
        let mut locations = Vec::with_capacity((nloc as usize).min(64));
        for j in 0..nloc {
            locations.push(c.text(&format!("location {j} of split {i}"))?);
        }
        let start_offset = c.vlong(&format!("start offset of split {i}"))?;
        let input_data_length = c.vlong(&format!("input length of split {i}"))?;
        out.push(SplitMetaInfo {
            locations,
            start_offset,
            input_data_length,
        });
    }
    if c.pos != b.len() {
        tracing::warn!(
            "split meta-info: {} bytes after the last of {n} splits ignored",
            b.len() - c.pos
        );
    }
    Ok(out)
}

/// The splits as blocks (`job.split@<start offset>`, hosts as given).
pub fn splits_to_blocks(splits: &[SplitMetaInfo]) -> Vec<Block> {
    splits
        .iter()
        .map(|s| {
            let mut replicas: Vec<Replica> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            for h in &s.locations {
                let h = h.trim();
                if !h.is_empty() && seen.insert(h) {
                    replicas.push(Replica {
                        address: None,
                        host: h.to_string(),
                        rack: None,
                    });
                }
            }
            Block {
                task: format!("job.split@{}", s.start_offset),
                length: s.input_data_length.max(0) as u64,
                replicas,
            }
        })
        .collect()
}

/// `WritableUtils.writeVLong`, for tests and tools that write split files.
pub fn write_vlong(out: &mut Vec<u8>, mut v: i64) {
    if (-112..=127).contains(&v) {
        out.push(v as i8 as u8);
        return;
    }
    let mut len: i64 = -112;
    if v < 0 {
        v = !v;
        len = -120;
    }
    let mut tmp = v;
    while tmp != 0 {
        tmp >>= 8;
        len -= 1;
    }
    out.push(len as i8 as u8);
    let n = if len < -120 {
        -(len + 120)
    } else {
        -(len + 112)
    };
    for idx in (1..=n).rev() {
        let shift = (idx - 1) * 8;
        out.push(((v >> shift) & 0xFF) as u8);
    }
}

/// Writes a `job.splitmetainfo` file (`JobSplitWriter.writeJobSplitMetaInfo`).
pub fn write_split_meta_info(splits: &[SplitMetaInfo]) -> Vec<u8> {
    let mut out = HEADER.to_vec();
    write_vlong(&mut out, VERSION as i64);
    write_vlong(&mut out, splits.len() as i64);
    for s in splits {
        write_vlong(&mut out, s.locations.len() as i64);
        for l in &s.locations {
            write_vlong(&mut out, l.len() as i64);
            out.extend_from_slice(l.as_bytes());
        }
        write_vlong(&mut out, s.start_offset);
        write_vlong(&mut out, s.input_data_length);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Vec<SplitMetaInfo> {
        vec![
            SplitMetaInfo {
                locations: vec!["dn1".into(), "dn2".into(), "dn3".into()],
                start_offset: 7,
                input_data_length: 134_217_728,
            },
            SplitMetaInfo {
                locations: vec!["dn2".into()],
                start_offset: 150,
                input_data_length: 10,
            },
        ]
    }

    #[test]
    fn known_vlong_bytes() {
        // Values from WritableUtils' encoding rules.
        let enc = |v| {
            let mut o = Vec::new();
            write_vlong(&mut o, v);
            o
        };
        assert_eq!(enc(127), vec![0x7f]);
        assert_eq!(enc(-112), vec![0x90]);
        assert_eq!(enc(128), vec![0x8f, 0x80]);
        assert_eq!(enc(-113), vec![0x87, 0x70]);
        assert_eq!(enc(134_217_728), vec![0x8c, 0x08, 0x00, 0x00, 0x00]);
    }

    #[test]
    fn round_trip_and_blocks() {
        let bytes = write_split_meta_info(&sample());
        let back = parse_split_meta_info(&bytes).unwrap();
        assert_eq!(back, sample());
        let b = splits_to_blocks(&back);
        assert_eq!(b[0].task, "job.split@7");
        assert_eq!(b[1].replicas[0].host, "dn2");
    }

    fn err(b: &[u8]) -> String {
        parse_split_meta_info(b).unwrap_err().to_string()
    }

    #[test]
    fn bad_files_are_named() {
        let good = write_split_meta_info(&sample());
        assert_eq!(
            err(b"SPL\x00"),
            "split meta-info: not a job.splitmetainfo file (header \"SPL\\0\", want \"META-SPL\")"
        );
        let mut v2 = good.clone();
        v2[8] = 2;
        assert_eq!(err(&v2), "split meta-info: unsupported version 2 (want 1)");
        assert_eq!(
            err(&good[..12]),
            "split meta-info: at byte 12: location 0 of split 0 of 3 bytes runs past the end of the file (truncated?)"
        );
        assert_eq!(
            err(&good[..good.len() - 1]),
            format!("split meta-info: at byte {}: file ends inside input length of split 1 (truncated?)", good.len() - 1)
        );
        let mut neg = HEADER.to_vec();
        neg.extend_from_slice(&[1, 0xff]);
        assert_eq!(
            err(&neg),
            "split meta-info: at byte 9: negative split count -1"
        );
        let mut bad_utf8 = HEADER.to_vec();
        bad_utf8.extend_from_slice(&[1, 1, 1, 2, 0xff, 0xfe, 0, 0]);
        assert_eq!(
            err(&bad_utf8),
            "split meta-info: at byte 12: location 0 of split 0 is not UTF-8"
        );
    }

    proptest! {
        #[test]
        fn vlong_round_trips(v in any::<i64>()) {
            let mut o = Vec::new();
            write_vlong(&mut o, v);
            let mut c = Cursor { b: &o, pos: 0 };
            prop_assert_eq!(c.vlong("v").unwrap(), v);
            prop_assert_eq!(c.pos, o.len());
        }

        #[test]
        fn never_panics_on_arbitrary_bytes(tail in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut b = HEADER.to_vec();
            b.push(1);
            b.extend_from_slice(&tail);
            let _ = parse_split_meta_info(&b);
            let _ = parse_split_meta_info(&tail);
        }
    }
}
