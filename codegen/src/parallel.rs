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

#[cfg(test)]
mod tests {
    use super::*;

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
