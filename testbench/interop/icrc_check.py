#!/usr/bin/python3
"""Checks the ICRC of every RoCEv2 frame (UDP destination port 4791, over IPv4 or IPv6,
with or without an 802.1Q tag) in pcap files, independently of HardRoCE's own code:
scapy finds the headers, zlib computes the CRC.

The ICRC (IBTA Annex A17) is zlib's CRC-32 over 8 bytes of ones (the LRH RoCEv2 has not),
then the IP header with its variant fields set to ones -- IPv4: TOS, TTL and header
checksum; IPv6: traffic class, flow label and hop limit --, the UDP header with its
checksum set to ones, the BTH with its reserved byte 4 set to ones, and the rest of the
packet up to the ICRC. The ICRC travels as that CRC, least significant byte first.

usage: icrc_check.py [-v] FILE.pcap...
Prints each frame that fails and a total per file. Exit status 0 only if every RoCEv2
frame is good and at least one was seen; 1 otherwise; 2 for a file that cannot be read.
"""
import struct
import sys
import zlib

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.utils import PcapReader

ROCE_PORT = 4791
UDP_HDR = 8
BTH = 12
ICRC = 4
MASK_LRH = b"\xff" * 8


def masked_ip(ip_hdr):
    """The IP header with the fields the ICRC does not cover set to ones."""
    h = bytearray(ip_hdr)
    if h[0] >> 4 == 4:
        h[1] = 0xFF  # TOS (DSCP and ECN)
        h[8] = 0xFF  # TTL
        h[10:12] = b"\xff\xff"  # header checksum
    else:
        h[0] |= 0x0F  # traffic class, high nibble
        h[1:4] = b"\xff\xff\xff"  # traffic class, low nibble, and flow label
        h[7] = 0xFF  # hop limit
    return bytes(h)


def icrc(ip_hdr, udp_datagram):
    """The ICRC of a RoCEv2 packet: its IP header and its UDP datagram (ICRC included)."""
    u = bytearray(udp_datagram[:-ICRC])
    u[6:8] = b"\xff\xff"  # UDP checksum
    u[UDP_HDR + 4] = 0xFF  # BTH reserved byte
    return zlib.crc32(MASK_LRH + masked_ip(ip_hdr) + bytes(u)) & 0xFFFFFFFF


def roce_parts(pkt):
    """(version, IP header, UDP datagram, why-not-checkable) of a RoCEv2 frame, or None."""
    if UDP not in pkt or pkt[UDP].dport != ROCE_PORT:
        return None
    if IP in pkt:
        ip = pkt[IP]
        raw = bytes(ip)
        hdr_len = ip.ihl * 4
        ip_len = ip.len
        version = 4
    elif IPv6 in pkt:
        ip = pkt[IPv6]
        if ip.nh != 17:  # an extension header: not a RoCEv2 packet
            return None
        raw = bytes(ip)
        hdr_len = 40
        ip_len = 40 + ip.plen
        version = 6
    else:
        return None
    if ip_len > len(raw):
        return version, None, None, f"truncated: {len(raw)} of {ip_len} IP bytes captured"
    udp = raw[hdr_len:ip_len]  # an Ethernet pad after the IP packet is no part of it
    udp_len = struct.unpack(">H", udp[4:6])[0]
    if udp_len != len(udp) or udp_len < UDP_HDR + BTH + ICRC:
        return version, None, None, f"UDP length {udp_len} in {len(udp)} bytes"
    return version, raw[:hdr_len], udp, None


def check_file(path, verbose):
    """-> (frames checked, failures) after printing each failure and the total."""
    seen = {4: 0, 6: 0}
    bad = 0
    with PcapReader(path) as reader:
        for n, pkt in enumerate(reader, 1):
            parts = roce_parts(pkt)
            if parts is None:
                continue
            version, ip_hdr, udp, why = parts
            seen[version] += 1
            if why is None and getattr(pkt, "wirelen", None) and pkt.wirelen > len(pkt):
                why = f"truncated: {len(pkt)} of {pkt.wirelen} bytes captured"
            if why is None:
                wire = struct.unpack("<I", udp[-ICRC:])[0]
                want = icrc(ip_hdr, udp)
                if wire != want:
                    why = f"ICRC {wire:#010x} on the wire, {want:#010x} computed"
                elif verbose:
                    print(f"{path}: frame {n}: IPv{version} opcode {udp[UDP_HDR]:#04x} ok")
            if why is not None:
                bad += 1
                opcode = udp[UDP_HDR] if udp else None
                print(f"{path}: frame {n}: IPv{version}" +
                      (f" opcode {opcode:#04x}" if opcode is not None else "") + f": {why}")
    total = seen[4] + seen[6]
    print(f"{path}: {total} RoCEv2 frames (IPv4 {seen[4]}, IPv6 {seen[6]}): "
          f"{total - bad} good, {bad} bad")
    return total, bad


def main(argv):
    verbose = "-v" in argv
    paths = [a for a in argv if a != "-v"]
    if not paths or any(p.startswith("-") for p in paths):
        print(__doc__.strip().split("\n\n")[2], file=sys.stderr)
        return 2
    total = bad = 0
    for path in paths:
        try:
            t, b = check_file(path, verbose)
        except (OSError, ValueError, struct.error) as e:
            print(f"icrc_check: {path}: {e}", file=sys.stderr)
            return 2
        except Exception as e:  # scapy's Scapy_Exception for a file that is no capture
            print(f"icrc_check: {path}: not a capture: {e}", file=sys.stderr)
            return 2
        total += t
        bad += b
    if len(paths) > 1:
        print(f"all: {total} RoCEv2 frames: {total - bad} good, {bad} bad")
    if total == 0:
        print("icrc_check: no RoCEv2 frame seen: nothing was checked")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
