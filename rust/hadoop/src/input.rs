//! Reading a local input file with a size limit: the length is checked
//! before anything is read, and the read stops one byte past the limit, so
//! that a 2 GB file or `/dev/zero` costs nothing but the error.

use std::io::Read;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{what} {file}: cannot read")]
    Io {
        what: String,
        file: String,
        source: std::io::Error,
    },
    #[error("{what} {file}: {}over the {limit}-byte limit ({limit_name})", size_text(*.size))]
    TooLarge {
        what: String,
        file: String,
        /// The length when known up front (a device or pipe shows it only
        /// while being read, and the read stops at the limit).
        size: Option<u64>,
        limit: u64,
        limit_name: String,
    },
}

fn size_text(size: Option<u64>) -> String {
    size.map(|n| format!("{n} bytes, ")).unwrap_or_default()
}

/// The bytes of `path`, at most `limit` of them. `what` names the input in
/// errors ("instance", "fsck output") and `limit_name` the setting that
/// holds the limit (`--max-input-bytes`).
pub fn read_bounded(
    path: &Path,
    limit: u64,
    what: &str,
    limit_name: &str,
) -> Result<Vec<u8>, InputError> {
    let file = path.display().to_string();
    let io = |source| InputError::Io {
        what: what.into(),
        file: file.clone(),
        source,
    };
    let too_large = |size: Option<u64>| InputError::TooLarge {
        what: what.into(),
        file: file.clone(),
        size,
        limit,
        limit_name: limit_name.into(),
    };
    let f = std::fs::File::open(path).map_err(io)?;
    let meta = f.metadata().map_err(io)?;
    // A regular file's length is known up front; devices and pipes show
    // theirs only while being read.
    if meta.is_file() && meta.len() > limit {
        return Err(too_large(Some(meta.len())));
    }
    let mut buf = Vec::with_capacity(if meta.is_file() {
        meta.len() as usize
    } else {
        0
    });
    f.take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(io)?;
    if buf.len() as u64 > limit {
        return Err(too_large(None));
    }
    Ok(buf)
}

/// [`read_bounded`] as UTF-8 text.
pub fn read_text_bounded(
    path: &Path,
    limit: u64,
    what: &str,
    limit_name: &str,
) -> Result<String, InputError> {
    let bytes = read_bounded(path, limit, what, limit_name)?;
    String::from_utf8(bytes).map_err(|e| InputError::Io {
        what: what.into(),
        file: path.display().to_string(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_regular_files_up_front_and_devices_while_reading() {
        let d = std::env::temp_dir().join(format!("spindle-input-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("ten.txt");
        std::fs::write(&f, "0123456789").unwrap();
        assert_eq!(
            read_bounded(&f, 10, "instance", "--max-input-bytes")
                .unwrap()
                .len(),
            10
        );
        let e = read_bounded(&f, 9, "instance", "--max-input-bytes").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "instance {}: 10 bytes, over the 9-byte limit (--max-input-bytes)",
                f.display()
            )
        );
        let e = read_bounded(
            Path::new("/dev/zero"),
            1000,
            "instance",
            "--max-input-bytes",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "instance /dev/zero: over the 1000-byte limit (--max-input-bytes)"
        );
        let e = read_text_bounded(Path::new("/nonexistent/x"), 10, "fsck output", "-").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("fsck output /nonexistent/x: cannot read"),
            "{e}"
        );
    }
}
