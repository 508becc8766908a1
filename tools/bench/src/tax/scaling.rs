//! How the plugin path scales across cores against the native one: one
//! caller per core at once, against one caller.

use std::sync::Arc;
use std::time::{Duration, Instant};

use gleaner::runtime::{LoadedPlugin, Runtime};

use super::name_of;
use crate::native;
use crate::report::{self, times, Row};

/// Calls per second with one caller per core at once, natively and as a
/// plugin, against one caller: how each scales across the machine's cores.
///
/// Three comparisons: against the median of one call alone (the rows kept
/// from the first reports, so figures stay comparable); against one caller in
/// the same loop over the same window; and the median over [`ROUNDS`] rounds
/// that each run one caller and then all callers, so a burst of noise on a
/// shared machine moves one round's ratio, not the figure. The first flatters
/// one caller, since a median leaves out the slow calls a loop pays for; the
/// last is the scaling.
pub(super) async fn parallel(
    runtime: &Arc<Runtime>,
    plugin: &Arc<LoadedPlugin>,
    input: &str,
    native_process: native::Process,
    native_one: Duration,
    wasm_one: Duration,
) -> anyhow::Result<()> {
    let callers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let window = Duration::from_secs(2);
    let native_calls = |callers: usize| -> usize {
        std::thread::scope(|scope| {
            let threads: Vec<_> = (0..callers)
                .map(|_| {
                    scope.spawn(|| {
                        let started = Instant::now();
                        let mut calls = 0usize;
                        while started.elapsed() < window {
                            std::hint::black_box(native_process(input)).ok();
                            calls += 1;
                        }
                        calls
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap_or(0)).sum()
        })
    };
    let wasm_calls = |callers: usize| async move {
        let mut tasks = Vec::new();
        for _ in 0..callers {
            let (runtime, plugin, input) = (runtime.clone(), plugin.clone(), input.to_owned());
            tasks.push(tokio::spawn(async move {
                let started = Instant::now();
                let mut calls = 0usize;
                while started.elapsed() < window {
                    let deadline = Instant::now() + Duration::from_secs(10);
                    if let Ok(Ok(_)) = runtime.process(&plugin, "bench", &input, deadline).await {
                        calls += 1;
                    }
                }
                calls
            }));
        }
        let mut calls = 0;
        for t in tasks {
            calls += t.await?;
        }
        anyhow::Ok(calls)
    };
    // Round 0 gives the rows kept from earlier reports; every round gives a
    // ratio of all callers to one.
    let (mut native_rounds, mut wasm_rounds) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        native_rounds.push((native_calls(1), native_calls(callers)));
        wasm_rounds.push((wasm_calls(1).await?, wasm_calls(callers).await?));
    }
    let name = name_of(&plugin.manifest.route).to_owned();
    let per_second = |calls: usize| calls as f64 / window.as_secs_f64();
    for (form, rounds, one) in [
        ("native", &native_rounds, native_one),
        ("plugin", &wasm_rounds, wasm_one),
    ] {
        let (one_loop, all) = rounds[0];
        let single = 1.0 / one.as_secs_f64().max(1e-12);
        report::row(Row {
            what: format!("{name}: {form}, {callers} callers at once"),
            n: Some(all),
            value: Some(format!("{:.0} calls/s", per_second(all))),
            ratio: Some(format!("{} one caller", times(per_second(all) / single))),
            ..Row::default()
        });
        report::row(Row {
            what: format!("{name}: {form}, {callers} callers against 1 in the same loop"),
            n: Some(one_loop),
            value: Some(format!("1 caller: {:.0} calls/s", per_second(one_loop))),
            ratio: Some(format!(
                "{} one caller (loop)",
                times(per_second(all) / per_second(one_loop).max(1e-12))
            )),
            ..Row::default()
        });
        let ratios: Vec<f64> = rounds
            .iter()
            .map(|&(one, all)| all as f64 / (one as f64).max(1.0))
            .collect();
        let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let high = ratios.iter().copied().fold(0.0, f64::max);
        report::row(Row {
            what: format!(
                "{name}: {form}, {callers} callers against 1, median of {ROUNDS} alternating rounds"
            ),
            n: Some(rounds.iter().map(|&(one, all)| one + all).sum()),
            value: Some(format!("rounds: {} to {}", times(low), times(high))),
            ratio: Some(format!(
                "{} one caller (rounds)",
                times(report::median(ratios).unwrap_or(0.0))
            )),
            ..Row::default()
        });
    }
    Ok(())
}

/// Rounds of one caller, then every caller, in the two-caller comparison.
const ROUNDS: usize = 5;
