//! The text of `hdfs fsck <path> -files -blocks -locations` (optionally
//! with `-racks` or `-replicaDetails`), as `NamenodeFsck` prints it:
//!
//! ```text
//! /user/alice/in/part-0 268435456 bytes, replicated: replication=3, 2 block(s):  OK     (3.x)
//! /user/alice/in/part-0 268435456 bytes, 2 block(s):  OK                                 (2.x)
//! 0. BP-1-10.0.0.1-1:blk_1073741825_1001 len=134217728 Live_repl=3  [DatanodeInfoWithStorage[10.0.0.2:9866,DS-a,DISK], ...]
//! 0. BP-1-10.0.0.1-1:blk_1073741825_1001 len=134217728 repl=3 [10.0.0.2:50010, 10.0.0.3:50010]   (2.x before 2.7)
//! 0. BP-...:blk_... len=... Live_repl=3 [/rack1/10.0.0.2:9866, ...]                      (-racks)
//! 1. BP-...:blk_... len=... MISSING!
//! ```
//! fsck names datanodes by transfer address (`ip:port`), so the replica host
//! is the address without its port.

use crate::blocks::{Block, Replica};

#[derive(Debug, thiserror::Error)]
pub enum FsckError {
    #[error("fsck line {line}: {problem}: {text:?}")]
    Line {
        line: usize,
        problem: String,
        text: String,
    },
    #[error("fsck: file {file} (line {line}) has {want} block(s) but {got} block line(s) follow it (truncated output, or fsck run without -blocks?)")]
    Truncated {
        file: String,
        line: usize,
        want: u64,
        got: u64,
    },
    #[error("fsck: no file with blocks found; give the output of `hdfs fsck <path> -files -blocks -locations`")]
    Empty,
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 160 {
        format!("{}...", s.chars().take(160).collect::<String>())
    } else {
        s.to_string()
    }
}

/// A file header line: (path, length, blocks).
fn file_line(line: &str) -> Option<(String, u64, u64)> {
    if !line.starts_with('/') {
        return None;
    }
    // The first " <digits> bytes, " ends the path (which may hold spaces).
    let mut from = 0;
    while let Some(i) = line[from..].find(" bytes, ") {
        let at = from + i;
        let before = &line[..at];
        if let Some(sp) = before.rfind(' ') {
            if let Ok(len) = before[sp + 1..].parse::<u64>() {
                let rest = &line[at + " bytes, ".len()..];
                let j = rest.find(" block(s)")?;
                let count = rest[..j].rsplit([' ', ',']).next()?.parse::<u64>().ok()?;
                return Some((before[..sp].to_string(), len, count));
            }
        }
        from = at + 1;
    }
    None
}

/// Splits `a, b[c, d], e` at top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// One location: `DatanodeInfoWithStorage[ip:port,DS-..,DISK](LIVE)`,
/// `ip:port` or `/rack/ip:port`.
fn replica(item: &str) -> Option<Replica> {
    let mut s = item.trim();
    // Striped (erasure-coded) block groups name the internal block first:
    // `blk_-9223372036854775792:DatanodeInfoWithStorage[...]`.
    if let Some(rest) = s.strip_prefix("blk_") {
        let digits = rest.strip_prefix('-').unwrap_or(rest);
        let n = digits.bytes().take_while(u8::is_ascii_digit).count();
        if n > 0 && digits[n..].starts_with(':') {
            s = &digits[n + 1..];
        }
    }
    if let Some(i) = s.rfind("](") {
        s = &s[..i + 1];
    } else if s.ends_with(')') {
        s = &s[..s.rfind('(')?];
    }
    if let Some(inner) = s.strip_prefix("DatanodeInfoWithStorage[") {
        s = inner.strip_suffix(']')?;
        s = s.split(',').next()?;
    }
    let (rack, addr) = match s.rfind('/') {
        Some(0) => (None, &s[1..]),
        Some(i) => (Some(s[..i].to_string()), &s[i + 1..]),
        None => (None, s),
    };
    let host = match addr.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) && !port.is_empty() => h,
        _ => addr,
    };
    if host.is_empty() || host.contains(|c: char| c.is_whitespace() || "[]:".contains(c)) {
        return None;
    }
    Some(Replica {
        address: None, // the host is already an address
        host: host.to_string(),
        rack,
    })
}

struct Current {
    file: String,
    line: usize,
    want: u64,
    got: u64,
    offset: u64,
}

fn close(cur: Option<Current>) -> Result<(), FsckError> {
    match cur {
        Some(c) if c.got != c.want => Err(FsckError::Truncated {
            file: c.file,
            line: c.line,
            want: c.want,
            got: c.got,
        }),
        _ => Ok(()),
    }
}

/// Reads fsck output into blocks (`<file>@<offset>`).
pub fn parse_fsck(text: &str) -> Result<Vec<Block>, FsckError> {
    let mut out = Vec::new();
    let mut cur: Option<Current> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim_end();
        let bad = |problem: &str| FsckError::Line {
            line: line_no,
            problem: problem.to_string(),
            text: shorten(line),
        };
        if let Some((file, _len, count)) = file_line(line) {
            close(cur.take())?;
            cur = Some(Current {
                file,
                line: line_no,
                want: count,
                got: 0,
                offset: 0,
            });
            continue;
        }
        // A block line: "<n>. <block> len=<bytes> ...".
        let t = line.trim_start();
        let Some((num, rest)) = t.split_once(". ") else {
            continue;
        };
        if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let Some(c) = cur.as_mut() else {
            return Err(bad("block line before any file line"));
        };
        let n: u64 = num.parse().map_err(|_| bad("block number too large"))?;
        if n != c.got {
            return Err(bad(&format!(
                "block number {n} out of order in {} (expected {})",
                c.file, c.got
            )));
        }
        if c.got >= c.want {
            return Err(bad(&format!(
                "more block lines than the {} block(s) fsck announced for {}",
                c.want, c.file
            )));
        }
        let Some(li) = rest.find(" len=") else {
            return Err(bad("block line without len="));
        };
        let after = &rest[li + " len=".len()..];
        let len_str = after.split_whitespace().next().unwrap_or("");
        let len: u64 = len_str
            .parse()
            .map_err(|_| bad("block length is not a number"))?;
        let mut replicas = Vec::new();
        if !after.contains("MISSING!") {
            if let (Some(open), Some(close_at)) = (after.find('['), after.rfind(']')) {
                if close_at <= open {
                    return Err(bad("unbalanced location list"));
                }
                for item in split_top(&after[open + 1..close_at]) {
                    let r = replica(item)
                        .ok_or_else(|| bad(&format!("cannot read location {:?}", shorten(item))))?;
                    if !replicas.iter().any(|x: &Replica| x.host == r.host) {
                        replicas.push(r);
                    }
                }
            } else if after.contains('[') || after.contains(']') {
                return Err(bad("unbalanced location list"));
            }
        }
        out.push(Block::new(&c.file, c.offset, len, replicas));
        c.offset = c.offset.saturating_add(len);
        c.got += 1;
    }
    close(cur.take())?;
    if out.is_empty() {
        return Err(FsckError::Empty);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const V3: &str = "Connecting to namenode via http://nn:9870/fsck?ugi=alice&files=1&blocks=1&locations=1&path=%2Fuser%2Falice%2Fin
FSCK started by alice (auth:SIMPLE) from /10.0.0.9 for path /user/alice/in at Sun Nov 22 14:00:00 UTC 2026

/user/alice/in <dir>
/user/alice/in/_SUCCESS 0 bytes, replicated: replication=3, 0 block(s):  OK

/user/alice/in/my file 134217738 bytes, replicated: replication=3, 2 block(s):  OK
0. BP-929597290-10.0.0.1-1500000000000:blk_1073741825_1001 len=134217728 Live_repl=3  [DatanodeInfoWithStorage[10.0.0.2:9866,DS-aaa,DISK], DatanodeInfoWithStorage[10.0.0.3:9866,DS-bbb,DISK], DatanodeInfoWithStorage[10.0.0.4:9866,DS-ccc,SSD]]
1. BP-929597290-10.0.0.1-1500000000000:blk_1073741826_1002 len=10 Live_repl=2  [DatanodeInfoWithStorage[10.0.0.3:9866,DS-bbb,DISK](LIVE), DatanodeInfoWithStorage[10.0.0.5:9866,DS-ddd,DISK](DECOMMISSIONED)]

/user/alice/in/b 5 bytes, erasure-coded: policy=RS-6-3-1024k, 1 block(s):  MISSING 1 blocks of total size 5 B
0. BP-929597290-10.0.0.1-1500000000000:blk_-9223372036854775792_1003 len=5 MISSING!

Status: CORRUPT
";

    #[test]
    fn reads_hadoop3_output() {
        let b = parse_fsck(V3).unwrap();
        let names: Vec<_> = b.iter().map(|b| b.task.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "/user/alice/in/my file@0",
                "/user/alice/in/my file@134217728",
                "/user/alice/in/b@0"
            ]
        );
        let hosts: Vec<_> = b[0].replicas.iter().map(|r| r.host.as_str()).collect();
        assert_eq!(hosts, vec!["10.0.0.2", "10.0.0.3", "10.0.0.4"]);
        let hosts: Vec<_> = b[1].replicas.iter().map(|r| r.host.as_str()).collect();
        assert_eq!(hosts, vec!["10.0.0.3", "10.0.0.5"]);
        assert!(b[2].replicas.is_empty());
    }

    /// Striped block groups prefix each location with the internal block
    /// (NamenodeFsck.getReplicaInfo).
    #[test]
    fn erasure_coded_locations_name_the_datanode() {
        let text = "/ec/f 5 bytes, erasure-coded: policy=RS-3-2-1024k, 1 block(s):  OK
0. BP-1:blk_-9223372036854775792_1003 len=5 Live_repl=2  [blk_-9223372036854775792:DatanodeInfoWithStorage[10.0.0.1:9866,DS-1,DISK], blk_-9223372036854775791:DatanodeInfoWithStorage[10.0.0.2:9866,DS-2,DISK]]

Status: HEALTHY
";
        let b = parse_fsck(text).unwrap();
        let hosts: Vec<_> = b[0].replicas.iter().map(|r| r.host.as_str()).collect();
        assert_eq!(hosts, vec!["10.0.0.1", "10.0.0.2"]);
    }

    #[test]
    fn reads_hadoop2_output_with_racks() {
        let text = "/in/a 200 bytes, 2 block(s):  Under replicated BP-1:blk_1_1. Target Replicas is 3 but found 2 replica(s).
0. BP-1:blk_1_1 len=100 repl=2 [/rack1/10.0.0.2:50010, /rack2/10.0.0.3:50010]
1. BP-1:blk_2_2 len=100 repl=1 [10.0.0.4:50010]
";
        let b = parse_fsck(text).unwrap();
        assert_eq!(b[0].replicas[0].rack.as_deref(), Some("/rack1"));
        assert_eq!(b[0].replicas[1].host, "10.0.0.3");
        assert_eq!(b[1].task, "/in/a@100");
        assert_eq!(b[1].replicas[0].rack, None);
    }

    fn err(text: &str) -> String {
        parse_fsck(text).unwrap_err().to_string()
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_arbitrary_text(s in "\\PC{0,300}") {
            let _ = parse_fsck(&s);
        }

        #[test]
        fn never_panics_on_fsck_like_lines(lines in proptest::collection::vec(proptest::prop_oneof![
            proptest::strategy::Just("/a b 10 bytes, replicated: replication=3, 2 block(s):  OK".to_string()),
            proptest::strategy::Just("/a 1 bytes, 1 block(s):".to_string()),
            "[0-9]{1,3}\\. BP-1:blk_1_1 len=[0-9x]{0,4} (repl|Live_repl)=3 ?\\[?[\\[\\]A-Za-z/:0-9,.() ]{0,40}\\]?",
            "\\PC{0,20}",
        ], 0..12)) {
            let _ = parse_fsck(&lines.join("\n"));
        }
    }

    #[test]
    fn truncated_and_corrupt_inputs_are_named() {
        let trunc = &V3[..V3.find("1. BP-929597290").unwrap()];
        assert_eq!(
            err(trunc),
            "fsck: file /user/alice/in/my file (line 7) has 2 block(s) but 1 block line(s) follow it (truncated output, or fsck run without -blocks?)"
        );
        assert_eq!(
            err("0. BP-1:blk_1_1 len=100 repl=1 [10.0.0.4:50010]\n"),
            "fsck line 1: block line before any file line: \"0. BP-1:blk_1_1 len=100 repl=1 [10.0.0.4:50010]\""
        );
        assert_eq!(
            err("/a 1 bytes, 1 block(s): OK\n0. BP-1:blk_1_1 len=x1 repl=1 [h:1]\n"),
            "fsck line 2: block length is not a number: \"0. BP-1:blk_1_1 len=x1 repl=1 [h:1]\""
        );
        assert_eq!(
            err("/a 1 bytes, 1 block(s): OK\n1. BP-1:blk_1_1 len=1 repl=1 [h:1]\n"),
            "fsck line 2: block number 1 out of order in /a (expected 0): \"1. BP-1:blk_1_1 len=1 repl=1 [h:1]\""
        );
        assert_eq!(
            err("/a 1 bytes, 1 block(s): OK\n0. BP-1:blk_1_1 len=1 repl=1 [h:1\n"),
            "fsck line 2: unbalanced location list: \"0. BP-1:blk_1_1 len=1 repl=1 [h:1\""
        );
        assert_eq!(
            err("Status: HEALTHY\n"),
            "fsck: no file with blocks found; give the output of `hdfs fsck <path> -files -blocks -locations`"
        );
    }
}
