//! The runtime crate's one error type.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("bad device spec `{spec}`: {reason}")]
    BadSpec { spec: String, reason: String },
    #[error(transparent)]
    Driver(#[from] baregpu_drivers::Error),
}

pub type Result<T> = std::result::Result<T, Error>;
