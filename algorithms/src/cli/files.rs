//! Inputs read once (`-` is standard input; a FIFO or `/dev/stdin` is opened
//! once and its format sniffed from the bytes read) and outputs that are
//! refused when they are the same file as an input.

use std::fs::Metadata;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use bitgraphblas::io::{printable, read_graph_from, read_graph_with, GraphFile, ReadOptions};

/// The identity of a file after following links: device and inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

#[cfg(unix)]
fn id_of(m: &Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some(FileId {
        dev: m.dev(),
        ino: m.ino(),
    })
}

#[cfg(not(unix))]
fn id_of(_: &Metadata) -> Option<FileId> {
    None
}

/// The metadata of what standard input or output is (`fd` 0 or 1).
#[cfg(unix)]
fn std_metadata(stdout: bool) -> Option<Metadata> {
    use std::os::fd::AsFd;
    let fd = if stdout {
        std::io::stdout().as_fd().try_clone_to_owned()
    } else {
        std::io::stdin().as_fd().try_clone_to_owned()
    };
    std::fs::File::from(fd.ok()?).metadata().ok()
}

#[cfg(not(unix))]
fn std_metadata(_: bool) -> Option<Metadata> {
    None
}

/// A graph the command reads: a path, or `-` for standard input.
#[derive(Debug)]
pub struct Input {
    path: Option<PathBuf>,
    /// How messages name it (escaped).
    pub name: String,
    id: Option<FileId>,
}

impl Input {
    /// The input named on the command line (`-`: standard input).
    pub fn new(arg: &Path) -> Input {
        if arg.as_os_str() == "-" {
            return Input {
                path: None,
                name: "<stdin>".into(),
                id: std_metadata(false).as_ref().and_then(id_of),
            };
        }
        Input {
            path: Some(arg.to_path_buf()),
            name: printable(arg.as_os_str().as_encoded_bytes()),
            id: std::fs::metadata(arg).ok().as_ref().and_then(id_of),
        }
    }

    /// Reads the graph: opened once, read front to back.
    pub fn read(&self, opts: &ReadOptions) -> bitgraphblas::Result<GraphFile<f64>> {
        match &self.path {
            Some(p) => read_graph_with(p, opts),
            None => {
                let stdin = BufReader::with_capacity(1 << 18, std::io::stdin().lock());
                read_graph_from(stdin, &self.name, opts)
            }
        }
    }

    fn same_as(&self, out_path: Option<&Path>, out: &Metadata) -> bool {
        match (id_of(out), self.id) {
            (Some(a), Some(b)) => a == b,
            _ => match (out_path, &self.path) {
                (Some(o), Some(i)) => match (std::fs::canonicalize(o), std::fs::canonicalize(i)) {
                    (Ok(a), Ok(b)) => a == b,
                    _ => false,
                },
                _ => false,
            },
        }
    }
}

/// Where a command writes.
#[derive(Debug)]
pub enum Output<'a> {
    /// Standard output.
    Stdout,
    /// A file (`--output FILE`, or `convert`'s OUT).
    File(&'a Path),
}

/// `Err` when `out` is the same file as one of `inputs` (same device and
/// inode after following links: a symbolic or hard link counts), checked
/// before anything is written. Only regular files are compared: a terminal
/// or `/dev/null` may well be both.
pub fn check_output(out: &Output<'_>, inputs: &[&Input]) -> Result<(), String> {
    let (meta, path, name) = match out {
        Output::Stdout => (std_metadata(true), None, "standard output".to_string()),
        Output::File(p) => (
            std::fs::metadata(p).ok(),
            Some(*p),
            printable(p.as_os_str().as_encoded_bytes()),
        ),
    };
    let Some(meta) = meta.filter(|m| m.is_file()) else {
        return Ok(());
    };
    match inputs.iter().find(|i| i.same_as(path, &meta)) {
        Some(i) => Err(format!(
            "{name} is the same file as the input {}; refusing to overwrite it \
             (write the result somewhere else)",
            i.name
        )),
        None => Ok(()),
    }
}
