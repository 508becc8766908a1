//! The data directory holds what only the server may read: the token secret
//! and the jobs store with its webhook secrets. It is created 0700, and its
//! files 0600; a file found with wider permissions is narrowed, and a
//! directory the operator made readable by others is warned about.

use std::path::Path;

/// Creates `dir` (and any missing parent) readable by this user alone; warns
/// when an existing one is open to others.
pub fn create(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir)?.permissions().mode();
        if mode & 0o077 != 0 {
            tracing::warn!(
                data_dir = %dir.display(),
                mode = format!("{:o}", mode & 0o777),
                "the data directory is open to other users; `chmod 700` it (it holds the token secret and webhook secrets)"
            );
        }
    }
    Ok(())
}

/// Makes `path` a file readable by this user alone: created empty if
/// missing, narrowed to 0600 if it was wider.
pub fn private_file(path: &Path) -> std::io::Result<()> {
    match std::fs::metadata(path) {
        Ok(_meta) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                if _meta.permissions().mode() & 0o077 != 0 {
                    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
                }
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            match options.open(path) {
                Ok(_) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn the_directory_and_its_files_are_private() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        create(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        let file = dir.join("jobs.sqlite3");
        std::fs::write(&file, b"").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        private_file(&file).unwrap();
        assert_eq!(mode(&file), 0o600);
        let fresh = dir.join("new");
        private_file(&fresh).unwrap();
        assert_eq!(mode(&fresh), 0o600);
    }
}
