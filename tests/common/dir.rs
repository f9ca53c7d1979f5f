//! A scratch folder per test case, removed afterwards: the file sorts' tests.

use std::path::PathBuf;

pub struct Dir(pub PathBuf);

impl Dir {
    /// An empty folder of its own in the system's temporary folder.
    pub fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("gpusort-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The path of `name` inside, as a string (a command-line argument).
    pub fn s(&self, name: &str) -> String {
        self.path(name).to_string_lossy().into_owned()
    }

    /// The names in the folder, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
