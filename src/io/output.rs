//! Output files written in full or not at all.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::io_err;
use crate::error::Result;

/// A file that is written in full or not at all: the bytes go to a temporary
/// file in the target's directory, and [`commit`](OutputFile::commit) renames
/// it over the target. Until then, and if the writer fails, is dropped or the
/// process is killed, an existing file at the target keeps its old content
/// (a killed process may leave its hidden `.NAME.PID.N.tmp` file behind).
///
/// - A symbolic link as the target is followed: the file it points to is
///   replaced and the link kept.
/// - A target that exists and is not a regular file (`/dev/null`, a FIFO, a
///   terminal) is written directly, since it cannot be replaced.
/// - A replaced file keeps its permissions.
///
/// The library's writers ([`super::write_matrix_market`], [`super::write_b2sr`]) use it.
///
/// ```
/// use std::io::Write;
/// use bitgraphblas::io::OutputFile;
/// let path = std::env::temp_dir().join(format!("bgb_doc_out_{}.txt", std::process::id()));
/// std::fs::write(&path, "old\n").unwrap();
/// let mut out = OutputFile::create(&path)?;
/// writeln!(out, "new").unwrap();
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n"); // not yet
/// out.commit()?;
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
///
/// let mut out = OutputFile::create(&path)?;
/// writeln!(out, "half").unwrap();
/// drop(out); // no commit: the old content stays, no temporary file is left
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), bitgraphblas::Error>(())
/// ```
#[derive(Debug)]
pub struct OutputFile {
    /// The path the caller named (for messages).
    path: PathBuf,
    /// Where the bytes finally go (the path with its links followed).
    target: PathBuf,
    /// The temporary file, `None` when writing to the target directly.
    tmp: Option<PathBuf>,
    writer: Option<BufWriter<File>>,
}

impl OutputFile {
    /// Starts writing `path` (see the type's docs). An `Err` where the
    /// directory cannot take a new file or the target is a directory.
    pub fn create(path: impl AsRef<Path>) -> Result<OutputFile> {
        let path = path.as_ref().to_path_buf();
        let target = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone())
            }
            _ => path.clone(),
        };
        let existing = std::fs::metadata(&target).ok();
        if let Some(m) = &existing {
            if m.is_dir() {
                return Err(io_err(&path, std::io::Error::other("is a directory")));
            }
            if !m.is_file() {
                let f = OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(|e| io_err(&path, e))?;
                return Ok(OutputFile {
                    path,
                    target,
                    tmp: None,
                    writer: Some(BufWriter::with_capacity(1 << 18, f)),
                });
            }
        }
        let (tmp, file) = create_temp(&target).map_err(|e| io_err(&path, e))?;
        let mut out = OutputFile {
            path,
            target,
            tmp: Some(tmp),
            writer: None,
        };
        if let Some(m) = existing {
            file.set_permissions(m.permissions())
                .map_err(|e| io_err(&out.path, e))?;
        }
        out.writer = Some(BufWriter::with_capacity(1 << 18, file));
        Ok(out)
    }

    /// The path as the caller named it.
    ///
    /// ```
    /// let p = std::env::temp_dir().join(format!("bgb_doc_path_{}.txt", std::process::id()));
    /// let out = bitgraphblas::io::OutputFile::create(&p)?;
    /// assert_eq!(out.path(), p.as_path());
    /// # Ok::<(), bitgraphblas::Error>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes and puts the file in place of the target. On an `Err` the
    /// target is as it was before.
    pub fn commit(mut self) -> Result<()> {
        let w = self
            .writer
            .take()
            .expect("the writer is there until commit");
        let file = w
            .into_inner()
            .map_err(|e| io_err(&self.path, e.into_error()))?;
        drop(file);
        if let Some(tmp) = self.tmp.take() {
            if let Err(e) = std::fs::rename(&tmp, &self.target) {
                let _ = std::fs::remove_file(&tmp);
                return Err(io_err(&self.path, e));
            }
        }
        Ok(())
    }
}

/// A new file beside `target`, named `.NAME.PID.N.tmp`, that did not exist before.
fn create_temp(target: &Path) -> std::io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer
            .as_mut()
            .expect("the writer is there until commit")
            .write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer
            .as_mut()
            .expect("the writer is there until commit")
            .write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer
            .as_mut()
            .expect("the writer is there until commit")
            .flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            drop(self.writer.take());
            let _ = std::fs::remove_file(tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("bgb_output_{}_{tag}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaced_only_on_commit() {
        let d = dir("commit");
        let p = d.join("out.txt");
        std::fs::write(&p, "old").unwrap();
        let mut o = OutputFile::create(&p).unwrap();
        o.write_all(b"new").unwrap();
        assert_eq!(entries(&d).len(), 2); // the target and the temporary file
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        o.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(entries(&d), vec!["out.txt"]);
        let o = OutputFile::create(&p).unwrap();
        drop(o);
        assert_eq!(entries(&d), vec!["out.txt"]);
        std::fs::remove_dir_all(&d).ok();
    }

    #[cfg(unix)]
    #[test]
    fn links_permissions_and_devices() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("links");
        let real = d.join("real.txt");
        let link = d.join("link.txt");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut o = OutputFile::create(&link).unwrap();
        o.write_all(b"new").unwrap();
        o.commit().unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        // A device is written in place; /dev/full reports the full disk.
        let mut o = OutputFile::create("/dev/null").unwrap();
        o.write_all(b"x").unwrap();
        o.commit().unwrap();
        if Path::new("/dev/full").exists() {
            let mut o = OutputFile::create("/dev/full").unwrap();
            let r = o.write_all(b"x").and_then(|_| o.flush());
            assert!(r.is_err() || o.commit().is_err());
        }
        assert!(OutputFile::create(&d).is_err());
        std::fs::remove_dir_all(&d).ok();
    }
}
