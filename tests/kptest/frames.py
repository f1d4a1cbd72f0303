# SPDX-License-Identifier: BSD-2-Clause
"""Ethernet/ARP/IPv4/UDP frames for the scripts that play the network
around ksim.  The addresses are the simulated network's (10.0.2.0/24 by
default): they never leave ksim's loopback device."""

import socket
import struct


KSIM_IP = "10.0.2.15"


GW_IP = "10.0.2.2"


GW_MAC = bytes.fromhex("525500000202")


ATTACKER_MAC = bytes.fromhex("02badbadbad1")


BCAST = b"\xff" * 6


def ip4(s):
    return socket.inet_aton(s)


def csum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def eth(dst, src, etype, payload):
    frame = dst + src + struct.pack("!H", etype) + payload
    return frame + b"\0" * max(0, 60 - len(frame))


def arp(op, sha, spa, tha, tpa, dst=BCAST):
    body = struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + sha + ip4(spa) + tha + ip4(tpa)
    return eth(dst, sha, 0x0806, body)


def ipv4(src, dst, proto, payload, ident=1, flags_frag=0x4000, total=None):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total or 20 + len(payload), ident,
                      flags_frag, 64, proto, 0, ip4(src), ip4(dst))
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + payload


def udp(src, dst, sport, dport, data, size=None):
    """A UDP datagram (header and @data); @size: the length field claims
    that many payload bytes (a first fragment), checksum 0 then."""
    ulen = 8 + (len(data) if size is None else size)
    if size is not None:
        return struct.pack("!HHHH", sport, dport, ulen, 0) + data
    pseudo = ip4(src) + ip4(dst) + struct.pack("!BBH", 0, 17, ulen)
    hdr = struct.pack("!HHHH", sport, dport, ulen, 0)
    c = csum(pseudo + hdr + data) or 0xffff
    return struct.pack("!HHHH", sport, dport, ulen, c) + data


def udp_frame(dst_mac, src_mac, src, dst, sport, dport, data):
    return eth(dst_mac, src_mac, 0x0800, ipv4(src, dst, 17, udp(src, dst, sport, dport, data)))


def parse_udp(frame):
    """(src ip, dst ip, sport, dport, payload) of an IPv4/UDP frame, or None."""
    if len(frame) < 42 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return None
    total = struct.unpack("!H", frame[16:18])[0]
    sport, dport, ulen = struct.unpack("!HHH", frame[34:40])
    return (socket.inet_ntoa(frame[26:30]), socket.inet_ntoa(frame[30:34]), sport, dport,
            frame[42:14 + total])
