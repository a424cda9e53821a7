//! What a resolver's threads compiled of a plan, left in the plan for its next run.

/// What a resolver's threads left of a plan for its next run, whatever its type (the plan
/// does not know the resolver's): at most [`MAX_POOLED`] things. A handle
/// ([`ScratchPool::handle`]) shares it; a clone is a new, empty pool.
#[derive(Default)]
pub struct ScratchPool {
    held: std::sync::Arc<std::sync::Mutex<Vec<Box<dyn std::any::Any + Send>>>>,
}

/// The most things a [`ScratchPool`] keeps.
pub const MAX_POOLED: usize = 16;

impl ScratchPool {
    /// Something of type `T` left here, if any.
    pub fn take<T: 'static>(&self) -> Option<T> {
        let mut held = self.held.lock().ok()?;
        let at = held.iter().position(|b| b.is::<T>())?;
        held.swap_remove(at).downcast::<T>().ok().map(|b| *b)
    }

    /// Leaves `thing` for the next run (dropped when the pool is full).
    pub fn leave<T: Send + 'static>(&self, thing: T) {
        if let Ok(mut held) = self.held.lock()
            && held.len() < MAX_POOLED
        {
            held.push(Box::new(thing));
        }
    }

    /// The same pool, to leave things in later.
    pub fn handle(&self) -> ScratchPool {
        ScratchPool { held: self.held.clone() }
    }

    /// Whether `other` is this pool.
    pub fn is(&self, other: &ScratchPool) -> bool {
        std::sync::Arc::ptr_eq(&self.held, &other.held)
    }
}

impl Clone for ScratchPool {
    /// A clone of a plan may be changed: it starts with nothing compiled.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for ScratchPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = self.held.lock().map_or(0, |h| h.len());
        write!(f, "ScratchPool({held} held)")
    }
}
