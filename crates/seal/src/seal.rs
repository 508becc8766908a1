//! Sealing secrets kept at rest: in the cluster's buckets (session cookies,
//! cached tokens, webhook secrets) and in the jobs store of a single server
//! (webhook secrets). ChaCha20-Poly1305 from `ring`, a fresh random nonce per
//! value, a label as associated data (a sealed value moved under another
//! label does not open). The key is `GLEANER_CLUSTER_KEY`, or one derived
//! from the token secret; without it, nothing sealed can be read.

use hmac::{Hmac, Mac};
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305, NONCE_LEN};
use ring::rand::{SecureRandom, SystemRandom};
use sha2::Sha256;

/// The 32 bytes of a seal key written as 64 hex digits; none for anything else.
pub fn key_bytes(key: &str) -> Option<[u8; 32]> {
    let bytes = hex::decode(key.trim()).ok()?;
    bytes.try_into().ok()
}

/// The key sealed values are made and opened with, and the key records
/// every replica must trust (plugin roll-outs) are signed with.
pub struct Seal {
    key: LessSafeKey,
    signing: [u8; 32],
    random: SystemRandom,
}

impl Seal {
    /// The key `GLEANER_CLUSTER_KEY` gives (64 hex digits), else one derived
    /// from the token secret.
    pub fn new(seal_key: Option<&str>, token_secret: &[u8]) -> Seal {
        let bytes = match seal_key.and_then(key_bytes) {
            Some(bytes) => bytes,
            None => {
                let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(token_secret)
                    .expect("HMAC takes keys of any length");
                mac.update(b"gleaner cluster seal key v1");
                mac.finalize().into_bytes().into()
            }
        };
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&bytes).expect("a 32-byte key");
        mac.update(b"gleaner cluster signing key v1");
        let signing = mac.finalize().into_bytes().into();
        let key = UnboundKey::new(&CHACHA20_POLY1305, &bytes).expect("a 32-byte key");
        Seal {
            key: LessSafeKey::new(key),
            signing,
            random: SystemRandom::new(),
        }
    }

    /// The signature of `parts` (HMAC-SHA256 under the cluster's signing
    /// key, each part length-prefixed), as hex.
    pub fn sign(&self, parts: &[&str]) -> String {
        hex::encode(self.mac(parts).finalize().into_bytes())
    }

    /// Whether `signature` is [`Self::sign`]`(parts)`, compared in constant time.
    pub fn verify(&self, parts: &[&str], signature: &str) -> bool {
        match hex::decode(signature) {
            Ok(bytes) => self.mac(parts).verify_slice(&bytes).is_ok(),
            Err(_) => false,
        }
    }

    fn mac(&self, parts: &[&str]) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.signing).expect("a 32-byte key");
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part.as_bytes());
        }
        mac
    }

    /// `plain` sealed for the bucket key `label`: nonce, then ciphertext and tag.
    pub fn seal(&self, label: &str, plain: &[u8]) -> Result<Vec<u8>, String> {
        let mut nonce = [0u8; NONCE_LEN];
        self.random
            .fill(&mut nonce)
            .map_err(|_| "the system's random source failed".to_owned())?;
        let mut sealed = plain.to_vec();
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(label.as_bytes()),
                &mut sealed,
            )
            .map_err(|_| "sealing failed".to_owned())?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        Ok(out)
    }

    /// The value sealed for `label`; none when it was sealed with another key
    /// (a replica with a different `GLEANER_CLUSTER_KEY`) or for another label.
    pub fn open(&self, label: &str, sealed: &[u8]) -> Option<Vec<u8>> {
        if sealed.len() < NONCE_LEN {
            return None;
        }
        let (nonce, rest) = sealed.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
        let mut buffer = rest.to_vec();
        let plain = self
            .key
            .open_in_place(nonce, Aad::from(label.as_bytes()), &mut buffer)
            .ok()?;
        Some(plain.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_hold_only_for_the_same_key_and_parts() {
        let secret = b"a-token-secret-of-at-least-32-bytes!!";
        let seal = Seal::new(None, secret);
        let signature = seal.sign(&["announce", "review-chunk", "0.2.0"]);
        assert!(seal.verify(&["announce", "review-chunk", "0.2.0"], &signature));
        assert!(Seal::new(None, secret).verify(&["announce", "review-chunk", "0.2.0"], &signature));
        assert!(!seal.verify(&["announce", "review-chunk", "0.2.1"], &signature));
        assert!(
            !seal.verify(&["announce", "review-chunk0", ".2.0"], &signature),
            "parts are delimited"
        );
        assert!(!Seal::new(Some(&"ab".repeat(32)), secret)
            .verify(&["announce", "review-chunk", "0.2.0"], &signature));
        assert!(!seal.verify(&["announce"], "not hex"));
    }

    #[test]
    fn only_the_same_key_and_label_open_a_sealed_value() {
        let secret = b"a-token-secret-of-at-least-32-bytes!!";
        let seal = Seal::new(None, secret);
        let sealed = seal.seal("sessions.s1", b"sid=0123456789").unwrap();
        assert!(
            !sealed.windows(10).any(|w| w == b"0123456789"),
            "not in clear"
        );
        assert_eq!(
            seal.open("sessions.s1", &sealed).unwrap(),
            b"sid=0123456789"
        );
        assert!(
            seal.open("sessions.s2", &sealed).is_none(),
            "another key's label"
        );
        let same = Seal::new(None, secret);
        assert!(
            same.open("sessions.s1", &sealed).is_some(),
            "replicas agree"
        );
        let other = Seal::new(Some(&"ab".repeat(32)), secret);
        assert!(other.open("sessions.s1", &sealed).is_none(), "another key");
        assert!(seal.open("sessions.s1", &sealed[..5]).is_none());
        assert_ne!(
            seal.seal("x", b"v").unwrap(),
            seal.seal("x", b"v").unwrap(),
            "fresh nonces"
        );
    }
}
