//! Wait-free hand-offs between the real-time thread and everyone else.
//!
//! The RT thread never waits: it reads the latest controls from a latest-value slot (input
//! threads write), and publishes a `Copy` frame each tick into latest-value slots and bounded
//! channels whose full state drops the value instead of blocking.

use triple_buffer::{Input, Output, TripleBuffer};

/// Writing end of a latest-value slot.
pub struct LatestWriter<T: Copy + Send>(Input<T>);
/// Reading end of a latest-value slot: always the newest complete value, never blocks.
pub struct LatestReader<T: Copy + Send>(Output<T>);

impl<T: Copy + Send> std::fmt::Debug for LatestWriter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LatestWriter")
    }
}
impl<T: Copy + Send> std::fmt::Debug for LatestReader<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LatestReader")
    }
}

/// A latest-value slot holding `initial` until the first write.
pub fn latest_value<T: Copy + Send>(initial: T) -> (LatestWriter<T>, LatestReader<T>) {
    let (input, output) = TripleBuffer::new(&initial).split();
    (LatestWriter(input), LatestReader(output))
}

impl<T: Copy + Send> LatestWriter<T> {
    /// Publishes a new value (wait-free, no allocation).
    pub fn write(&mut self, value: T) {
        self.0.write(value);
    }
}

impl<T: Copy + Send> LatestReader<T> {
    /// The newest value (wait-free, no allocation).
    pub fn read(&mut self) -> T {
        *self.0.read()
    }

    /// True when a value newer than the last `read` is waiting.
    pub fn has_update(&self) -> bool {
        self.0.updated()
    }
}
