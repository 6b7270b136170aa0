//! Work spread over the machine's cores, with results in a fixed order so that what is
//! generated does not depend on the number of cores or on timing.

/// `f` over `items`, in as many parts as there are cores (at most one item each), the first
/// on the calling thread and the others on threads of their own; results in the items' order.
pub(crate) fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let mut parts = items.chunks(chunk);
        let first = parts.next().unwrap_or_default();
        // The other parts on threads of their own; a part whose thread cannot be made (a
        // build sandbox limiting threads, say) runs here after the first, to the same result.
        let others: Vec<Result<_, &[T]>> = parts
            .map(|part| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, || part.iter().map(&f).collect::<Vec<R>>())
                    .map_err(|_| part)
            })
            .collect();
        let mut out: Vec<R> = first.iter().map(&f).collect();
        for other in others {
            match other {
                Ok(handle) => out.extend(
                    handle
                        .join()
                        .unwrap_or_else(|e| std::panic::resume_unwind(e)),
                ),
                Err(part) => out.extend(part.iter().map(&f)),
            }
        }
        out
    })
}

/// [`parallel_map`] over a fixed number of items, the results as an array in the items' order.
pub(crate) fn parallel_array<T: Sync, R: Send, const N: usize>(
    items: [T; N],
    f: impl Fn(&T) -> R + Sync,
) -> [R; N] {
    let results = parallel_map(&items, f);
    match results.try_into() {
        Ok(array) => array,
        Err(_) => unreachable!("parallel_map returns one result per item"),
    }
}

/// `f` over `items` on as many threads as there are cores, each item taken by the next free
/// thread in the items' order; on the calling thread, `started(i)` once per item in the
/// items' order, as soon as item `i` (or one after it) is taken, and `done(i, result)` in the
/// items' order (a result that is ready early waits for those before it). Without threads
/// (none can be made), all of it on the calling thread.
pub(crate) fn parallel_in_order<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    started: &mut dyn FnMut(usize),
    done: &mut dyn FnMut(usize, R),
) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    enum Event<R> {
        Started(usize),
        Done(usize, R),
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len());
    let next = AtomicUsize::new(0);
    let spawned = threads > 1
        && std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel::<Event<R>>();
            let (f, next) = (&f, &next);
            let mut spawned = 0;
            for _ in 0..threads {
                let tx = tx.clone();
                let worker = move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() || tx.send(Event::Started(i)).is_err() {
                        break;
                    }
                    if tx.send(Event::Done(i, f(&items[i]))).is_err() {
                        break;
                    }
                };
                if std::thread::Builder::new()
                    .spawn_scoped(scope, worker)
                    .is_ok()
                {
                    spawned += 1;
                }
            }
            drop(tx);
            let mut ready: std::collections::BTreeMap<usize, R> = Default::default();
            let (mut next_started, mut next_done) = (0, 0);
            for event in rx {
                match event {
                    // Threads may report the items they took out of order.
                    Event::Started(i) => {
                        while next_started <= i {
                            started(next_started);
                            next_started += 1;
                        }
                    }
                    Event::Done(i, r) => {
                        ready.insert(i, r);
                        while let Some(r) = ready.remove(&next_done) {
                            done(next_done, r);
                            next_done += 1;
                        }
                    }
                }
            }
            spawned > 0
        });
    if !spawned {
        for (i, item) in items.iter().enumerate() {
            started(i);
            done(i, f(item));
        }
    }
}

/// A computation started on a thread of its own when the machine has more than one core, its
/// result taken with [`Background::join`]. On one core, or where no thread can be made, it
/// runs in `join` instead, to the same result.
pub(crate) struct Background<T> {
    job: Job<T>,
}

enum Job<T> {
    Running(std::thread::JoinHandle<T>),
    Deferred(Box<dyn FnOnce() -> T + Send>),
}

impl<T: Send + 'static> Background<T> {
    /// Starts `f`.
    pub(crate) fn start(f: impl FnOnce() -> T + Send + 'static) -> Self {
        use std::sync::{Arc, Mutex};

        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        if cores <= 1 {
            return Self {
                job: Job::Deferred(Box::new(f)),
            };
        }
        // The thread takes `f` from the slot; if the thread cannot be made, `f` is still there.
        let slot = Arc::new(Mutex::new(Some(f)));
        let theirs = Arc::clone(&slot);
        let spawned = std::thread::Builder::new().spawn(move || {
            let f = theirs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
                .expect("taken once");
            f()
        });
        let job = match spawned {
            Ok(handle) => Job::Running(handle),
            Err(_) => {
                let f = slot
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .take()
                    .expect("not taken by a thread that was not made");
                Job::Deferred(Box::new(f))
            }
        };
        Self { job }
    }

    /// The result, waiting for it (or computing it here) as needed; a panic of the
    /// computation is raised again here.
    pub(crate) fn join(self) -> T {
        match self.job {
            Job::Running(handle) => handle
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            Job::Deferred(f) => f(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_results_come_back_whether_or_not_on_a_thread() {
        let jobs: Vec<Background<u64>> = (0..4u64)
            .map(|k| Background::start(move || (0..=k * 1000).sum()))
            .collect();
        let sums: Vec<u64> = jobs.into_iter().map(Background::join).collect();
        assert_eq!(sums, vec![0, 500_500, 2_001_000, 4_501_500]);
        let deferred = Background {
            job: Job::Deferred(Box::new(|| 7_u64)),
        };
        assert_eq!(deferred.join(), 7);
    }

    #[test]
    fn parallel_array_keeps_the_items_order() {
        assert_eq!(parallel_array([3, 1, 2], |&k| k * 10), [30, 10, 20]);
        assert_eq!(parallel_array([true, false], |&b| !b), [false, true]);
    }

    #[test]
    fn parallel_map_keeps_the_items_order() {
        for n in [0, 1, 2, 3, 7, 64] {
            let items: Vec<usize> = (0..n).collect();
            let squares = parallel_map(&items, |&i| i * i);
            assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>());
        }
    }

    #[test]
    fn parallel_in_order_reports_every_item_and_keeps_the_order() {
        for n in [0, 1, 2, 3, 7, 64] {
            let items: Vec<usize> = (0..n).collect();
            let (mut started, mut done) = (Vec::new(), Vec::new());
            parallel_in_order(
                &items,
                // Early items take longest, so later ones finish first.
                |&i| {
                    std::thread::sleep(std::time::Duration::from_micros(50 * (n - i) as u64));
                    i * i
                },
                &mut |i| started.push(i),
                &mut |i, r| done.push((i, r)),
            );
            started.sort_unstable();
            assert_eq!(started, items);
            assert_eq!(done, items.iter().map(|&i| (i, i * i)).collect::<Vec<_>>());
        }
    }
}
