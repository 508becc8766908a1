//! Sorted word lists searched as integers: a word of up to [`MAX_LEN`] bytes
//! is packed into a `u128` (its bytes big-endian, zero-padded), which keeps
//! the words' order, so a list sorted by word becomes, at compile time, a
//! sorted array of keys that a lookup binary-searches without comparing
//! strings. The build fails if a list is out of order or a word is too long.

/// The longest word a list may hold, in bytes.
pub(crate) const MAX_LEN: usize = 16;

/// The key of `word` (at most [`MAX_LEN`] bytes).
const fn pack(word: &str) -> u128 {
    let bytes = word.as_bytes();
    assert!(
        bytes.len() <= MAX_LEN,
        "a listed word is longer than lexicon::MAX_LEN"
    );
    let mut padded = [0u8; MAX_LEN];
    let mut i = 0;
    while i < bytes.len() {
        padded[i] = bytes[i];
        i += 1;
    }
    u128::from_be_bytes(padded)
}

/// The keys of `words`, which must be sorted and distinct.
pub(crate) const fn keys<const N: usize>(words: &[&str]) -> [u128; N] {
    assert!(words.len() == N);
    let mut out = [0u128; N];
    let mut i = 0;
    while i < N {
        out[i] = pack(words[i]);
        assert!(i == 0 || out[i - 1] < out[i], "a word list is not sorted");
        i += 1;
    }
    out
}

/// The keys of the first words of `pairs`, which must be sorted and distinct.
pub(crate) const fn first_keys<const N: usize>(pairs: &[(&str, &str)]) -> [u128; N] {
    assert!(pairs.len() == N);
    let mut out = [0u128; N];
    let mut i = 0;
    while i < N {
        out[i] = pack(pairs[i].0);
        assert!(i == 0 || out[i - 1] < out[i], "a word list is not sorted");
        i += 1;
    }
    out
}

/// Where `word` is in the list whose keys are `keys`.
pub(crate) fn find(keys: &[u128], word: &str) -> Option<usize> {
    // Padding is zeros, so a word holding a zero byte could match a shorter one.
    if word.len() > MAX_LEN || word.as_bytes().contains(&0) {
        return None;
    }
    keys.binary_search(&pack(word)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_the_order_of_words() {
        const WORDS: &[&str] = &["a", "ab", "abc", "b", "très", "zz"];
        const KEYS: [u128; WORDS.len()] = keys(WORDS);
        for (i, w) in WORDS.iter().enumerate() {
            assert_eq!(find(&KEYS, w), Some(i), "{w}");
        }
        for absent in [
            "",
            "aa",
            "abd",
            "c",
            "tres",
            "a very long word indeed",
            "ab\0",
        ] {
            assert_eq!(find(&KEYS, absent), None, "{absent}");
        }
    }
}
