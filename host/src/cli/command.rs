//! The `gleaner` command: its arguments (clap) and what each subcommand
//! runs. The binary (`host/src/main.rs`) only sets the allocator and calls
//! [`main`].

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use super::args::*;
use super::serve::{init_logging, serve};
use super::FetchArgs;
use crate::config::Config;

/// Parses the arguments and runs the subcommand; the exit code.
pub async fn main() -> ExitCode {
    // `fetch` takes the named source's own request fields as flags: they are
    // read from its manifest before the arguments are parsed.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let (source_flags, unlisted) = crate::cli::flags::for_argv(&argv, &FETCH_FLAGS);
    let command = Cli::command().mut_subcommand("fetch", |fetch| {
        let fetch = fetch.args(source_flags);
        match unlisted {
            Some(why) => fetch.after_help(why),
            None => fetch,
        }
    });
    let matches = command.get_matches_from(&argv);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let fetch_matches = matches.subcommand_matches("fetch").cloned();
    match run(cli, fetch_matches).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli, fetch_matches: Option<clap::ArgMatches>) -> anyhow::Result<ExitCode> {
    let config = Config::load(cli.config.as_deref())?;
    match cli
        .command
        .unwrap_or(Command::Serve(ServeCommand::default()))
    {
        Command::Serve(s) => {
            let mut config = s.flags.apply(config)?;
            if let Some(replay) = s.replay {
                config.replay = Some(replay);
            }
            serve(config).await.map(|_| ExitCode::SUCCESS)
        }
        Command::Demo(d) => {
            let mut config = d.flags.apply(config)?;
            config.replay = Some(d.fixtures);
            // The demo runs on one machine: its webhooks go to receivers there.
            config.webhook_allow_private = true;
            for (plugin, settings) in crate::cli::fixtures::all_settings(&d.plugins_src)? {
                config = crate::cli::with_settings(&config, &plugin, &settings);
            }
            serve(config).await.map(|_| ExitCode::SUCCESS)
        }
        Command::Plugin(PluginCommand::Check { path }) => {
            let secrets = init_logging("warn")?;
            let problems = crate::cli::check(&config, &secrets, &path).await?;
            Ok(if problems == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Plugin(PluginCommand::New {
            name,
            kind,
            dir,
            sdk,
            sdk_version,
        }) => {
            use crate::cli::scaffold::{new_plugin, SdkSource};
            let sdk = match (sdk, sdk_version) {
                (Some(path), _) => SdkSource::Path(path),
                (None, Some(version)) => SdkSource::Version(version),
                (None, None) => SdkSource::built_from().ok_or_else(|| {
                    anyhow::anyhow!(
                        "no Gleaner checkout beside this binary: give the SDK with --sdk PATH \
                         (the plugins/sdk folder of a checkout) or --sdk-version VERSION"
                    )
                })?,
            };
            let dir = dir.unwrap_or_else(|| PathBuf::from(&name));
            new_plugin(&name, kind, &dir, &sdk)?;
            println!("created {} ({kind:?} plugin {name}):", dir.display());
            println!("  Cargo.toml          a crate of its own, against the SDK ({sdk})");
            println!("  manifest.toml       name, route, allowlist, request fields");
            println!("  src/lib.rs          the plugin");
            println!("  tests/              replay cases and the recorded traffic they replay");
            println!(
                "next: gleaner plugin build {} --plugin-dir DIR (a server watching DIR swaps it in)",
                dir.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Plugin(PluginCommand::Build {
            path,
            plugin_dir,
            target_dir,
        }) => {
            let secrets = init_logging("warn")?;
            let mut config = config;
            if let Some(dir) = plugin_dir {
                config.plugin_dir = dir;
            }
            let staged = crate::cli::build(&config, &secrets, &path, target_dir.as_deref()).await?;
            println!(
                "staged     {} {} in {}: {} and {}; a server watching that directory serves it at {} within a second or two",
                staged.manifest.name,
                staged.manifest.version,
                config.plugin_dir.display(),
                file_name(&staged.manifest_path),
                file_name(&staged.component),
                staged.manifest.route
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Precompile { dirs, force } => {
            init_logging("warn")?;
            let failed = crate::cli::precompile(&dirs, force)?;
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "gleaner", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Openapi => {
            let (manifests, problems) = crate::openapi::manifests_in(&config.plugin_dir)?;
            for problem in &problems {
                eprintln!("warning: {problem}");
            }
            let access = crate::openapi::Access {
                api_keys: !config.api_keys.is_empty(),
                admin_keys: !config.admin_keys.is_empty(),
            };
            let manifests: Vec<_> = manifests.iter().collect();
            let document = crate::openapi::document(&manifests, access);
            println!("{}", crate::openapi::pretty_json(&document)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Coverage => {
            let (manifests, problems) = crate::openapi::manifests_in(&config.plugin_dir)?;
            for problem in &problems {
                eprintln!("warning: {problem}");
            }
            print!("{}", crate::cli::coverage::table(&manifests));
            Ok(ExitCode::SUCCESS)
        }
        Command::Jobs(command) => {
            use crate::cli::jobs;
            let ok = match command {
                JobsCommand::Submit {
                    server,
                    request: r,
                    wait,
                } => {
                    let body = jobs::request_of(r.request.as_deref(), r.query.as_deref(), r.max)?;
                    let mut extra = serde_json::Map::new();
                    if let Some(hook) = jobs::webhook_of(r.webhook_url, r.webhook_secret)? {
                        extra.insert("webhook".into(), hook);
                    }
                    if let Some(format) = r.export {
                        extra.insert("export".into(), serde_json::json!({ "format": format }));
                    }
                    jobs::submit(&server.client(), &r.endpoint, body, extra, wait).await?
                }
                JobsCommand::Status { server, id } => {
                    jobs::status(&server.client(), &id).await.map(|_| true)?
                }
                JobsCommand::List { server, state } => {
                    jobs::list(&server.client(), state.as_deref())
                        .await
                        .map(|_| true)?
                }
                JobsCommand::Reviews { server, id, format } => {
                    jobs::reviews(&server.client(), &id, format)
                        .await
                        .map(|_| true)?
                }
                JobsCommand::Cancel { server, id } => {
                    jobs::cancel(&server.client(), &id).await.map(|_| true)?
                }
            };
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Schedules(command) => {
            use crate::cli::jobs;
            let ok = match command {
                SchedulesCommand::Add(add) => {
                    let AddSchedule {
                        server,
                        request: r,
                        every,
                        cron,
                        timezone,
                        track_changes,
                        change_window,
                        reconcile_every,
                    } = *add;
                    let body = serde_json::json!({
                        "endpoint": r.endpoint,
                        "request": jobs::request_of(r.request.as_deref(), r.query.as_deref(), r.max)?,
                        "every": every,
                        "cron": cron,
                        "timezone": timezone,
                        "webhook": jobs::webhook_of(r.webhook_url, r.webhook_secret)?,
                        "track_changes": track_changes.then_some(true),
                        "change_window": change_window.as_deref().map(jobs::window_of),
                        "reconcile_every": reconcile_every,
                        "export": r.export.map(|format| serde_json::json!({ "format": format })),
                    });
                    let body = serde_json::Value::Object(
                        body.as_object()
                            .into_iter()
                            .flatten()
                            .filter(|(_, v)| !v.is_null())
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                    );
                    jobs::add_schedule(&server.client(), body)
                        .await
                        .map(|_| true)?
                }
                SchedulesCommand::List { server } => {
                    jobs::list_schedules(&server.client()).await.map(|_| true)?
                }
                SchedulesCommand::Changes { server, id, since } => {
                    jobs::schedule_changes(&server.client(), &id, since.as_deref())
                        .await
                        .map(|_| true)?
                }
                SchedulesCommand::Remove { server, id } => {
                    jobs::remove_schedule(&server.client(), &id)
                        .await
                        .map(|_| true)?
                }
                SchedulesCommand::Run { server, id, wait } => {
                    jobs::run_schedule(&server.client(), &id, wait).await?
                }
            };
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Receipt(ReceiptCommand::Verify {
            file,
            public_key,
            server,
        }) => {
            let key = match public_key {
                Some(key) => key,
                None => crate::cli::receipt::public_key(&server.client()).await?,
            };
            let ok = crate::cli::receipt::verify_file(&file, &key)?;
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Receipt(ReceiptCommand::Evidence { file, har }) => {
            Ok(if crate::cli::receipt::evidence(&file, &har)? {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Har { index, out } => {
            let count = crate::cli::har(&index, &out)?;
            eprintln!("wrote {count} exchanges to {}", out.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Doctor(d) => {
            let secrets = init_logging("warn")?;
            let out = d
                .out
                .unwrap_or_else(|| PathBuf::from(format!("doctor-{}.har", d.label)));
            let args = crate::cli::DoctorArgs {
                label: d.label,
                query: d.query,
                out,
                replay: d.replay,
                plugins_src: d.plugins_src,
            };
            let healthy = crate::cli::doctor(&config, &secrets, args).await?;
            Ok(if healthy {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Fetch(f) => {
            let secrets = init_logging("warn")?;
            let mut fields = serde_json::Map::new();
            if let Some(n) = f.max {
                fields.insert("reviews_to_fetch".into(), n.into());
            }
            if let Some(day) = f.sync_date {
                fields.insert("sync_date".into(), day.into());
            }
            if let Some(formatted) = f.is_text_formatted {
                fields.insert("is_text_formatted".into(), formatted.into());
            }
            if let Some(matches) = &fetch_matches {
                fields.extend(crate::cli::flags::given(matches, &config, &f.label));
            }
            let args = FetchArgs {
                label: f.label,
                query: f.query,
                fields,
                sort: f.sort,
                filter: f.filter,
                all: f.all,
                record: f.record.or_else(|| config.record.clone()),
                replay: f.replay.or_else(|| config.replay.clone()),
                format: f.format,
            };
            crate::cli::fetch(&config, &secrets, args)
                .await
                .map(|_| ExitCode::SUCCESS)
        }
    }
}

/// A path's last component, for messages.
fn file_name(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
