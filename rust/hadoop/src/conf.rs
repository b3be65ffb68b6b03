//! Hadoop configuration files, read as `org.apache.hadoop.conf.Configuration`
//! does: `<configuration>` of `<property>` (`<name>`, `<value>`, `<final>`;
//! also the attribute "short format"), later resources override earlier ones
//! except final keys, XInclude of files relative to the including file, and
//! `${var}` / `${env.NAME}` expansion on read with Hadoop's limit of 20
//! substitutions.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// Hadoop's `Configuration.MAX_SUBST`.
pub const MAX_SUBST: usize = 20;
/// Nested includes deeper than this are taken for a loop.
const MAX_INCLUDE_DEPTH: usize = 16;
/// Includes read for one resource, all levels together: a fan-out (each
/// file including the next several times) grows exponentially within the
/// depth limit. Real configurations include a handful of files.
pub const MAX_INCLUDES: usize = 256;
/// Bytes read for one resource and everything it includes. Hadoop's own
/// `*-default.xml` files are about 100 kB each.
pub const MAX_RESOURCE_BYTES: u64 = 64 << 20;
/// Longest value `${...}` expansion may build.
pub const MAX_EXPANDED: usize = 1 << 20;
/// The files Spindle reads from a configuration directory, in override order.
pub const SITE_FILES: [&str; 4] = [
    "core-site.xml",
    "hdfs-site.xml",
    "yarn-site.xml",
    "spindle-site.xml",
];
/// Source name of the built-in defaults.
pub const DEFAULTS_SOURCE: &str = "built-in defaults";

/// Where a value was set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub file: Arc<str>,
    /// 1-based line of the `<property>` element; 0 for the built-in defaults.
    pub line: usize,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.file)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("{file}:{line}: malformed XML: {detail}")]
    Xml {
        file: String,
        line: usize,
        detail: String,
    },
    #[error("{file}:{line}: <property> without a <name>")]
    NoName { file: String, line: usize },
    #[error("{file}:{line}: fetch fail on include for {href}: {path} does not exist and the include has no <fallback>")]
    MissingInclude {
        file: String,
        line: usize,
        href: String,
        path: String,
    },
    #[error("{file}:{line}: include of {href} nested more than {MAX_INCLUDE_DEPTH} deep (an include loop?)")]
    IncludeLoop {
        file: String,
        line: usize,
        href: String,
    },
    #[error("{file}:{line}: include of {href}: more than {MAX_INCLUDES} includes for one resource (an include fan-out?)")]
    TooManyIncludes {
        file: String,
        line: usize,
        href: String,
    },
    #[error("{file}: the resource and its includes pass {MAX_RESOURCE_BYTES} bytes (the limit on one configuration resource)")]
    TooLarge { file: String },
    #[error("{origin}: property {name}: variable substitution depth too large ({MAX_SUBST} substitutions) in {value:?}")]
    SubstDepth {
        origin: Origin,
        name: String,
        value: String,
    },
    #[error("{origin}: property {name}: variable substitution makes a value longer than {MAX_EXPANDED} bytes (the limit) from {value:?}")]
    SubstLength {
        origin: Origin,
        name: String,
        value: String,
    },
    #[error("{origin}: property {name}: {value:?} {problem}")]
    BadValue {
        origin: Origin,
        name: String,
        value: String,
        problem: String,
    },
    #[error("property {name} is not set (no value in any configuration file and no default)")]
    Missing { name: String },
}

#[derive(Clone, Debug)]
struct Property {
    value: String,
    origin: Origin,
    is_final: bool,
}

/// One `<property>` as parsed, before it is merged.
#[derive(Clone, Debug)]
struct RawProperty {
    name: String,
    value: Option<String>,
    is_final: bool,
    origin: Origin,
}

/// A merged set of configuration resources.
#[derive(Clone, Debug, Default)]
pub struct Configuration {
    props: HashMap<String, Property>,
    /// Used instead of the process environment when set (tests).
    env: Option<HashMap<String, String>>,
    /// Attempts to override final keys, in Hadoop's words.
    warnings: Vec<String>,
    /// Keys declared final without a value: Hadoop's finalParameters holds
    /// them all the same, so later files cannot set them.
    final_without_value: std::collections::HashSet<String>,
}

impl Configuration {
    /// An empty configuration (no defaults).
    pub fn new() -> Configuration {
        Configuration::default()
    }

    /// A configuration holding Spindle's built-in defaults ([`DEFAULTS`]).
    pub fn with_defaults() -> Configuration {
        let mut c = Configuration::new();
        let origin = Origin {
            file: Arc::from(DEFAULTS_SOURCE),
            line: 0,
        };
        for (name, value) in DEFAULTS {
            c.props.insert(
                name.to_string(),
                Property {
                    value: value.to_string(),
                    origin: origin.clone(),
                    is_final: false,
                },
            );
        }
        c
    }

    /// Defaults, then the [`SITE_FILES`] of `dir` that exist, in order.
    pub fn load_dir(dir: &Path) -> Result<Configuration, ConfError> {
        let mut c = Configuration::with_defaults();
        for f in SITE_FILES {
            let path = dir.join(f);
            if path.is_file() {
                c.add_file(&path)?;
            }
        }
        Ok(c)
    }

    /// Replaces the process environment for `${env.NAME}` lookups.
    pub fn set_env(&mut self, env: HashMap<String, String>) {
        self.env = Some(env);
    }

    /// Attempts to override final parameters that were ignored.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Adds one resource file; it overrides what was loaded before.
    pub fn add_file(&mut self, path: &Path) -> Result<(), ConfError> {
        let mut budget = Budget::default();
        let text = read(path, &path.display().to_string(), &mut budget)?;
        let base = path.parent().map(Path::to_path_buf);
        self.add_parsed(&text, &path.display().to_string(), base.as_deref(), budget)
    }

    /// Adds a resource given as text; `name` names it in errors, includes are
    /// resolved against `base_dir` (without one, every include is missing).
    pub fn add_str(
        &mut self,
        text: &str,
        name: &str,
        base_dir: Option<&Path>,
    ) -> Result<(), ConfError> {
        let budget = Budget {
            includes: 0,
            bytes: text.len() as u64,
        };
        self.add_parsed(text, name, base_dir, budget)
    }

    fn add_parsed(
        &mut self,
        text: &str,
        name: &str,
        base_dir: Option<&Path>,
        mut budget: Budget,
    ) -> Result<(), ConfError> {
        let mut raw = Vec::new();
        parse_resource(text, &Arc::from(name), base_dir, 0, &mut budget, &mut raw)?;
        for p in raw {
            self.load_property(p);
        }
        Ok(())
    }

    /// Sets a value directly (as `Configuration.set`), ignoring final flags.
    pub fn set(&mut self, name: &str, value: &str) {
        self.props.insert(
            name.to_string(),
            Property {
                value: value.to_string(),
                origin: Origin {
                    file: Arc::from("set programmatically"),
                    line: 0,
                },
                is_final: false,
            },
        );
    }

    fn load_property(&mut self, p: RawProperty) {
        // An empty <value/> leaves the value null: Hadoop skips the property,
        // but a <final> on it still counts.
        let Some(value) = p.value else {
            if p.is_final {
                match self.props.get_mut(&p.name) {
                    Some(old) => old.is_final = true,
                    None => {
                        self.final_without_value.insert(p.name);
                    }
                }
            }
            return;
        };
        if self.final_without_value.contains(&p.name) {
            self.warnings.push(format!(
                "{}: an attempt to override final parameter: {}; Ignoring.",
                p.origin, p.name
            ));
            return;
        }
        if let Some(old) = self.props.get(&p.name) {
            if old.is_final {
                if old.value != value {
                    self.warnings.push(format!(
                        "{}: an attempt to override final parameter: {} (final at {}); Ignoring.",
                        p.origin, p.name, old.origin
                    ));
                }
                return;
            }
        }
        self.props.insert(
            p.name,
            Property {
                value,
                origin: p.origin,
                is_final: p.is_final,
            },
        );
    }

    /// The value as written, without expansion.
    pub fn get_raw(&self, name: &str) -> Option<&str> {
        self.props.get(name).map(|p| p.value.as_str())
    }

    /// Where `name` was set.
    pub fn origin(&self, name: &str) -> Option<&Origin> {
        self.props.get(name).map(|p| &p.origin)
    }

    /// Whether `name` is final.
    pub fn is_final(&self, name: &str) -> bool {
        self.props.get(name).is_some_and(|p| p.is_final)
    }

    /// The expanded value (`Configuration.get`: not trimmed).
    pub fn get(&self, name: &str) -> Result<Option<String>, ConfError> {
        let Some(p) = self.props.get(name) else {
            return Ok(None);
        };
        self.substitute(&p.value).map(Some).map_err(|depth| {
            let (origin, name, value) = (p.origin.clone(), name.to_string(), shorten(&p.value));
            if depth {
                ConfError::SubstDepth {
                    origin,
                    name,
                    value,
                }
            } else {
                ConfError::SubstLength {
                    origin,
                    name,
                    value,
                }
            }
        })
    }

    /// The expanded, trimmed value; `None` when unset or blank.
    pub fn get_trimmed(&self, name: &str) -> Result<Option<String>, ConfError> {
        Ok(self
            .get(name)?
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty()))
    }

    fn bad(&self, name: &str, value: &str, problem: impl Into<String>) -> ConfError {
        ConfError::BadValue {
            origin: self.origin(name).cloned().unwrap_or(Origin {
                file: Arc::from("?"),
                line: 0,
            }),
            name: name.to_string(),
            value: shorten(value),
            problem: problem.into(),
        }
    }

    fn required(&self, name: &str) -> Result<String, ConfError> {
        self.get_trimmed(name)?.ok_or_else(|| ConfError::Missing {
            name: name.to_string(),
        })
    }

    /// A decimal or `0x` hexadecimal integer (`getLong`).
    pub fn get_i64(&self, name: &str) -> Result<i64, ConfError> {
        let v = self.required(name)?;
        parse_i64(&v).ok_or_else(|| self.bad(name, &v, "is not an integer"))
    }

    /// An integer that must fit a `u32` and be at least `min`.
    pub fn get_u32_min(&self, name: &str, min: u32) -> Result<u32, ConfError> {
        let n = self.get_i64(name)?;
        u32::try_from(n).ok().filter(|&n| n >= min).ok_or_else(|| {
            self.bad(
                name,
                &n.to_string(),
                format!("must be between {min} and {}", u32::MAX),
            )
        })
    }

    /// A byte count with an optional binary suffix k, m, g, t, p, e
    /// (`getLongBytes`, `TraditionalBinaryPrefix.string2long`).
    pub fn get_bytes(&self, name: &str) -> Result<i64, ConfError> {
        let v = self.required(name)?;
        parse_bytes(&v).map_err(|p| self.bad(name, &v, p))
    }

    /// A duration with an optional suffix ns, us, ms, s, m, h, d; a bare
    /// number is in `unit` (`getTimeDuration`).
    pub fn get_duration(&self, name: &str, unit: Duration) -> Result<Duration, ConfError> {
        let v = self.required(name)?;
        parse_duration(&v, unit).map_err(|p| self.bad(name, &v, p))
    }

    /// `true` or `false`, any case (`getBoolean`, which Hadoop would silently
    /// default; a typo is reported here instead).
    pub fn get_bool(&self, name: &str) -> Result<bool, ConfError> {
        let v = self.required(name)?;
        match v.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.bad(name, &v, "is not a boolean (true or false)")),
        }
    }

    /// A finite float (`getDouble`).
    pub fn get_f64(&self, name: &str) -> Result<f64, ConfError> {
        let v = self.required(name)?;
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| self.bad(name, &v, "is not a finite number"))
    }

    /// Comma-separated values, each trimmed, empty ones dropped
    /// (`getTrimmedStrings`); empty when unset.
    pub fn get_trimmed_strings(&self, name: &str) -> Result<Vec<String>, ConfError> {
        Ok(self
            .get(name)?
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default())
    }

    fn lookup_env(&self, name: &str) -> Option<String> {
        match &self.env {
            Some(m) => m.get(name).cloned(),
            None => std::env::var(name).ok(),
        }
    }

    /// Hadoop's `substituteVars`; `Err(true)` when the depth limit is hit,
    /// `Err(false)` when the value grows past [`MAX_EXPANDED`].
    fn substitute(&self, expr: &str) -> Result<String, bool> {
        let mut eval = expr.to_string();
        for _ in 0..MAX_SUBST {
            let Some((start, end)) = find_sub_variable(&eval) else {
                return Ok(eval);
            };
            let var = &eval[start + 2..end - 1];
            let mut val = None;
            if let Some(env) = var.strip_prefix("env.") {
                val = if let Some(i) = env.find(":-").filter(|&i| i > 0) {
                    let v = self.lookup_env(&env[..i]).filter(|v| !v.is_empty());
                    Some(v.unwrap_or_else(|| env[i + 2..].to_string()))
                } else if let Some(i) = env.find('-').filter(|&i| i > 0) {
                    Some(
                        self.lookup_env(&env[..i])
                            .unwrap_or_else(|| env[i + 1..].to_string()),
                    )
                } else {
                    self.lookup_env(env)
                };
            }
            // Java system properties: only user.name has a meaning here.
            if val.is_none() && var == "user.name" {
                val = self.lookup_env("USER");
            }
            if val.is_none() {
                val = self.get_raw(var).map(String::from);
            }
            let Some(val) = val else {
                // Unbound: the literal ${var} stays.
                return Ok(eval);
            };
            if val.contains(&format!("${{{var}}}")) {
                // Self-reference: Hadoop gives back the original expression.
                return Ok(expr.to_string());
            }
            if eval.len() - (end - start) + val.len() > MAX_EXPANDED {
                return Err(false);
            }
            eval = format!("{}{}{}", &eval[..start], val, &eval[end..]);
        }
        Err(true)
    }
}

/// A value for an error message: at most 100 characters, then how long it was
/// (a 50 MB bad value is not echoed in full).
pub fn shorten(v: &str) -> String {
    const SHOWN: usize = 100;
    match v.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}... ({} bytes in all)", &v[..cut], v.len()),
        None => v.to_string(),
    }
}

/// Left-most `${name}` (start, end exclusive) whose name holds no space or
/// `$` (`Configuration.findSubVariable`).
fn find_sub_variable(s: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'$' && b[i + 1] == b'{' {
            let mut j = i + 2;
            loop {
                match b.get(j) {
                    None => return None,
                    Some(b'}') if j > i + 2 => return Some((i, j + 1)),
                    Some(b'}') => {
                        i = j + 1;
                        break;
                    }
                    Some(b'$') | Some(b' ') => {
                        i = j;
                        break;
                    }
                    Some(_) => j += 1,
                }
            }
        } else {
            i += 1;
        }
    }
    None
}

/// What one resource may still read.
#[derive(Default)]
struct Budget {
    includes: usize,
    bytes: u64,
}

fn read(path: &Path, shown: &str, budget: &mut Budget) -> Result<String, ConfError> {
    let left = MAX_RESOURCE_BYTES.saturating_sub(budget.bytes);
    let text =
        crate::input::read_text_bounded(path, left, "configuration", "").map_err(|e| match e {
            crate::input::InputError::TooLarge { .. } => ConfError::TooLarge {
                file: shown.to_string(),
            },
            crate::input::InputError::Io { source, .. } => ConfError::Io {
                file: shown.to_string(),
                source,
            },
        })?;
    budget.bytes += text.len() as u64;
    Ok(text)
}

fn line_at(text: &str, pos: u64) -> usize {
    Lines::default().at(text, pos)
}

/// Line numbers of increasing positions, counting only the newlines since
/// the last position asked for (a rescan per XML event is quadratic).
#[derive(Default)]
struct Lines {
    pos: usize,
    line: usize,
}

impl Lines {
    fn at(&mut self, text: &str, pos: u64) -> usize {
        let end = (pos as usize).min(text.len());
        if end < self.pos {
            *self = Lines::default();
        }
        self.line += text.as_bytes()[self.pos..end]
            .iter()
            .filter(|&&c| c == b'\n')
            .count();
        self.pos = end;
        1 + self.line
    }
}

/// Which text the parser is collecting.
#[derive(Clone, Copy, PartialEq)]
enum Field {
    None,
    Name,
    Value,
    Final,
}

fn parse_resource(
    text: &str,
    file: &Arc<str>,
    base_dir: Option<&Path>,
    depth: usize,
    budget: &mut Budget,
    out: &mut Vec<RawProperty>,
) -> Result<(), ConfError> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let xml_err = |line: usize, detail: String| ConfError::Xml {
        file: file.to_string(),
        line,
        detail,
    };
    let mut cur: Option<RawProperty> = None;
    let mut field = Field::None;
    let mut buf = String::new();
    // An include whose target is missing, waiting for a <fallback> child.
    let mut pending_include: Option<(String, String, usize)> = None;
    let mut seen_root = false;
    let mut lines = Lines::default();
    loop {
        let before = reader.buffer_position();
        let ev = reader
            .read_event()
            .map_err(|e| xml_err(line_at(text, reader.error_position()), e.to_string()))?;
        let line = lines.at(text, before);
        match ev {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(ev, Event::Empty(_));
                seen_root = true;
                match e.local_name().as_ref() {
                    b"property" => {
                        let mut p = RawProperty {
                            name: String::new(),
                            value: None,
                            is_final: false,
                            origin: Origin {
                                file: file.clone(),
                                line,
                            },
                        };
                        short_format(e, &mut p).map_err(|d| xml_err(line, d))?;
                        if empty {
                            finish(p, out)?;
                        } else {
                            cur = Some(p);
                        }
                    }
                    b"name" | b"value" | b"final" if cur.is_some() && !empty => {
                        field = match e.local_name().as_ref() {
                            b"name" => Field::Name,
                            b"value" => Field::Value,
                            _ => Field::Final,
                        };
                        buf.clear();
                    }
                    b"include" => {
                        let href = attr(e, b"href")
                            .map_err(|d| xml_err(line, d))?
                            .ok_or_else(|| xml_err(line, "<include> without href".into()))?;
                        let path = match base_dir {
                            Some(d) => d.join(&href),
                            None => PathBuf::from(&href),
                        };
                        // Text without a location has nothing to resolve against.
                        if base_dir.is_some() && path.is_file() {
                            if depth >= MAX_INCLUDE_DEPTH {
                                return Err(ConfError::IncludeLoop {
                                    file: file.to_string(),
                                    line,
                                    href,
                                });
                            }
                            budget.includes += 1;
                            if budget.includes > MAX_INCLUDES {
                                return Err(ConfError::TooManyIncludes {
                                    file: file.to_string(),
                                    line,
                                    href,
                                });
                            }
                            let shown = path.display().to_string();
                            let inc = read(&path, &shown, budget)?;
                            let name: Arc<str> = Arc::from(shown.as_str());
                            parse_resource(&inc, &name, path.parent(), depth + 1, budget, out)?;
                            if !empty {
                                pending_include = None;
                            }
                        } else if empty {
                            return Err(ConfError::MissingInclude {
                                file: file.to_string(),
                                line,
                                href,
                                path: path.display().to_string(),
                            });
                        } else {
                            pending_include = Some((href, path.display().to_string(), line));
                        }
                    }
                    // Any <fallback> satisfies a missing include.
                    b"fallback" => pending_include = None,
                    _ => {}
                }
            }
            Event::End(ref e) => match e.local_name().as_ref() {
                b"property" => {
                    if let Some(p) = cur.take() {
                        finish(p, out)?;
                    }
                }
                b"name" | b"value" | b"final" if field != Field::None => {
                    if let Some(p) = cur.as_mut() {
                        match field {
                            Field::Name => p.name = buf.trim().to_string(),
                            Field::Value => p.value = Some(buf.clone()).filter(|v| !v.is_empty()),
                            Field::Final => p.is_final = buf == "true",
                            Field::None => {}
                        }
                    }
                    field = Field::None;
                }
                b"include" => {
                    if let Some((href, path, line)) = pending_include.take() {
                        return Err(ConfError::MissingInclude {
                            file: file.to_string(),
                            line,
                            href,
                            path,
                        });
                    }
                }
                _ => {}
            },
            Event::Text(t) if field != Field::None => {
                let s = t.unescape().map_err(|e| xml_err(line, e.to_string()))?;
                buf.push_str(&s);
            }
            Event::CData(t) if field != Field::None => {
                buf.push_str(&String::from_utf8_lossy(&t.into_inner()));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !seen_root {
        return Err(xml_err(
            line_at(text, text.len() as u64),
            "no root element".into(),
        ));
    }
    Ok(())
}

fn finish(p: RawProperty, out: &mut Vec<RawProperty>) -> Result<(), ConfError> {
    if p.name.is_empty() {
        return Err(ConfError::NoName {
            file: p.origin.file.to_string(),
            line: p.origin.line,
        });
    }
    out.push(p);
    Ok(())
}

fn attr(e: &BytesStart, key: &[u8]) -> Result<Option<String>, String> {
    for a in e.attributes() {
        let a = a.map_err(|e| e.to_string())?;
        if a.key.local_name().as_ref() == key {
            return Ok(Some(
                a.unescape_value().map_err(|e| e.to_string())?.into_owned(),
            ));
        }
    }
    Ok(None)
}

/// `<property name=".." value=".." final="true"/>`.
fn short_format(e: &BytesStart, p: &mut RawProperty) -> Result<(), String> {
    if let Some(n) = attr(e, b"name")? {
        p.name = n.trim().to_string();
    }
    if let Some(v) = attr(e, b"value")? {
        p.value = Some(v).filter(|v| !v.is_empty());
    }
    if let Some(f) = attr(e, b"final")? {
        p.is_final = f == "true";
    }
    Ok(())
}

fn parse_i64(v: &str) -> Option<i64> {
    let (neg, digits) = match v.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, v),
    };
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        // Hex digits only (Hadoop's getHexDigits): no second sign.
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let n = i64::from_str_radix(hex, 16).ok()?;
        return if neg { n.checked_neg() } else { Some(n) };
    }
    v.parse().ok()
}

/// `TraditionalBinaryPrefix.string2long`.
pub fn parse_bytes(v: &str) -> Result<i64, String> {
    let v = v.trim();
    let Some(last) = v.chars().last() else {
        return Err("is empty".into());
    };
    let shift = match last.to_ascii_lowercase() {
        'k' => 10,
        'm' => 20,
        'g' => 30,
        't' => 40,
        'p' => 50,
        'e' => 60,
        c if c.is_ascii_digit() => 0,
        _ => {
            return Err(
                "is not a byte count (an integer with an optional suffix k, m, g, t, p or e)"
                    .into(),
            )
        }
    };
    let num = if shift == 0 { v } else { &v[..v.len() - 1] };
    let n: i64 = num.parse().map_err(|_| {
        "is not a byte count (an integer with an optional suffix k, m, g, t, p or e)".to_string()
    })?;
    n.checked_mul(1i64 << shift)
        .ok_or_else(|| "does not fit in a 64-bit byte count".into())
}

/// `Configuration.getTimeDuration` with `ParsedTimeDuration` suffixes.
pub fn parse_duration(v: &str, unit: Duration) -> Result<Duration, String> {
    let v = v.trim();
    const UNITS: [(&str, u64); 7] = [
        ("ns", 1),
        ("us", 1_000),
        ("ms", 1_000_000),
        ("s", 1_000_000_000),
        ("m", 60_000_000_000),
        ("h", 3_600_000_000_000),
        ("d", 86_400_000_000_000),
    ];
    let lower = v.to_ascii_lowercase();
    let (num, nanos) = match UNITS.iter().find(|(s, _)| lower.ends_with(s)) {
        Some((s, n)) => (&v[..v.len() - s.len()], *n as u128),
        None => (v, unit.as_nanos()),
    };
    let n: u64 = num.trim().parse().map_err(|_| {
        "is not a duration (a non-negative integer with an optional unit ns, us, ms, s, m, h or d)"
            .to_string()
    })?;
    let total = (n as u128)
        .checked_mul(nanos)
        .filter(|&t| t <= u64::MAX as u128);
    let total = total.ok_or_else(|| "is too long a duration".to_string())?;
    Ok(Duration::from_nanos(total as u64))
}

/// Key names Spindle reads.
pub mod keys {
    pub const NAMENODE_HTTP_ADDRESS: &str = "dfs.namenode.http-address";
    pub const REPLICATION: &str = "dfs.replication";
    pub const BLOCK_SIZE: &str = "dfs.blocksize";
    pub const TOPOLOGY_MAPPING: &str = "net.topology.node.switch.mapping.impl";
    pub const TOPOLOGY_TABLE: &str = "net.topology.table.file.name";
    pub const TOPOLOGY_SCRIPT: &str = "net.topology.script.file.name";
    pub const TOPOLOGY_SCRIPT_ARGS: &str = "net.topology.script.number.args";
    pub const NM_HEARTBEAT: &str = "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms";
    pub const POLICY: &str = "spindle.policy";
    pub const COST_LOCAL: &str = "spindle.cost.local";
    pub const COST_REMOTE: &str = "spindle.cost.remote";
    pub const COST_REMOTE_GROWTH: &str = "spindle.cost.remote-growth";
    pub const FALLBACK: &str = "spindle.fallback";
    pub const WEBHDFS_ADDRESS: &str = "spindle.webhdfs.address";
    pub const WEBHDFS_CONNECT_TIMEOUT: &str = "spindle.webhdfs.connect-timeout";
    pub const WEBHDFS_READ_TIMEOUT: &str = "spindle.webhdfs.read-timeout";
    pub const NODE_DELAY: &str = "spindle.locality.node-delay";
    pub const RACK_ADDITIONAL_DELAY: &str = "spindle.locality.rack-additional-delay";
    pub const MAX_WAIT: &str = "spindle.locality.max-wait-ms";
    pub const MAX_OFFSWITCH: &str = "spindle.per-node-heartbeat.maximum-offswitch-assignments";
    pub const JOB_ORDER: &str = "spindle.job.order";
    pub const LIBRARY_PATH: &str = "spindle.library.path";
    pub const SEED: &str = "spindle.seed";
    pub const TOPOLOGY_SCRIPT_TIMEOUT: &str = "spindle.topology.script.timeout";
    pub const TOPOLOGY_SCRIPT_MAX_OUTPUT: &str = "spindle.topology.script.max-output";
    pub const WEBHDFS_MAX_RESPONSE: &str = "spindle.webhdfs.max-response";
    pub const WEBHDFS_MAX_DEPTH: &str = "spindle.webhdfs.max-depth";
    pub const WEBHDFS_MAX_FILES: &str = "spindle.webhdfs.max-files";
    /// Hadoop's own cap on a job's split meta-info file (-1: none).
    pub const SPLIT_METAINFO_MAXSIZE: &str = "mapreduce.job.split.metainfo.maxsize";
}

/// Defaults: Hadoop's (`*-default.xml`, see the facts file) and Spindle's.
/// Unset optional keys (topology files, library path) are absent.
pub const DEFAULTS: [(&str, &str); 25] = [
    (keys::NAMENODE_HTTP_ADDRESS, "0.0.0.0:9870"),
    (keys::REPLICATION, "3"),
    (keys::BLOCK_SIZE, "134217728"),
    (
        keys::TOPOLOGY_MAPPING,
        "org.apache.hadoop.net.ScriptBasedMapping",
    ),
    (keys::TOPOLOGY_SCRIPT_ARGS, "100"),
    (keys::NM_HEARTBEAT, "1000"),
    // The same defaults as the RM plugin's SpindleSettings.java.
    (keys::POLICY, "asm1"),
    (keys::COST_LOCAL, "1.0"),
    (keys::COST_REMOTE, "3.0"),
    (keys::COST_REMOTE_GROWTH, "0.0"),
    (keys::FALLBACK, "fifo"),
    (keys::WEBHDFS_CONNECT_TIMEOUT, "60s"),
    (keys::WEBHDFS_READ_TIMEOUT, "60s"),
    (keys::NODE_DELAY, "40"),
    (keys::RACK_ADDITIONAL_DELAY, "-1"),
    (keys::MAX_WAIT, "3000"),
    (keys::MAX_OFFSWITCH, "1"),
    (keys::JOB_ORDER, "weighted-remaining"),
    (keys::SEED, "1"),
    // Limits on what the readers take from outside; no cluster comes near
    // them (docs/admin-guide.md's table of limits documents each).
    (keys::TOPOLOGY_SCRIPT_TIMEOUT, "60s"),
    (keys::TOPOLOGY_SCRIPT_MAX_OUTPUT, "1m"),
    (keys::WEBHDFS_MAX_RESPONSE, "256m"),
    // HDFS's own limit on path depth (INodeDirectory.MAX_PATH_DEPTH).
    (keys::WEBHDFS_MAX_DEPTH, "1000"),
    (keys::WEBHDFS_MAX_FILES, "1000000"),
    (keys::SPLIT_METAINFO_MAXSIZE, "10000000"),
];

/// The typed settings Spindle uses.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub namenode_http_address: String,
    pub replication: u32,
    pub block_size: i64,
    /// `net.topology.node.switch.mapping.impl`: which of the two below Hadoop uses.
    pub topology_mapping: String,
    pub topology_table: Option<PathBuf>,
    pub topology_script: Option<PathBuf>,
    pub topology_script_args: usize,
    pub nm_heartbeat: Duration,
    pub policy: String,
    pub cost: spindle_core::CostModel,
    /// What the plugin does on a heartbeat the core cannot serve: "fifo"
    /// (allocate as FifoScheduler would) or "none".
    pub fallback: String,
    /// WebHDFS base URLs tried in order (HA); from `spindle.webhdfs.address`,
    /// else `http://` + `dfs.namenode.http-address`.
    pub webhdfs: Vec<String>,
    pub webhdfs_connect_timeout: Duration,
    pub webhdfs_read_timeout: Duration,
    pub node_delay: i32,
    pub rack_additional_delay: i32,
    /// `spindle.locality.max-wait-ms`: the Session's locality-wait cap.
    pub max_wait_ms: i64,
    /// `spindle.per-node-heartbeat.maximum-offswitch-assignments`: the
    /// Session's off-switch containers per node heartbeat (at least 1).
    pub max_offswitch: u32,
    /// `spindle.job.order`: the Session's application order.
    pub job_order: spindle_core::session::JobOrder,
    pub library_path: Option<String>,
    pub seed: u64,
    /// A topology script run is killed past this time...
    pub topology_script_timeout: Duration,
    /// ...or once it has printed more than this many bytes.
    pub topology_script_max_output: usize,
    /// Largest WebHDFS response body read, in bytes.
    pub webhdfs_max_response: u64,
    /// Deepest directory level the WebHDFS input walk enters.
    pub webhdfs_max_depth: usize,
    /// Most input files the WebHDFS walk collects.
    pub webhdfs_max_files: usize,
    /// `mapreduce.job.split.metainfo.maxsize`; `None` when Hadoop's -1 (no limit).
    pub split_metainfo_maxsize: Option<u64>,
}

impl Settings {
    pub fn from_conf(c: &Configuration) -> Result<Settings, ConfError> {
        let ms = Duration::from_millis(1);
        let nn = c.required(keys::NAMENODE_HTTP_ADDRESS)?;
        let mut webhdfs = c.get_trimmed_strings(keys::WEBHDFS_ADDRESS)?;
        if webhdfs.is_empty() {
            webhdfs.push(format!("http://{nn}"));
        }
        let cost = spindle_core::CostModel {
            local: nonneg(c, keys::COST_LOCAL)?,
            remote: nonneg(c, keys::COST_REMOTE)?,
            remote_growth: nonneg(c, keys::COST_REMOTE_GROWTH)?,
        };
        let bs = c.get_bytes(keys::BLOCK_SIZE)?;
        if bs <= 0 {
            return Err(c.bad(keys::BLOCK_SIZE, &bs.to_string(), "must be positive"));
        }
        Ok(Settings {
            namenode_http_address: nn,
            replication: c.get_u32_min(keys::REPLICATION, 1)?,
            block_size: bs,
            topology_mapping: c.required(keys::TOPOLOGY_MAPPING)?,
            topology_table: c.get_trimmed(keys::TOPOLOGY_TABLE)?.map(PathBuf::from),
            topology_script: c.get_trimmed(keys::TOPOLOGY_SCRIPT)?.map(PathBuf::from),
            topology_script_args: c.get_u32_min(keys::TOPOLOGY_SCRIPT_ARGS, 1)? as usize,
            nm_heartbeat: c.get_duration(keys::NM_HEARTBEAT, ms)?,
            policy: policy(c)?,
            cost,
            fallback: fallback(c)?,
            webhdfs,
            webhdfs_connect_timeout: positive_duration(c, keys::WEBHDFS_CONNECT_TIMEOUT)?,
            webhdfs_read_timeout: positive_duration(c, keys::WEBHDFS_READ_TIMEOUT)?,
            node_delay: get_i32(c, keys::NODE_DELAY)?,
            rack_additional_delay: get_i32(c, keys::RACK_ADDITIONAL_DELAY)?,
            max_wait_ms: max_wait(c)?,
            max_offswitch: c.get_u32_min(keys::MAX_OFFSWITCH, 1)?,
            job_order: job_order(c)?,
            library_path: c.get_trimmed(keys::LIBRARY_PATH)?,
            seed: c.get_i64(keys::SEED).and_then(|v| {
                u64::try_from(v)
                    .map_err(|_| c.bad(keys::SEED, &v.to_string(), "must not be negative"))
            })?,
            topology_script_timeout: positive_duration(c, keys::TOPOLOGY_SCRIPT_TIMEOUT)?,
            topology_script_max_output: positive_bytes(c, keys::TOPOLOGY_SCRIPT_MAX_OUTPUT)?
                as usize,
            webhdfs_max_response: positive_bytes(c, keys::WEBHDFS_MAX_RESPONSE)?,
            webhdfs_max_depth: c.get_u32_min(keys::WEBHDFS_MAX_DEPTH, 1)? as usize,
            webhdfs_max_files: c.get_u32_min(keys::WEBHDFS_MAX_FILES, 1)? as usize,
            split_metainfo_maxsize: match c.get_bytes(keys::SPLIT_METAINFO_MAXSIZE)? {
                -1 => None,
                n if n > 0 => Some(n as u64),
                n => {
                    return Err(c.bad(
                        keys::SPLIT_METAINFO_MAXSIZE,
                        &n.to_string(),
                        "must be positive, or -1 for no limit",
                    ))
                }
            },
        })
    }
}

/// A duration that must not be zero: a zero timeout fails every request
/// at once, so it is refused here rather than reported per request.
fn positive_duration(c: &Configuration, name: &str) -> Result<Duration, ConfError> {
    let d = c.get_duration(name, Duration::from_millis(1))?;
    if d.is_zero() {
        return Err(c.bad(name, &c.required(name)?, "must be longer than 0"));
    }
    Ok(d)
}

/// A byte count that must be positive and fit the platform's sizes.
fn positive_bytes(c: &Configuration, name: &str) -> Result<u64, ConfError> {
    let n = c.get_bytes(name)?;
    if n <= 0 || usize::try_from(n).is_err() {
        return Err(c.bad(name, &n.to_string(), "must be a positive byte count"));
    }
    Ok(n as u64)
}

/// `spindle.policy` must name a policy; the error says where it was set.
fn policy(c: &Configuration) -> Result<String, ConfError> {
    let v = c.required(keys::POLICY)?;
    if let Some(i) = v.find("${") {
        let var = v[i..].split('}').next().unwrap_or("${");
        return Err(c.bad(
            keys::POLICY,
            &v,
            format!("holds {var}}}, which no property or environment variable defines"),
        ));
    }
    spindle_core::PolicyKind::from_name(&v).map_err(|_| {
        let known: Vec<&str> = spindle_core::PolicyKind::ALL
            .iter()
            .map(|p| p.name())
            .collect();
        c.bad(
            keys::POLICY,
            &v,
            format!("is not a policy; known policies: {}", known.join(", ")),
        )
    })?;
    Ok(v)
}

impl Settings {
    /// The Session's configuration: policy, cost model and locality delays.
    pub fn session_config(
        &self,
        seed: u64,
    ) -> Result<spindle_core::SessionConfig, spindle_core::CoreError> {
        Ok(spindle_core::SessionConfig {
            policy: spindle_core::PolicyKind::from_name(&self.policy)?,
            cost: self.cost,
            seed,
            delay: spindle_core::policy::delay::LocalityDelay {
                node_locality_delay: self.node_delay,
                rack_locality_additional_delay: self.rack_additional_delay,
            },
            max_wait_ms: self.max_wait_ms,
            job_order: self.job_order,
            offswitch_per_heartbeat: self.max_offswitch,
            ..spindle_core::SessionConfig::default()
        })
    }
}

fn fallback(c: &Configuration) -> Result<String, ConfError> {
    let v = c.required(keys::FALLBACK)?;
    match v.trim() {
        "fifo" | "none" => Ok(v.trim().to_string()),
        _ => Err(c.bad(keys::FALLBACK, &v, "expected \"fifo\" or \"none\"")),
    }
}

/// A day at most: a longer locality wait is no scheduler; negative: none.
fn max_wait(c: &Configuration) -> Result<i64, ConfError> {
    let n = c.get_i64(keys::MAX_WAIT)?;
    if n > 86_400_000 {
        return Err(c.bad(
            keys::MAX_WAIT,
            &n.to_string(),
            "must be at most 86400000 (a day), or negative for no cap",
        ));
    }
    Ok(n)
}

/// `spindle.job.order` must name an order; the error lists them.
fn job_order(c: &Configuration) -> Result<spindle_core::session::JobOrder, ConfError> {
    use spindle_core::session::JobOrder;
    let v = c.required(keys::JOB_ORDER)?;
    JobOrder::from_name(v.trim()).ok_or_else(|| {
        c.bad(
            keys::JOB_ORDER,
            &v,
            format!("is not a job order; known orders: {}", JobOrder::names()),
        )
    })
}

fn get_i32(c: &Configuration, name: &str) -> Result<i32, ConfError> {
    let n = c.get_i64(name)?;
    i32::try_from(n).map_err(|_| c.bad(name, &n.to_string(), "does not fit in a 32-bit integer"))
}

fn nonneg(c: &Configuration, name: &str) -> Result<f64, ConfError> {
    let x = c.get_f64(name)?;
    if x < 0.0 {
        return Err(c.bad(name, &x.to_string(), "must be >= 0"));
    }
    Ok(x)
}

/// Parses one resource's text for the fuzzers: never panics.
pub fn fuzz_parse(text: &str) {
    let mut c = Configuration::with_defaults();
    c.set_env(HashMap::new());
    if c.add_str(text, "fuzz.xml", None).is_ok() {
        let names: Vec<String> = c.props.keys().cloned().collect();
        for n in names {
            let _ = c.get(&n);
            let _ = c.get_bytes(&n);
            let _ = c.get_duration(&n, Duration::from_millis(1));
        }
        let _ = Settings::from_conf(&c);
    }
}
