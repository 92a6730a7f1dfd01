//! An output folder that leaves nothing behind when a run fails.
//!
//! `create_dir_all` may create several folders before it fails on the last
//! one, and a run may fail after writing some of its files. [`OutDir`]
//! remembers what it created — the highest folder that did not exist and
//! every file that was new — and removes exactly that unless the run
//! [`OutDir::keep`]s it. Files that were there before are never removed
//! (an overwritten one stays overwritten).

use std::path::{Path, PathBuf};

use crate::Error;

/// A results folder being written; see the [module](self) docs.
#[derive(Debug)]
pub struct OutDir {
    dir: PathBuf,
    /// The highest folder this created, removed whole on failure.
    created: Option<PathBuf>,
    /// Files that did not exist before, in a folder that did.
    new_files: Vec<PathBuf>,
    kept: bool,
}

impl OutDir {
    /// Creates `dir` and any missing parents; on failure nothing it made
    /// stays behind, and the error names the folder.
    pub fn create(dir: &Path) -> Result<Self, Error> {
        let mut created = None;
        let mut probe = Some(dir);
        while let Some(p) = probe.filter(|p| !p.as_os_str().is_empty() && !p.exists()) {
            created = Some(p.to_path_buf());
            probe = p.parent();
        }
        let out = Self { dir: dir.to_path_buf(), created, new_files: Vec::new(), kept: false };
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(out)
    }

    /// The path of `name` in the folder, remembered for removal if the file
    /// is new.
    pub fn file(&mut self, name: &str) -> PathBuf {
        let path = self.dir.join(name);
        if self.created.is_none() && !path.exists() && !self.new_files.contains(&path) {
            self.new_files.push(path.clone());
        }
        path
    }

    /// The run succeeded: keep everything written.
    pub fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        if self.kept {
            return;
        }
        // Best effort: a failure to clean up must not hide the run's error.
        if let Some(top) = &self.created {
            let _ = std::fs::remove_dir_all(top);
        }
        for file in &self.new_files {
            let _ = std::fs::remove_file(file);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mirofish-out-dir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_failed_creation_removes_the_parents_it_made() {
        let root = scratch("parents");
        // `a` and `a/b` can be made, the last name is too long for any
        // file system: create_dir_all leaves `a/b` behind on its own.
        let err = OutDir::create(&root.join("a/b").join("x".repeat(300))).unwrap_err();
        assert!(err.to_string().contains("a/b"), "{err}");
        std::fs::write(root.join("blocker"), "a file, not a folder").unwrap();
        let err = OutDir::create(&root.join("blocker/x/y")).unwrap_err();
        assert!(err.to_string().contains("blocker"), "{err}");
        let left: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("blocker")], "left behind: {left:?}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_failed_run_removes_only_what_it_wrote() {
        let root = scratch("files");
        std::fs::write(root.join("notes.txt"), "mine").unwrap();
        {
            let mut out = OutDir::create(&root).unwrap();
            std::fs::write(out.file("metrics.csv"), "x").unwrap();
            std::fs::write(out.file("notes.txt"), "overwritten").unwrap();
            // Dropped without keep(): the run failed.
        }
        assert!(!root.join("metrics.csv").exists());
        assert!(root.join("notes.txt").exists());
        {
            let mut out = OutDir::create(&root.join("new/run")).unwrap();
            std::fs::write(out.file("metrics.csv"), "x").unwrap();
        }
        assert!(!root.join("new").exists());
        {
            let mut out = OutDir::create(&root.join("kept")).unwrap();
            std::fs::write(out.file("metrics.csv"), "x").unwrap();
            out.keep();
        }
        assert!(root.join("kept/metrics.csv").exists());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
