/* SPDX-License-Identifier: MIT */
/*
 * Classic libpcap files, Ethernet link type: read (microsecond or nanosecond timestamps,
 * either byte order) and write (nanoseconds by default). No dependency on libpcap.
 */
#ifndef HROCE_PCAP_H
#define HROCE_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PCAP_SNAPLEN 65535

struct pcap_file;

struct pcap_packet {
	uint64_t ts_ns; /* timestamp in nanoseconds */
	size_t len;	/* bytes captured (the original length may have been longer) */
	size_t orig_len;
	uint8_t data[PCAP_SNAPLEN];
};

/* NULL with errno set (EINVAL for a file that is not an Ethernet pcap). */
struct pcap_file *pcap_open_read(const char *path);
/* 0, or -1 at the end of the file, or a positive errno on a damaged file. */
int pcap_read(struct pcap_file *pf, struct pcap_packet *pkt);

/* nanoseconds: the nanosecond-resolution format, else microseconds. NULL with errno set. */
struct pcap_file *pcap_open_write(const char *path, bool nanoseconds);
/* 0 or a positive errno. */
int pcap_write(struct pcap_file *pf, uint64_t ts_ns, const void *data, size_t len);

/* 0, or a positive errno if buffered data could not be written. */
int pcap_close(struct pcap_file *pf);

#endif /* HROCE_PCAP_H */
