//! What a write costs on this machine after both cores have read the line:
//! why the integrator's writes cost more on two threads than on one.
//!
//! ```text
//! cargo run --release -p mirofish_probes --bin shared_lines -- 100000 400
//! ```
//!
//! The timed pass is an integrator in miniature over `fish` fish (default
//! 100 000): it reads the acceleration of a 16-byte kick, updates position,
//! velocity, wander phase and fear, and writes the steering: 32 bytes
//! written per fish, along memory, each of the two threads over its own
//! half. What changes from row to row is what happened to those lines
//! before the pass, untimed:
//! - *one writer*: nothing; each thread rewrites the half it wrote last
//!   time;
//! - *halves swapped*: each thread takes the half the other wrote last time
//!   (the lines come from the other core's cache);
//! - *read by one core*: one thread read every fish, in a random order;
//! - *read by both cores*: each thread read half of the fish, picked at
//!   random, as the index's gather reads fish in stable slots.
//!
//! The median of `reps` passes (default 400) is printed per row, with the
//! single-thread pass for reference. The threads are the main thread and
//! one helper, released by a spinning counter, so no wake-up is timed; the
//! arrays are atomics read and written with `Relaxed` (plain loads and
//! stores on x86-64), which keeps the probe free of `unsafe`.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::time::Instant;

/// What happens to the lines before each timed pass.
#[derive(Clone, Copy, PartialEq)]
enum Before {
    OneWriter,
    HalvesSwapped,
    ReadByOne,
    ReadByBoth,
}

/// The fish's columns, as the flock holds them (one array per column).
struct Columns {
    position: Vec<AtomicU32>,
    velocity: Vec<AtomicU32>,
    phase: Vec<AtomicU32>,
    fear: Vec<AtomicU32>,
    steering: Vec<AtomicU32>,
    kick: Vec<AtomicU32>,
    /// A random permutation of the fish: the order the reads run in.
    shuffled: Vec<u32>,
}

fn column(len: usize, value: f32) -> Vec<AtomicU32> {
    (0..len).map(|_| AtomicU32::new(value.to_bits())).collect()
}

fn get(a: &[AtomicU32], i: usize) -> f32 {
    f32::from_bits(a[i].load(Relaxed))
}

fn put(a: &[AtomicU32], i: usize, v: f32) {
    a[i].store(v.to_bits(), Relaxed);
}

impl Columns {
    fn new(fish: usize) -> Self {
        // A Fisher–Yates shuffle driven by a xorshift: any fixed permutation
        // without locality will do.
        let mut shuffled: Vec<u32> = (0..fish as u32).collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for i in (1..fish).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            shuffled.swap(i, (state % (i as u64 + 1)) as usize);
        }
        Self {
            position: column(2 * fish, 1.0),
            velocity: column(2 * fish, 0.5),
            phase: column(fish, 0.0),
            fear: column(fish, 0.25),
            steering: column(2 * fish, 0.0),
            kick: column(4 * fish, 1.0),
            shuffled,
        }
    }

    fn fish(&self) -> usize {
        self.phase.len()
    }

    /// The integrator in miniature over fish `from..to`.
    fn integrate(&self, from: usize, to: usize) {
        let dt = 1.0 / 60.0;
        for i in from..to {
            let (ax, ay) = (get(&self.kick, 4 * i), get(&self.kick, 4 * i + 1));
            let (vx, vy) = (get(&self.velocity, 2 * i) + ax * dt, get(&self.velocity, 2 * i + 1) + ay * dt);
            put(&self.velocity, 2 * i, vx);
            put(&self.velocity, 2 * i + 1, vy);
            put(&self.position, 2 * i, get(&self.position, 2 * i) + vx * dt);
            put(&self.position, 2 * i + 1, get(&self.position, 2 * i + 1) + vy * dt);
            put(&self.phase, i, get(&self.phase, i) + 0.01);
            put(&self.fear, i, get(&self.fear, i) * 0.99);
            put(&self.steering, 2 * i, ax);
            put(&self.steering, 2 * i + 1, ay);
        }
    }

    /// Reads the fish listed in `shuffled[from..to]` (what the index's
    /// gather does to the columns it reads); returns a sum so that the
    /// reads are not optimised away.
    fn read(&self, from: usize, to: usize) -> f32 {
        self.shuffled[from..to]
            .iter()
            .map(|&j| {
                let j = j as usize;
                get(&self.position, 2 * j)
                    + get(&self.velocity, 2 * j)
                    + get(&self.phase, j)
                    + get(&self.fear, j)
            })
            .sum()
    }

    /// Thread `t` of `threads`' share of pass `rep`, and of what precedes
    /// the next pass.
    fn share(&self, t: usize, threads: usize, rep: usize, before: Before) -> (usize, usize) {
        let n = self.fish();
        let half = if before == Before::HalvesSwapped { (t + rep) % threads } else { t };
        (n * half / threads, n * (half + 1) / threads)
    }

    fn prepare(&self, t: usize, threads: usize, before: Before) -> f32 {
        let n = self.fish();
        match before {
            Before::ReadByOne if t == 0 => self.read(0, n),
            Before::ReadByBoth => self.read(n * t / threads, n * (t + 1) / threads),
            _ => 0.0,
        }
    }
}

/// The median time of `reps` passes on `threads` (1 or 2) threads, in ms.
fn time(columns: &Columns, threads: usize, before: Before, reps: usize) -> f64 {
    // Pass `r` starts when `start` reaches `r + 1`; `finished` counts the
    // helper's passes and `prepared` the helper's preparations.
    let (start, finished, prepare, prepared) =
        (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    let wait_for = |counter: &AtomicUsize, value: usize| {
        while counter.load(SeqCst) < value {
            std::hint::spin_loop();
        }
    };
    let mut times = Vec::with_capacity(reps);
    let mut sink = 0.0f32;
    std::thread::scope(|scope| {
        if threads == 2 {
            scope.spawn(|| {
                let mut sink = 0.0f32;
                for rep in 0..reps {
                    wait_for(&start, rep + 1);
                    let (from, to) = columns.share(1, 2, rep, before);
                    columns.integrate(from, to);
                    finished.fetch_add(1, SeqCst);
                    wait_for(&prepare, rep + 1);
                    sink += columns.prepare(1, 2, before);
                    prepared.fetch_add(1, SeqCst);
                }
                std::hint::black_box(sink);
            });
        }
        for rep in 0..reps {
            let t0 = Instant::now();
            start.store(rep + 1, SeqCst);
            let (from, to) = columns.share(0, threads, rep, before);
            columns.integrate(from, to);
            if threads == 2 {
                wait_for(&finished, rep + 1);
            }
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            prepare.store(rep + 1, SeqCst);
            sink += columns.prepare(0, threads, before);
            if threads == 2 {
                wait_for(&prepared, rep + 1);
            }
        }
    });
    std::hint::black_box(sink);
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().ok());
    let fish = args.next().flatten().filter(|&n| n >= 2).unwrap_or(100_000);
    let reps = args.next().flatten().filter(|&n| n > 0).unwrap_or(400);
    let columns = Columns::new(fish);
    println!("{fish} fish, median of {reps} passes, 32 bytes written per fish");
    println!("| before the pass | 1 thread, ms | 2 threads, ms | 1 → 2 threads |");
    println!("|---|---|---|---|");
    for (name, before) in [
        ("one writer", Before::OneWriter),
        ("halves swapped", Before::HalvesSwapped),
        ("read by one core", Before::ReadByOne),
        ("read by both cores", Before::ReadByBoth),
    ] {
        let (one, two) = (time(&columns, 1, before, reps), time(&columns, 2, before, reps));
        println!("| {name} | {one:.3} | {two:.3} | {:.2}× |", one / two);
    }
}
