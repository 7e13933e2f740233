//! The facade's error type: what the command-line tool prints as its one error line.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Driver(#[from] baregpu_drivers::Error),
    #[error(transparent)]
    Runtime(#[from] baregpu_runtime::Error),
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}

pub type Result<T> = std::result::Result<T, Error>;
