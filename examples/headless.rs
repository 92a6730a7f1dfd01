//! Runs the plugin without a window or GPU and prints what a comparison from
//! the shell needs: the order parameter, the mean speed and the state hash.
//!
//! ```text
//! cargo run --release --example headless -- --fish 2000 --ticks 600 --seed 7
//! cargo run --release --example headless -- --preset dense-sardines --ticks 1000
//! ```
//!
//! Two runs with the same arguments print the same hash; `--threads 1`
//! prints the same hash as any other thread count, and the web page
//! (`web/`) prints it too for the same arguments. The run itself
//! ([`HeadlessRun::run`]) builds an app of Bevy's `MinimalPlugins` and
//! `MiroFishPlugin`, spawns one school and updates it one fixed tick at a
//! time.

use std::process::ExitCode;

use mirofish_examples::headless::HeadlessRun;

fn main() -> ExitCode {
    let run = match HeadlessRun::parse(std::env::args().skip(1)) {
        Ok(run) => run,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(n) = run.threads
        && let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(n).build_global()
    {
        eprintln!("--threads: {e}");
        return ExitCode::FAILURE;
    }
    println!("{}", run.run());
    ExitCode::SUCCESS
}
