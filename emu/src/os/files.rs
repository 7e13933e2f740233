//! The open files of an emulated OS: fd numbers handed out from a base far from the host's own,
//! each fd a device node of the emulator, a read-only text file (sysfs, procfs) or a real
//! eventfd of the host.

use std::collections::HashMap;
use std::path::PathBuf;

/// What an fd of the emulated OS refers to. `N` is the emulator's own kind of device node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OpenFile<N> {
    Node(N),
    /// A text file the emulator serves (its contents are produced on read).
    Text(PathBuf),
    /// A real eventfd of the host, under its host fd number.
    HostEventfd,
}

/// The fd table.
#[derive(Debug)]
pub(crate) struct FileTable<N> {
    open: HashMap<i32, OpenFile<N>>,
    next: i32,
}

impl<N> FileTable<N> {
    /// A table whose fds count up from `first`.
    pub(crate) fn new(first: i32) -> FileTable<N> {
        FileTable { open: HashMap::new(), next: first }
    }

    /// A new fd for `file`; EMFILE when the numbers run out.
    pub(crate) fn insert(&mut self, file: OpenFile<N>) -> Result<i32, i32> {
        let fd = self.next;
        self.next = fd.checked_add(1).ok_or(libc::EMFILE)?;
        self.open.insert(fd, file);
        Ok(fd)
    }

    /// A host eventfd under the number the host gave it.
    pub(crate) fn insert_host_eventfd(&mut self, fd: i32) {
        self.open.insert(fd, OpenFile::HostEventfd);
    }

    pub(crate) fn file(&self, fd: i32) -> Option<&OpenFile<N>> {
        self.open.get(&fd)
    }

    pub(crate) fn remove(&mut self, fd: i32) -> Option<OpenFile<N>> {
        self.open.remove(&fd)
    }

    /// The device node open as `fd`, if it is one.
    pub(crate) fn get(&self, fd: &i32) -> Option<&N> {
        match self.open.get(fd) {
            Some(OpenFile::Node(n)) => Some(n),
            _ => None,
        }
    }

    pub(crate) fn get_mut(&mut self, fd: &i32) -> Option<&mut N> {
        match self.open.get_mut(fd) {
            Some(OpenFile::Node(n)) => Some(n),
            _ => None,
        }
    }

    /// Every open device node.
    pub(crate) fn nodes(&self) -> impl Iterator<Item = &N> {
        self.open.values().filter_map(|f| match f {
            OpenFile::Node(n) => Some(n),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_count_up_and_run_out_with_emfile() {
        let mut t: FileTable<u8> = FileTable::new(i32::MAX - 1);
        assert_eq!(t.insert(OpenFile::Node(1)), Ok(i32::MAX - 1));
        assert_eq!(t.insert(OpenFile::Text("/x".into())), Err(libc::EMFILE));
        t.insert_host_eventfd(3);
        assert_eq!(t.get(&(i32::MAX - 1)), Some(&1));
        assert_eq!(t.get(&3), None, "an eventfd is no device node");
        assert_eq!(t.nodes().count(), 1);
        assert_eq!(t.remove(3), Some(OpenFile::HostEventfd));
        assert!(t.file(3).is_none());
    }
}
