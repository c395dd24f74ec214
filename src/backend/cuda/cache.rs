//! The on-disk cache of compiled kernel modules.
//!
//! Every process compiles a module with NVRTC at its first use; on a small
//! graph that costs far more than the algorithm. The compiled machine code
//! (CUBIN for the device's own architecture, which the driver loads without a
//! JIT step) is kept in a directory, one file per module, named by a SHA-256
//! key over everything the code depends on: the kernel source, the compile
//! options, the device architecture, the NVRTC version and this crate's
//! version (CuPy keys its kernel cache the same way).
//!
//! Where: `$BITGRAPHBLAS_KERNEL_CACHE` when set (`off`, `0` or empty disables
//! the cache), else the platform's cache directory (`$XDG_CACHE_HOME` or
//! `~/.cache` on Linux) under `bitgraphblas/kernels`.
//!
//! An entry is trusted only after its header names the same key, its body's
//! length and a CRC-32 of its body that match: a truncated, corrupted or
//! foreign file is removed and the module compiled again, never loaded. (The
//! check runs at every load: read and checked by a SHA-256 of the body, an
//! entry of 134 to 419 KiB took 0.2 to 1.1 ms on the H200 machine's host; by
//! a CRC-32, 0.06 to 0.74 ms, the rest being the file's reading and copies.)
//! Entries are
//! written to a temporary file and renamed, so a reader never sees half of
//! one; any failure to read or write the cache falls back to compiling (the
//! cache can only save time).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::kernels::ModuleSpec;
use crate::error::Result;

/// The environment variable that moves or disables the cache.
pub const CACHE_ENV: &str = "BITGRAPHBLAS_KERNEL_CACHE";

/// The first line of every entry: this tag, the key and the body's length
/// and checksum ([`header`]).
const HEADER_TAG: &str = "// bitgraphblas kernel cache v3 (cubin)";

/// A directory of compiled modules, or none (disabled).
#[derive(Clone, Debug)]
pub(crate) struct KernelCache {
    dir: Option<PathBuf>,
}

impl KernelCache {
    /// The cache the environment asks for (see the module documentation).
    pub(crate) fn from_env() -> Self {
        let dir = match std::env::var_os(CACHE_ENV) {
            Some(v) if v.is_empty() || v == "off" || v == "0" => None,
            Some(v) => Some(PathBuf::from(v)),
            None => dirs::cache_dir().map(|d| d.join("bitgraphblas").join("kernels")),
        };
        KernelCache { dir }
    }

    /// A cache in `dir` (`None`: disabled).
    #[cfg(test)]
    pub(crate) fn at(dir: Option<PathBuf>) -> Self {
        KernelCache { dir }
    }

    /// The key of a module compiled from `spec` for `arch` by NVRTC `nvrtc`.
    pub(crate) fn key(spec: &ModuleSpec, arch: &str, nvrtc: (i32, i32)) -> String {
        let mut h = Sha256::new();
        // Each field length-prefixed, so no two field lists hash alike.
        let mut field = |bytes: &[u8]| {
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field(env!("CARGO_PKG_VERSION").as_bytes());
        field(format!("nvrtc {}.{}", nvrtc.0, nvrtc.1).as_bytes());
        field(arch.as_bytes());
        field(spec.name.as_bytes());
        field(spec.source.as_bytes());
        for o in &spec.options {
            field(o.as_bytes());
        }
        hex(&h.finalize())
    }

    /// The compiled module of `spec`: from the cache when a valid entry
    /// exists, else from `compile`, then stored.
    pub(crate) fn get_or_compile(
        &self,
        spec: &ModuleSpec,
        key: &str,
        compile: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<Vec<u8>> {
        let Some(dir) = &self.dir else {
            return compile();
        };
        let path = entry_path(dir, &spec.name, key);
        if let Some(image) = load(&path, key) {
            return Ok(image);
        }
        let image = compile()?;
        // Best effort: a cache that cannot be written costs only time.
        let _ = store(dir, &path, key, &image);
        Ok(image)
    }
}

/// The file of module `name` under `key`.
fn entry_path(dir: &Path, name: &str, key: &str) -> PathBuf {
    dir.join(format!("{name}-{}.cubin", &key[..32]))
}

/// The body of the entry at `path` when its header names `key` and the
/// length and checksum of the body ([`header`]); an entry that fails the check is removed.
fn load(path: &Path, key: &str) -> Option<Vec<u8>> {
    let bytes = fs::read(path).ok()?;
    let valid = bytes.iter().position(|&b| b == b'\n').and_then(|at| {
        let (header, body) = (&bytes[..at], &bytes[at + 1..]);
        (header == self::header(key, body).as_bytes()).then(|| body.to_vec())
    });
    if valid.is_none() {
        let _ = fs::remove_file(path);
    }
    valid
}

/// Writes the entry for `key` to `path`: a temporary file in `dir`, renamed.
fn store(dir: &Path, path: &Path, key: &str, image: &[u8]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id()
    ));
    let written = (|| {
        let mut f = fs::File::create(&tmp)?;
        writeln!(f, "{}", header(key, image))?;
        f.write_all(image)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// The header line of the entry for `key` whose body is `body`.
fn header(key: &str, body: &[u8]) -> String {
    let crc = crc32fast::hash(body);
    format!("{HEADER_TAG} key={key} len={} crc32={crc:08x}", body.len())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The NVRTC version, `(0, 0)` when it cannot be asked.
pub(crate) fn nvrtc_version() -> (i32, i32) {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two out-parameters; the caller has checked that libnvrtc loads.
    let ok = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    if ok == cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
        (major, minor)
    } else {
        (0, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::kernels::ModuleId;
    use std::cell::Cell;

    fn spec(source: &'static str) -> ModuleSpec {
        ModuleSpec {
            id: ModuleId::Pack,
            name: "test_module".into(),
            source,
            options: vec!["-DK=4".into()],
            entries: vec![],
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "bitgraphblas-cache-test-{name}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&d);
        d
    }

    /// Compiles once, then reads the entry back; counts the compiles.
    fn run(cache: &KernelCache, s: &ModuleSpec, key: &str, calls: &Cell<u32>) -> String {
        let image = cache
            .get_or_compile(s, key, || {
                calls.set(calls.get() + 1);
                // binary, with a newline and a zero byte inside
                Ok(format!("image of {}\n\0end", s.source).into_bytes())
            })
            .unwrap();
        String::from_utf8(image).unwrap()
    }

    #[test]
    fn a_second_use_reads_the_entry_and_keys_separate_what_differs() {
        let dir = scratch("hit");
        let cache = KernelCache::at(Some(dir.clone()));
        let s = spec("__global__ void k() {}");
        let key = KernelCache::key(&s, "sm_90", (13, 0));
        let calls = Cell::new(0);
        assert_eq!(
            run(&cache, &s, &key, &calls),
            "image of __global__ void k() {}\n\0end"
        );
        assert_eq!(
            run(&cache, &s, &key, &calls),
            "image of __global__ void k() {}\n\0end"
        );
        assert_eq!(calls.get(), 1);
        // another architecture, NVRTC, option or source is another key
        let mut o = spec("__global__ void k() {}");
        o.options.push("-DX".into());
        let keys = [
            KernelCache::key(&s, "sm_80", (13, 0)),
            KernelCache::key(&s, "sm_90", (12, 8)),
            KernelCache::key(&o, "sm_90", (13, 0)),
            KernelCache::key(&spec("__global__ void j() {}"), "sm_90", (13, 0)),
        ];
        for k in &keys {
            assert_ne!(k, &key);
        }
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn a_corrupted_or_truncated_entry_is_rebuilt_never_loaded() {
        let dir = scratch("corrupt");
        let cache = KernelCache::at(Some(dir.clone()));
        let s = spec("__global__ void k() {}");
        let key = KernelCache::key(&s, "sm_90", (13, 0));
        let calls = Cell::new(0);
        run(&cache, &s, &key, &calls);
        let path = entry_path(&dir, &s.name, &key);
        let good = fs::read_to_string(&path).unwrap();
        for bad in [
            good.replace("image of", "image 0f"),
            good[..good.len() - 3].to_string(),
            String::new(),
            good.replace(&key, &"0".repeat(64)),
        ] {
            fs::write(&path, bad).unwrap();
            let before = calls.get();
            assert_eq!(
                run(&cache, &s, &key, &calls),
                "image of __global__ void k() {}\n\0end"
            );
            assert_eq!(
                calls.get(),
                before + 1,
                "a bad entry must be compiled again"
            );
            assert_eq!(fs::read_to_string(&path).unwrap(), good, "and rewritten");
        }
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn a_disabled_or_unwritable_cache_compiles_every_time() {
        let s = spec("__global__ void k() {}");
        let key = KernelCache::key(&s, "sm_90", (13, 0));
        let calls = Cell::new(0);
        let off = KernelCache::at(None);
        run(&off, &s, &key, &calls);
        run(&off, &s, &key, &calls);
        assert_eq!(calls.get(), 2);
        // a file where the directory should be
        let blocker = scratch("blocked");
        fs::write(&blocker, "not a directory").unwrap();
        let blocked = KernelCache::at(Some(blocker.clone()));
        run(&blocked, &s, &key, &calls);
        assert_eq!(calls.get(), 3);
        let _ = fs::remove_file(blocker);
    }
}
