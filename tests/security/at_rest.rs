//! What the server keeps on disk is for it alone: the data directory (the
//! token secret, the jobs store with its webhook secrets) is 0700 and its
//! files 0600, and a store file left readable by others is narrowed.

use std::os::unix::fs::PermissionsExt;

use crate::common;

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn the_data_directory_and_its_files_are_private() {
    let plugins = common::plugin_dir(&["review-chunk"]);
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("state");
    let mut config = common::config(&plugins);
    config.data_dir = data.clone();
    config.token_secret = None;
    let app = gleaner::App::build(config.clone()).await.unwrap();
    drop(app);
    assert_eq!(mode(&data), 0o700, "the data directory");
    for file in ["token-secret", "jobs.sqlite3"] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
    // A store another tool left readable by everyone is narrowed at start.
    std::fs::set_permissions(data.join("jobs.sqlite3"), PermissionsExt::from_mode(0o644)).unwrap();
    drop(gleaner::App::build(config).await.unwrap());
    assert_eq!(mode(&data.join("jobs.sqlite3")), 0o600);
}
