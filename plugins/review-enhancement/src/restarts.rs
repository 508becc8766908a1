// The byte offsets of the whole words of a front-coded list (lines starting
// with `0`): the index a lookup binary-searches. Shared by `build.rs`, which
// computes it once at compile time, and by `coded.rs`'s tests.

/// The offsets, in order, of the lines of `data` that hold a whole word.
pub fn restarts(data: &str) -> Vec<u32> {
    let mut offsets = Vec::new();
    let mut offset = 0;
    for line in data.split_inclusive('\n') {
        if line.starts_with('0') {
            offsets.push(offset as u32);
        }
        offset += line.len();
    }
    offsets
}
