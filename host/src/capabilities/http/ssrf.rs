//! Classification of IP addresses for SSRF (server-side request forgery) protection.
//!
//! Plugins make outbound HTTP requests through the host. Before connecting, the host
//! resolves the target and calls [`check`] on every resolved address, so a plugin cannot
//! reach loopback services, the private network, cloud metadata endpoints
//! (`169.254.169.254`) or other special-purpose ranges, whether written as plain IPv4 or
//! smuggled through IPv6 forms such as IPv4-mapped, NAT64 or 6to4 addresses.
//!
//! The rules follow the IANA IPv4/IPv6 special-purpose address registries, erring on the
//! side of blocking: anything that is not public unicast is refused.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// What a refusal of a local address adds, for plugin authors: the way to
/// aim a plugin at a site served on this machine.
pub const LOCAL_SITE_HINT: &str = " (to test a plugin against a site served on this machine, map \
     its host there with GLEANER_UPSTREAM_OVERRIDE: PLUGINS.md, \"Testing against a local site\")";

/// Whether `ip` is public, or on this machine or a private network
/// (loopback, RFC 1918, IPv6 unique local): where webhooks may go when the
/// operator allows private receivers. Link-local addresses (cloud metadata)
/// and every other special range stay refused.
pub fn is_public_or_local(ip: IpAddr) -> bool {
    matches!(
        check(ip),
        Ok(()) | Err(Blocked::Loopback | Blocked::Private | Blocked::UniqueLocal)
    )
}

/// Why an address may not be contacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    /// `127.0.0.0/8` or `::1`.
    Loopback,
    /// RFC 1918 private networks: `10/8`, `172.16/12`, `192.168/16`.
    Private,
    /// `169.254.0.0/16` (including cloud metadata `169.254.169.254`) or `fe80::/10`.
    LinkLocal,
    /// Carrier-grade NAT shared address space `100.64.0.0/10`.
    SharedAddressSpace,
    /// IPv6 unique local addresses `fc00::/7`.
    UniqueLocal,
    /// IPv4-mapped IPv6 addresses `::ffff:0:0/96` (always blocked; connect over IPv4 instead).
    Ipv4Mapped,
    /// Deprecated IPv4-compatible IPv6 addresses `::/96`.
    Ipv4Compatible,
    /// NAT64 translation prefixes `64:ff9b::/96` and `64:ff9b:1::/48`.
    Nat64,
    /// Multicast: `224.0.0.0/4` or `ff00::/8`.
    Multicast,
    /// The unspecified address `0.0.0.0` or `::`.
    Unspecified,
    /// The limited broadcast address `255.255.255.255`.
    Broadcast,
    /// Documentation ranges: `192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`, `3fff::/20`.
    Documentation,
    /// Reserved or special-purpose ranges: `192.0.0/24`, `240/4`, `100::/64`, `2001::/23`,
    /// `5f00::/16` and IPv6 space outside global unicast `2000::/3`.
    Reserved,
    /// Deprecated IPv6 site-local addresses `fec0::/10`.
    SiteLocal,
    /// A 6to4 address (`2002::/16`) whose embedded IPv4 address is not public.
    SixToFour,
    /// Teredo tunnelling addresses `2001::/32`.
    Teredo,
    /// Benchmarking ranges `198.18.0.0/15` and `2001:2::/48`.
    Benchmarking,
    /// "This network" `0.0.0.0/8` (other than `0.0.0.0` itself).
    ThisNetwork,
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Blocked::Loopback => "a loopback address",
            Blocked::Private => "a private-network address",
            Blocked::LinkLocal => "a link-local address",
            Blocked::SharedAddressSpace => "a carrier-grade NAT shared address (100.64.0.0/10)",
            Blocked::UniqueLocal => "an IPv6 unique local address (fc00::/7)",
            Blocked::Ipv4Mapped => "an IPv4-mapped IPv6 address (::ffff:0:0/96)",
            Blocked::Ipv4Compatible => "an IPv4-compatible IPv6 address (::/96)",
            Blocked::Nat64 => "a NAT64 address (64:ff9b::/96 or 64:ff9b:1::/48)",
            Blocked::Multicast => "a multicast address",
            Blocked::Unspecified => "the unspecified address",
            Blocked::Broadcast => "the broadcast address",
            Blocked::Documentation => "a documentation-only address",
            Blocked::Reserved => "a reserved address",
            Blocked::SiteLocal => "an IPv6 site-local address (fec0::/10)",
            Blocked::SixToFour => "a 6to4 address (2002::/16) embedding a non-public IPv4 address",
            Blocked::Teredo => "a Teredo tunnelling address (2001::/32)",
            Blocked::Benchmarking => "a benchmarking address",
            Blocked::ThisNetwork => "a \"this network\" address (0.0.0.0/8)",
        })
    }
}

/// IPv4 rules, first match wins: (network, prefix length, reason).
const V4_RULES: &[([u8; 4], u32, Blocked)] = &[
    ([255, 255, 255, 255], 32, Blocked::Broadcast),
    ([0, 0, 0, 0], 32, Blocked::Unspecified),
    ([0, 0, 0, 0], 8, Blocked::ThisNetwork),
    ([10, 0, 0, 0], 8, Blocked::Private),
    ([100, 64, 0, 0], 10, Blocked::SharedAddressSpace),
    ([127, 0, 0, 0], 8, Blocked::Loopback),
    ([169, 254, 0, 0], 16, Blocked::LinkLocal),
    ([172, 16, 0, 0], 12, Blocked::Private),
    ([192, 0, 0, 0], 24, Blocked::Reserved),
    ([192, 0, 2, 0], 24, Blocked::Documentation),
    ([192, 168, 0, 0], 16, Blocked::Private),
    ([198, 18, 0, 0], 15, Blocked::Benchmarking),
    ([198, 51, 100, 0], 24, Blocked::Documentation),
    ([203, 0, 113, 0], 24, Blocked::Documentation),
    ([224, 0, 0, 0], 4, Blocked::Multicast),
    ([240, 0, 0, 0], 4, Blocked::Reserved),
];

const fn v6(a: u16, b: u16, c: u16, f: u16) -> Ipv6Addr {
    Ipv6Addr::new(a, b, c, 0, 0, f, 0, 0)
}

/// IPv6 rules, first match wins: (network, prefix length, reason).
const V6_RULES: &[(Ipv6Addr, u32, Blocked)] = &[
    (Ipv6Addr::UNSPECIFIED, 128, Blocked::Unspecified),
    (Ipv6Addr::LOCALHOST, 128, Blocked::Loopback),
    (v6(0, 0, 0, 0xffff), 96, Blocked::Ipv4Mapped),
    (v6(0, 0, 0, 0), 96, Blocked::Ipv4Compatible),
    (v6(0x64, 0xff9b, 0, 0), 96, Blocked::Nat64),
    (v6(0x64, 0xff9b, 1, 0), 48, Blocked::Nat64),
    (v6(0x100, 0, 0, 0), 64, Blocked::Reserved),
    (v6(0x2001, 0x2, 0, 0), 48, Blocked::Benchmarking),
    (v6(0x2001, 0xdb8, 0, 0), 32, Blocked::Documentation),
    (v6(0x2001, 0, 0, 0), 32, Blocked::Teredo),
    (v6(0x2001, 0, 0, 0), 23, Blocked::Reserved),
    (v6(0x3fff, 0, 0, 0), 20, Blocked::Documentation),
    (v6(0x5f00, 0, 0, 0), 16, Blocked::Reserved),
    (v6(0xfc00, 0, 0, 0), 7, Blocked::UniqueLocal),
    (v6(0xfe80, 0, 0, 0), 10, Blocked::LinkLocal),
    (v6(0xfec0, 0, 0, 0), 10, Blocked::SiteLocal),
    (v6(0xff00, 0, 0, 0), 8, Blocked::Multicast),
];

fn v4_in(ip: Ipv4Addr, net: [u8; 4], prefix: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
    u32::from(ip) & mask == u32::from_be_bytes(net) & mask
}

fn v6_in(ip: Ipv6Addr, net: Ipv6Addr, prefix: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - prefix).unwrap_or(0);
    u128::from(ip) & mask == u128::from(net) & mask
}

fn check_v4(ip: Ipv4Addr) -> Result<(), Blocked> {
    match V4_RULES
        .iter()
        .find(|(net, prefix, _)| v4_in(ip, *net, *prefix))
    {
        Some((_, _, why)) => Err(*why),
        None => Ok(()),
    }
}

fn check_v6(ip: Ipv6Addr) -> Result<(), Blocked> {
    if let Some((_, _, why)) = V6_RULES
        .iter()
        .find(|(net, prefix, _)| v6_in(ip, *net, *prefix))
    {
        return Err(*why);
    }
    let seg = ip.segments();
    if seg[0] == 0x2002 {
        // 6to4: 2002:AABB:CCDD::/48 routes to the IPv4 address AA.BB.CC.DD.
        let [a, b] = seg[1].to_be_bytes();
        let [c, d] = seg[2].to_be_bytes();
        return check_v4(Ipv4Addr::new(a, b, c, d)).map_err(|_| Blocked::SixToFour);
    }
    if seg[0] & 0xe000 != 0x2000 {
        // Only 2000::/3 is allocated as global unicast.
        return Err(Blocked::Reserved);
    }
    Ok(())
}

/// Ok when `ip` is a public unicast address that a plugin may connect to; otherwise the
/// reason it is blocked.
pub fn check(ip: IpAddr) -> Result<(), Blocked> {
    match ip {
        IpAddr::V4(v4) => check_v4(v4),
        IpAddr::V6(v6) => check_v6(v6),
    }
}

/// True when `ip` is a public unicast address that a plugin may connect to.
pub fn is_public(ip: IpAddr) -> bool {
    check(ip).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(cases: &[(&str, Result<(), Blocked>)]) {
        for (text, want) in cases {
            let ip: IpAddr = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(check(ip), *want, "check({text})");
            assert_eq!(is_public(ip), want.is_ok(), "is_public({text})");
        }
    }

    #[test]
    fn ipv4_table() {
        use Blocked::*;
        expect(&[
            ("0.0.0.0", Err(Unspecified)),
            ("0.1.2.3", Err(ThisNetwork)),
            ("10.0.0.1", Err(Private)),
            ("10.255.255.255", Err(Private)),
            ("100.64.0.1", Err(SharedAddressSpace)),
            ("100.127.255.255", Err(SharedAddressSpace)),
            ("100.128.0.1", Ok(())),
            ("100.63.255.255", Ok(())),
            ("127.0.0.1", Err(Loopback)),
            ("127.255.0.9", Err(Loopback)),
            ("169.254.169.254", Err(LinkLocal)),
            ("169.254.0.1", Err(LinkLocal)),
            ("172.16.0.1", Err(Private)),
            ("172.31.255.255", Err(Private)),
            ("172.32.0.1", Ok(())),
            ("172.15.255.255", Ok(())),
            ("192.0.0.8", Err(Reserved)),
            ("192.0.2.1", Err(Documentation)),
            ("192.168.1.1", Err(Private)),
            ("198.18.0.1", Err(Benchmarking)),
            ("198.19.255.255", Err(Benchmarking)),
            ("198.20.0.1", Ok(())),
            ("198.51.100.7", Err(Documentation)),
            ("203.0.113.9", Err(Documentation)),
            ("224.0.0.1", Err(Multicast)),
            ("239.255.255.250", Err(Multicast)),
            ("240.0.0.1", Err(Reserved)),
            ("255.255.255.254", Err(Reserved)),
            ("255.255.255.255", Err(Broadcast)),
            ("8.8.8.8", Ok(())),
            ("1.1.1.1", Ok(())),
            ("93.184.216.34", Ok(())),
        ]);
    }

    #[test]
    fn ipv6_table() {
        use Blocked::*;
        expect(&[
            ("::", Err(Unspecified)),
            ("::1", Err(Loopback)),
            ("::ffff:127.0.0.1", Err(Ipv4Mapped)),
            ("::ffff:8.8.8.8", Err(Ipv4Mapped)),
            ("::ffff:169.254.169.254", Err(Ipv4Mapped)),
            ("::127.0.0.1", Err(Ipv4Compatible)),
            ("::8.8.8.8", Err(Ipv4Compatible)),
            ("64:ff9b::7f00:1", Err(Nat64)),
            ("64:ff9b::808:808", Err(Nat64)),
            ("64:ff9b:1::1", Err(Nat64)),
            ("100::1", Err(Reserved)),
            ("fc00::1", Err(UniqueLocal)),
            ("fd12:3456::1", Err(UniqueLocal)),
            ("fe80::1", Err(LinkLocal)),
            ("febf::1", Err(LinkLocal)),
            ("fec0::1", Err(SiteLocal)),
            ("ff02::1", Err(Multicast)),
            ("ff0e::1", Err(Multicast)),
            ("2001:db8::1", Err(Documentation)),
            ("3fff::1", Err(Documentation)),
            ("2001::1", Err(Teredo)),
            ("2001:0:4136:e378::1", Err(Teredo)),
            ("2001:2::1", Err(Benchmarking)),
            ("2001:10::1", Err(Reserved)),
            ("2002:7f00:1::1", Err(SixToFour)),
            ("2002:a00:1::1", Err(SixToFour)),
            ("2002:a9fe:a9fe::1", Err(SixToFour)),
            ("2002:808:808::1", Ok(())),
            ("4000::1", Err(Reserved)),
            ("1::1", Err(Reserved)),
            ("2606:4700::1111", Ok(())),
            ("2001:4860:4860::8888", Ok(())),
            ("2a00:1450:4001:80b::200e", Ok(())),
        ]);
    }

    #[test]
    fn display_reads_as_a_phrase() {
        assert_eq!(Blocked::Loopback.to_string(), "a loopback address");
        assert!(Blocked::Nat64.to_string().contains("64:ff9b"));
        let msg = format!("refusing to connect to {}", Blocked::LinkLocal);
        assert_eq!(msg, "refusing to connect to a link-local address");
    }
}
