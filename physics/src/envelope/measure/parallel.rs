//! Runs independent jobs on a few threads and returns their results in the order the jobs
//! were given, whichever finished first, so a measurement is the same on one thread or many.
//! The `finished` callback hears of each job as it ends (for a progress display).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A job: what it is (for progress) and the work.
pub type Job<'a, T> = (String, Box<dyn FnOnce() -> T + Send + 'a>);

/// Runs `jobs` on `threads` threads (at least one); `finished(done, total, what)` is called
/// after each job. Results come back in the jobs' order.
pub fn run<T: Send>(
    threads: usize,
    jobs: Vec<Job<'_, T>>,
    finished: &(dyn Fn(usize, usize, &str) + Sync),
) -> Vec<T> {
    let total = jobs.len();
    let queue: Vec<Mutex<Option<Job<'_, T>>>> =
        jobs.into_iter().map(|job| Mutex::new(Some(job))).collect();
    let results: Vec<Mutex<Option<T>>> = (0..total).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, total.max(1)) {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(slot) = queue.get(index) else {
                    break;
                };
                let taken = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some((what, work)) = taken {
                    let result = work();
                    *results[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                    finished(done.fetch_add(1, Ordering::Relaxed) + 1, total, &what);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every job ran: the workers take each index once until none is left")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_the_jobs_order_on_any_number_of_threads() {
        let make = || -> Vec<Job<'static, usize>> {
            (0..20)
                .map(|i| {
                    let job: Job<'static, usize> = (
                        format!("job {i}"),
                        Box::new(move || {
                            std::thread::sleep(std::time::Duration::from_millis((20 - i) as u64));
                            i * i
                        }),
                    );
                    job
                })
                .collect()
        };
        let count = AtomicUsize::new(0);
        let on_two = run(2, make(), &|_, _, _| {
            count.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(on_two, (0..20).map(|i| i * i).collect::<Vec<_>>());
        assert_eq!(count.load(Ordering::Relaxed), 20);
        assert_eq!(run(1, make(), &|_, _, _| {}), on_two);
    }
}
