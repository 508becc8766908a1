//! `gleaner plugin check PATH`: validates a component and its manifest without a server.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::capabilities::settings::Settings;
use crate::config::Config;
use crate::manifest::{Kind, Manifest};
use crate::secrets::Secrets;

/// Checks the plugin whose manifest (or component, with the manifest beside it) is at `path`.
/// Prints what it found; returns the number of problems.
pub async fn check(config: &Config, secrets: &Arc<Secrets>, path: &Path) -> anyhow::Result<usize> {
    let manifest_path = manifest_for(path)?;
    println!("manifest   {}", manifest_path.display());
    let manifest = match crate::registry::read_manifest(&manifest_path) {
        Ok(m) => m,
        Err(e) => {
            println!("problem    {e}");
            return Ok(1);
        }
    };
    println!(
        "plugin     {} {} ({}, route {})",
        manifest.name,
        manifest.version,
        manifest.kind.world(),
        manifest.route
    );
    let mut problems = 0;
    for warning in allowlist_warnings(&manifest) {
        println!("warning    {warning}");
    }
    let runtime = super::runtime(config, secrets.clone(), None, None)?;
    let component = manifest.component_path(&manifest_path);
    println!("component  {}", component.display());
    match runtime
        .load(&manifest_path, manifest, Settings::default())
        .await
    {
        Ok(plugin) => println!(
            "ok         world `{}`, gleaner:plugin@{}, sha256 {}, compiled in {} ms",
            plugin.manifest.kind.world(),
            crate::runtime::compat::PACKAGE_VERSION,
            plugin.sha256,
            plugin.compile_time.as_millis()
        ),
        Err(e) => {
            problems += 1;
            println!("problem    {e}");
        }
    }
    Ok(problems)
}

fn manifest_for(path: &Path) -> anyhow::Result<PathBuf> {
    if path.extension().is_some_and(|e| e == "toml") {
        return Ok(path.to_owned());
    }
    if path.is_dir() {
        let candidate = path.join("manifest.toml");
        anyhow::ensure!(
            candidate.exists(),
            "{} has no manifest.toml; give the manifest's path",
            path.display()
        );
        return Ok(candidate);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    for entry in std::fs::read_dir(dir)?.filter_map(Result::ok) {
        let candidate = entry.path();
        if candidate.extension().is_some_and(|e| e == "toml") {
            if let Ok(m) = Manifest::load(&candidate) {
                if m.component_path(&candidate) == path {
                    return Ok(candidate);
                }
            }
        }
    }
    anyhow::bail!(
        "no manifest next to {} names it as its component; give the manifest's path",
        path.display()
    )
}

/// Allowlist sanity: things that are legal but probably wrong.
fn allowlist_warnings(m: &Manifest) -> Vec<String> {
    let mut warnings = Vec::new();
    if m.network.any_public_host && !m.network.allow.is_empty() {
        warnings.push("any_public_host = true makes the `allow` list redundant".into());
    }
    if m.kind != Kind::Processor && m.network.allow.is_empty() && !m.network.any_public_host {
        warnings.push("a source with an empty allowlist can reach nothing; add the site's origins to [network] allow".into());
    }
    for origin in &m.network.allow {
        if origin.starts_with("http://") {
            warnings.push(format!("{origin} is plain http; prefer https"));
        }
    }
    warnings
}
