//! Read-only views of whole files, for hashing what start-up loads without
//! copying it: on Unix a private memory map (the page cache's pages, nothing
//! copied or zeroed), elsewhere the bytes read into memory.
//!
//! A map is only held while a file is checked, and files in the plugin and cache
//! directories are replaced by renaming, never truncated in place (see
//! docs/security.md).

use std::fs::File;
use std::ops::Deref;

/// A whole file's bytes.
pub struct Mapped {
    #[cfg(unix)]
    map: Option<(std::ptr::NonNull<libc::c_void>, usize)>,
    #[cfg(not(unix))]
    bytes: Vec<u8>,
}

// SAFETY: the map is read-only and owned by this value alone.
unsafe impl Send for Mapped {}
// SAFETY: as above; shared access only reads.
unsafe impl Sync for Mapped {}

impl Mapped {
    /// Maps all of `file`.
    #[cfg(unix)]
    pub fn of(file: &File) -> std::io::Result<Mapped> {
        use std::os::fd::AsRawFd;
        let len = usize::try_from(file.metadata()?.len())
            .map_err(|_| std::io::Error::other("the file is larger than the address space"))?;
        if len == 0 {
            return Ok(Mapped { map: None });
        }
        // SAFETY: a fresh private read-only mapping of an open file; the kernel
        // picks the address. It is unmapped exactly once, in `drop`.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let ptr = std::ptr::NonNull::new(ptr)
            .ok_or_else(|| std::io::Error::other("mmap gave a null address"))?;
        Ok(Mapped {
            map: Some((ptr, len)),
        })
    }

    /// Reads all of `file`.
    #[cfg(not(unix))]
    pub fn of(file: &File) -> std::io::Result<Mapped> {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut &*file, &mut bytes)?;
        Ok(Mapped { bytes })
    }
}

impl Deref for Mapped {
    type Target = [u8];

    #[cfg(unix)]
    fn deref(&self) -> &[u8] {
        match self.map {
            // SAFETY: `len` bytes at `ptr` stay mapped readable until `drop`.
            Some((ptr, len)) => unsafe {
                std::slice::from_raw_parts(ptr.as_ptr().cast::<u8>(), len)
            },
            None => &[],
        }
    }

    #[cfg(not(unix))]
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some((ptr, len)) = self.map.take() {
            // SAFETY: the mapping made in `of`, unmapped once; no slice of it
            // outlives `self`.
            unsafe {
                libc::munmap(ptr.as_ptr(), len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_whole_files_and_empty_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"compiled code").unwrap();
        let mapped = Mapped::of(&File::open(&path).unwrap()).unwrap();
        assert_eq!(&mapped[..], b"compiled code");
        std::fs::write(&path, b"").unwrap();
        assert!(Mapped::of(&File::open(&path).unwrap()).unwrap().is_empty());
    }
}
