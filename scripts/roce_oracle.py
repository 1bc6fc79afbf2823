#!/usr/bin/python3
"""An independent reading of RoCEv2 captures, with scapy's RoCE layer.

usage: roce_oracle.py FILE.pcap

For every frame, one line: its index (from 1) and, for UDP/4791 frames, the BTH opcode,
destination QP and PSN as scapy decodes them, the ICRC scapy computes, and the ICRC the
frame carries (both as the 4 bytes on the wire, in hex). Other frames: the index and '-'.
"""
import sys

from scapy.all import IP, UDP, rdpcap, load_contrib

load_contrib('roce')
from scapy.contrib.roce import BTH  # noqa: E402


def main(path):
    for index, pkt in enumerate(rdpcap(path), 1):
        if IP not in pkt or UDP not in pkt or pkt[UDP].dport != 4791:
            print(index, '-')
            continue
        ip = pkt[IP]
        wire = bytes(ip)[:ip.len]
        # BTH by hand: scapy would take some source ports (4500, say) for other protocols
        bth = BTH(wire[28:])
        pkt = IP(wire)
        pkt[UDP].remove_payload()
        pkt[UDP].add_payload(bth)
        icrc = pkt[BTH].compute_icrc(None)
        print(index, bth.opcode, bth.dqpn, bth.psn, icrc.hex(), wire[-4:].hex())


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
