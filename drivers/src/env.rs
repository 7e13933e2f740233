//! Settings read from the environment that more than one crate honours.

use std::time::Duration;

/// `var` as a positive number of milliseconds, else `default`. A value that is set but not such
/// a number is said on stderr (at the default log level) rather than ignored silently.
pub fn millis(var: &str, default: Duration) -> Duration {
    let Ok(v) = std::env::var(var) else { return default };
    match v.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Duration::from_millis(ms),
        _ => {
            log::error!("{var}={v:?} is not a positive number of milliseconds; using {} ms", default.as_millis());
            default
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positive_millis_or_the_default() {
        let d = Duration::from_secs(7);
        // A variable of this test's own: tests run in threads of one process.
        let var = "BAREGPU_TEST_ENV_MILLIS";
        std::env::remove_var(var);
        assert_eq!(millis(var, d), d);
        for (v, want) in [("250", Duration::from_millis(250)), (" 3 ", Duration::from_millis(3)), ("0", d), ("x", d)] {
            std::env::set_var(var, v);
            assert_eq!(millis(var, d), want, "{v:?}");
        }
        std::env::remove_var(var);
    }
}
