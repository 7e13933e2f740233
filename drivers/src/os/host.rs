//! The real OS. Paths may be re-rooted so that tests and bring-up tools can point discovery at a
//! captured copy of another machine's /sys and /proc.

use super::Os;
use crate::{Error, Result};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default)]
pub struct HostOs {
    root: Option<PathBuf>,
}

impl HostOs {
    /// The running system.
    pub fn new() -> Self {
        HostOs { root: None }
    }

    /// Every absolute path is looked up under `root` instead of `/`.
    pub fn with_root(root: impl Into<PathBuf>) -> Self {
        HostOs { root: Some(root.into()) }
    }

    fn resolve(&self, path: &Path) -> PathBuf {
        match &self.root {
            None => path.to_path_buf(),
            Some(root) => root.join(path.strip_prefix("/").unwrap_or(path)),
        }
    }
}

impl Os for HostOs {
    fn read_to_string(&self, path: &Path) -> Result<String> {
        std::fs::read_to_string(self.resolve(path)).map_err(|e| Error::io(path, e))
    }

    fn read_dir(&self, path: &Path) -> Result<Vec<String>> {
        let dir = std::fs::read_dir(self.resolve(path)).map_err(|e| Error::io(path, e))?;
        let mut names = Vec::new();
        for entry in dir {
            let entry = entry.map_err(|e| Error::io(path, e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    fn exists(&self, path: &Path) -> bool {
        self.resolve(path).exists()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rerooted_paths_resolve_under_root() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sys/x")).unwrap();
        std::fs::write(dir.path().join("sys/x/a"), "1\n").unwrap();
        std::fs::write(dir.path().join("sys/x/b"), "2\n").unwrap();
        let os = HostOs::with_root(dir.path());
        assert_eq!(os.read_to_string(Path::new("/sys/x/a")).unwrap(), "1\n");
        assert_eq!(os.read_dir(Path::new("/sys/x")).unwrap(), vec!["a", "b"]);
        assert!(os.exists(Path::new("/sys/x/b")));
        let err = os.read_to_string(Path::new("/sys/x/c")).unwrap_err();
        assert!(err.is_not_found());
        // The error names the path the driver asked for, not the re-rooted one.
        assert!(err.to_string().starts_with("/sys/x/c: "), "{err}");
    }
}
