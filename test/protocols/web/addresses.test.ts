import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyAddress, isBlockedAddress } from "../../../tools/network/addresses.js";

describe("the address classifier", () => {
  it.each([
    ["127.0.0.1", "loopback (this machine)"],
    ["127.255.255.254", "loopback (this machine)"],
    ["0.0.0.0", 'the unspecified "this network" range'],
    ["0.1.2.3", 'the unspecified "this network" range'],
    ["10.0.0.1", "a private network"],
    ["10.255.255.255", "a private network"],
    ["172.16.0.1", "a private network"],
    ["172.31.255.255", "a private network"],
    ["192.168.0.1", "a private network"],
    ["169.254.169.254", "link-local (including cloud metadata services)"],
    ["100.64.0.1", "carrier-grade NAT space"],
    ["100.127.255.255", "carrier-grade NAT space"],
    ["192.0.0.192", "IETF protocol assignments"],
    ["198.18.0.1", "benchmarking networks"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved space (or broadcast)"],
  ])("blocks IPv4 %s as %s", (address, reason) => {
    expect(classifyAddress(address)).toEqual({ blocked: true, reason });
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.15.255.255", "172.32.0.0", "100.63.255.255", "100.128.0.0", "169.253.255.255", "11.0.0.1", "223.255.255.255", "198.20.0.1"])(
    "allows public IPv4 %s",
    (address) => {
      expect(classifyAddress(address)).toEqual({ blocked: false, reason: "public" });
    },
  );

  it.each([
    ["::1", "loopback (this machine)"],
    ["0:0:0:0:0:0:0:1", "loopback (this machine)"],
    ["[::1]", "loopback (this machine)"],
    ["::", "the unspecified address"],
    ["fc00::1", "a unique local (private) network"],
    ["fdff:ffff::1", "a unique local (private) network"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "site-local (private)"],
    ["ff02::1", "multicast"],
  ])("blocks IPv6 %s as %s", (address, reason) => {
    expect(classifyAddress(address)).toEqual({ blocked: true, reason });
  });

  it.each(["2001:4860:4860::8888", "2606:4700:4700::1111", "2a00:1450::1", "fbff::1", "fe00::1"])("allows public IPv6 %s", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it.each([
    ["::ffff:127.0.0.1", "IPv4-mapped 127.0.0.1: loopback (this machine)"],
    ["::ffff:7f00:1", "IPv4-mapped 127.0.0.1: loopback (this machine)"],
    ["0:0:0:0:0:ffff:a9fe:a9fe", "IPv4-mapped 169.254.169.254: link-local (including cloud metadata services)"],
    ["::FFFF:10.1.2.3", "IPv4-mapped 10.1.2.3: a private network"],
    ["::127.0.0.1", "IPv4-compatible 127.0.0.1: loopback (this machine)"],
    ["64:ff9b::10.0.0.1", "NAT64 10.0.0.1: a private network"],
    ["64:ff9b::a9fe:a9fe", "NAT64 169.254.169.254: link-local (including cloud metadata services)"],
    ["2002:7f00:1::", "6to4 127.0.0.1: loopback (this machine)"],
    ["2002:c0a8:101::1", "6to4 192.168.1.1: a private network"],
  ])("blocks the IPv6 form %s of a blocked IPv4 address", (address, reason) => {
    expect(classifyAddress(address)).toEqual({ blocked: true, reason });
  });

  it.each([
    ["64:ff9b:1::a00:1", "local-use NAT64 (RFC 8215), which translates into private networks"],
    ["64:ff9b:1:ffff::8.8.8.8", "local-use NAT64 (RFC 8215), which translates into private networks"],
    ["::ffff:0:127.0.0.1", "IPv4-translated 127.0.0.1: loopback (this machine)"],
    ["::ffff:0:a9fe:a9fe", "IPv4-translated 169.254.169.254: link-local (including cloud metadata services)"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo client 127.0.0.1: loopback (this machine)"],
    ["2001:0:a00:1::1", "Teredo server 10.0.0.1: a private network"],
  ])("blocks the less common IPv6 embedding %s", (address, reason) => {
    expect(classifyAddress(address)).toEqual({ blocked: true, reason });
  });

  it.each(["::ffff:0:8.8.8.8", "2001:0:4136:e378:8000:63bf:f7f7:f7f7", "2001:4860::1"])("allows the less common IPv6 embedding %s of public IPv4 addresses", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it.each(["::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:808:808::1"])("allows the IPv6 form %s of a public IPv4 address", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it.each(["", "localhost", "example.com", "1.2.3", "256.1.1.1", "::g", "1.2.3.4.5"])("blocks %j, which is not an IP address", (text) => {
    expect(classifyAddress(text)).toEqual({ blocked: true, reason: "not an IP address" });
  });

  it("judges every IPv4 address the same as its IPv4-mapped IPv6 forms", () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        const [a = 0, b = 0, c = 0, d = 0] = address.split(".").map(Number);
        const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        const plain = isBlockedAddress(address);
        expect(isBlockedAddress(`::ffff:${address}`)).toBe(plain);
        expect(isBlockedAddress(`::ffff:${hex}`)).toBe(plain);
        expect(isBlockedAddress(`64:ff9b::${address}`)).toBe(plain);
      }),
      { numRuns: 500 },
    );
  });
});
