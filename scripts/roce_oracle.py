#!/usr/bin/python3
"""An independent reading of RoCEv2 captures, with scapy's RoCE layer.

usage: roce_oracle.py FILE.pcap

For every frame, one line: its index (from 1) and, for UDP/4791 frames, the BTH opcode,
destination QP and PSN as scapy decodes them, the ICRC scapy computes, and the ICRC the
frame carries (both as the 4 bytes on the wire, in hex). Other frames: the index and '-'.
"""
import struct
import sys
from zlib import crc32

from scapy.all import IP, IPv6, UDP, Raw, raw, rdpcap, load_contrib

load_contrib('roce')
from scapy.contrib.roce import BTH  # noqa: E402


def icrc_ipv6(pkt):
    """scapy 2.5's BTH computes the ICRC over IPv4 only: over IPv6 the same way, the
    variant fields (traffic class, flow label, hop limit, UDP checksum, FECN, BECN and the
    reserved bits after them) set by field name, as IBTA Annex A17 names them."""
    ps = Raw(b'\xff' * 8) / pkt.copy()
    ps[IPv6].tc = 0xff
    ps[IPv6].fl = 0xfffff
    ps[IPv6].hlim = 0xff
    ps[UDP].chksum = 0xffff
    ps[BTH].fecn = 1
    ps[BTH].becn = 1
    ps[BTH].resv6 = 0xff
    bth = ps[BTH].self_build()
    payload = raw(ps[BTH].payload)
    ps[UDP].payload = Raw(bth + payload + b'\xff' * 4)
    return struct.pack("!I", crc32(raw(ps)[:-4]) & 0xffffffff)[::-1]


def main(path):
    for index, pkt in enumerate(rdpcap(path), 1):
        if (IP not in pkt and IPv6 not in pkt) or UDP not in pkt or pkt[UDP].dport != 4791:
            print(index, '-')
            continue
        if IP in pkt:
            ip, layer, udp_off = pkt[IP], IP, 20
            wire = bytes(ip)[:ip.len]
        else:
            ip, layer, udp_off = pkt[IPv6], IPv6, 40
            wire = bytes(ip)[:40 + ip.plen]
        # BTH by hand: scapy would take some source ports (4500, say) for other protocols
        bth = BTH(wire[udp_off + 8:])
        pkt = layer(wire)
        pkt[UDP].remove_payload()
        pkt[UDP].add_payload(bth)
        icrc = icrc_ipv6(pkt) if layer is IPv6 else pkt[BTH].compute_icrc(None)
        print(index, bth.opcode, bth.dqpn, bth.psn, icrc.hex(), wire[-4:].hex())


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
