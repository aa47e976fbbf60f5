/**
 * Which IP addresses WEB may connect to. Everything a request would reach on this machine, its
 * local network or a cloud metadata service is blocked; the rest of the internet is allowed.
 *
 * Blocked IPv4 ranges (also when embedded in IPv6: mapped `::ffff:a.b.c.d`, compatible
 * `::a.b.c.d`, translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, and
 * Teredo `2001:0::/32`, whose server or (inverted) client address counts):
 *
 * | range | why |
 * | --- | --- |
 * | 0.0.0.0/8 | "this network"; 0.0.0.0 reaches the local host |
 * | 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 | private networks |
 * | 100.64.0.0/10 | carrier-grade NAT (shared address space) |
 * | 127.0.0.0/8 | loopback |
 * | 169.254.0.0/16 | link-local, including the 169.254.169.254 metadata service |
 * | 192.0.0.0/24 | IETF protocol assignments (some carry metadata services) |
 * | 198.18.0.0/15 | benchmarking networks, used inside data centres |
 * | 224.0.0.0/4, 240.0.0.0/4, 255.255.255.255 | multicast, reserved, broadcast |
 *
 * Blocked IPv6 ranges: `::` (unspecified), `::1` (loopback), fc00::/7 (unique local),
 * fe80::/10 (link-local), fec0::/10 (old site-local), ff00::/8 (multicast), 64:ff9b:1::/48
 * (local-use NAT64, which maps into private networks), and the
 * IPv4-embedding forms above whenever their IPv4 address is blocked.
 */
import { isIPv4, isIPv6 } from "node:net";

export interface AddressVerdict {
  /** True when WEB must not connect to the address. */
  blocked: boolean;
  /** What the address is, in words ("loopback", "private network", "public"). */
  reason: string;
}

interface Ipv4Range {
  base: number;
  prefix: number;
  reason: string;
}

const IPV4_BLOCKED: Ipv4Range[] = [
  { base: ipv4("0.0.0.0"), prefix: 8, reason: 'the unspecified "this network" range' },
  { base: ipv4("10.0.0.0"), prefix: 8, reason: "a private network" },
  { base: ipv4("100.64.0.0"), prefix: 10, reason: "carrier-grade NAT space" },
  { base: ipv4("127.0.0.0"), prefix: 8, reason: "loopback (this machine)" },
  { base: ipv4("169.254.0.0"), prefix: 16, reason: "link-local (including cloud metadata services)" },
  { base: ipv4("172.16.0.0"), prefix: 12, reason: "a private network" },
  { base: ipv4("192.0.0.0"), prefix: 24, reason: "IETF protocol assignments" },
  { base: ipv4("192.168.0.0"), prefix: 16, reason: "a private network" },
  { base: ipv4("198.18.0.0"), prefix: 15, reason: "benchmarking networks" },
  { base: ipv4("224.0.0.0"), prefix: 4, reason: "multicast" },
  { base: ipv4("240.0.0.0"), prefix: 4, reason: "reserved space (or broadcast)" },
];

/** Judges one IP address (IPv4 dotted or IPv6 text, brackets allowed). Anything unparsable is blocked. */
export function classifyAddress(address: string): AddressVerdict {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return classifyIpv4(ipv4(bare));
  const withoutZone = bare.split("%")[0] ?? bare;
  if (isIPv6(withoutZone)) return classifyIpv6(ipv6Groups(withoutZone));
  return { blocked: true, reason: "not an IP address" };
}

/**
 * True when `host` is this machine by address, not by spelling: an IPv4 literal in
 * 127.0.0.0/8, the IPv6 literal ::1 (brackets allowed), or exactly the name `localhost`.
 * `127.0.0.1.example.com`, `localhost.example` and `::ffff:127.0.0.1` are not.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === "localhost") return true;
  if (isIPv4(bare)) return inIpv4Range(ipv4(bare), ipv4("127.0.0.0"), 8);
  if (!isIPv6(bare)) return false;
  const groups = ipv6Groups(bare);
  return groups.slice(0, 7).every((group) => group === 0) && groups[7] === 1;
}

/** True when `address` is blocked; see `classifyAddress` for the reason. */
export function isBlockedAddress(address: string): boolean {
  return classifyAddress(address).blocked;
}

function classifyIpv4(value: number): AddressVerdict {
  for (const range of IPV4_BLOCKED) {
    if (inIpv4Range(value, range.base, range.prefix)) return { blocked: true, reason: range.reason };
  }
  return { blocked: false, reason: "public" };
}

function classifyIpv6(groups: number[]): AddressVerdict {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const embedded = (high: number, low: number): number => ((high << 16) | low) >>> 0;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 0) return { blocked: true, reason: "the unspecified address" };
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 1) return { blocked: true, reason: "loopback (this machine)" };
  if (upperZero && (g5 === 0xffff || g5 === 0)) return embeddedVerdict(embedded(g6, g7), g5 === 0xffff ? "IPv4-mapped" : "IPv4-compatible");
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return embeddedVerdict(embedded(g6, g7), "NAT64");
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return { blocked: true, reason: "local-use NAT64 (RFC 8215), which translates into private networks" };
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return embeddedVerdict(embedded(g6, g7), "IPv4-translated");
  if (g0 === 0x2002) return embeddedVerdict(embedded(g1, g2), "6to4");
  if (g0 === 0x2001 && g1 === 0) {
    const server = embeddedVerdict(embedded(g2, g3), "Teredo server");
    return server.blocked ? server : embeddedVerdict(~embedded(g6, g7) >>> 0, "Teredo client");
  }
  if ((g0 & 0xfe00) === 0xfc00) return { blocked: true, reason: "a unique local (private) network" };
  if ((g0 & 0xffc0) === 0xfe80) return { blocked: true, reason: "link-local" };
  if ((g0 & 0xffc0) === 0xfec0) return { blocked: true, reason: "site-local (private)" };
  if ((g0 & 0xff00) === 0xff00) return { blocked: true, reason: "multicast" };
  return { blocked: false, reason: "public" };
}

function embeddedVerdict(value: number, form: string): AddressVerdict {
  const inner = classifyIpv4(value);
  return inner.blocked ? { blocked: true, reason: `${form} ${formatIpv4(value)}: ${inner.reason}` } : inner;
}

function inIpv4Range(value: number, base: number, prefix: number): boolean {
  const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  return (value & mask) >>> 0 === (base & mask) >>> 0;
}

function ipv4(text: string): number {
  return text.split(".").reduce((total, part) => ((total << 8) | Number(part)) >>> 0, 0);
}

function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join(".");
}

/** Expands valid IPv6 text (possibly with `::` and a dotted IPv4 tail) into eight 16-bit groups. */
function ipv6Groups(text: string): number[] {
  let source = text.toLowerCase();
  const dotted = source.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted?.[1] !== undefined) {
    const value = ipv4(dotted[1]);
    source = `${source.slice(0, -dotted[1].length)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = source.split("::");
  const parse = (part: string): number[] => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const headGroups = parse(head);
  if (tail === undefined) return headGroups;
  const tailGroups = parse(tail);
  return [...headGroups, ...new Array<number>(8 - headGroups.length - tailGroups.length).fill(0), ...tailGroups];
}
