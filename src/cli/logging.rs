//! `BAREGPU_LOG`: the log filter. By default only `error` records show, so that a failing
//! command prints one line (its error); the context behind it (faults, teardown, retries) is
//! logged at warn and below, for `BAREGPU_LOG=warn` or finer. A filter env_logger would silently
//! ignore (`BAREGPU_LOG=junk!!`, or a misspelt level that reads as a module name) is an error, so
//! that asking for logs never quietly gives none.

use baregpu::{Error, Result};

/// The level when `BAREGPU_LOG` is unset.
pub const DEFAULT: &str = "error";
const LEVELS: &[&str] = &["off", "error", "warn", "info", "debug", "trace"];

fn is_level(s: &str) -> bool {
    LEVELS.iter().any(|l| l.eq_ignore_ascii_case(s))
}

fn is_module_path(s: &str) -> bool {
    !s.is_empty()
        && s.split("::")
            .all(|seg| !seg.is_empty() && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
}

/// Checks a filter in env_logger's syntax (`DIRECTIVE[,DIRECTIVE...][/REGEX]`, each directive
/// `LEVEL`, `MODULE` or `MODULE=LEVEL`). A bare word must be a level or one of our modules
/// (`baregpu…`), since a misspelt level would otherwise switch every log off.
pub fn check_filter(filter: &str) -> std::result::Result<(), String> {
    let directives = filter.split_once('/').map_or(filter, |(d, _)| d);
    let levels = LEVELS.join(", ");
    for d in directives.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        match d.split_once('=') {
            Some((module, level)) => {
                if !is_module_path(module) {
                    return Err(format!("`{module}` is not a module path"));
                }
                if !is_level(level) {
                    return Err(format!("`{level}` is not a level ({levels})"));
                }
            }
            None if is_level(d) => {}
            None if is_module_path(d) && d.starts_with("baregpu") => {}
            None => return Err(format!("`{d}` is neither a level ({levels}) nor a baregpu module path")),
        }
    }
    Ok(())
}

/// Installs the logger; a malformed `BAREGPU_LOG` is an error.
pub fn init() -> Result<()> {
    let filter = match std::env::var("BAREGPU_LOG") {
        Ok(f) => {
            check_filter(&f).map_err(|why| Error::Usage(format!("BAREGPU_LOG=`{f}`: {why}")))?;
            f
        }
        Err(std::env::VarError::NotPresent) => DEFAULT.to_string(),
        Err(std::env::VarError::NotUnicode(_)) => return Err(Error::Usage("BAREGPU_LOG is not UTF-8".into())),
    };
    env_logger::Builder::new().parse_filters(&filter).format_timestamp_micros().init();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_filter;

    #[test]
    fn filters_env_logger_would_ignore_are_refused() {
        for ok in ["warn", "DEBUG", "baregpu_drivers=debug", "info,baregpu_emu::nv=trace", "baregpu_runtime", "off/x"] {
            assert!(check_filter(ok).is_ok(), "{ok}");
        }
        for (bad, why) in [
            ("junk!!", "neither a level"),
            ("debg", "neither a level"),
            ("baregpu_drivers=loud", "not a level"),
            ("a b=info", "not a module path"),
        ] {
            let e = check_filter(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
