// SPDX-License-Identifier: MIT
#include "pcap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define LINKTYPE_ETHERNET 1

struct pcap_file {
	FILE *f;
	bool swapped;	  /* written on a host of the other byte order */
	bool nanoseconds; /* timestamps' second field is in ns, not us */
};

static uint32_t get32(const struct pcap_file *pf, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return pf->swapped ? __builtin_bswap32(v) : v;
}

struct pcap_file *pcap_open_read(const char *path)
{
	struct pcap_file *pf = calloc(1, sizeof(*pf));
	uint8_t hdr[24];
	uint32_t magic;
	int err = EINVAL;

	if (!pf)
		return NULL;
	pf->f = fopen(path, "rb");
	if (!pf->f) {
		err = errno;
		goto err_free;
	}
	if (fread(hdr, 1, sizeof(hdr), pf->f) != sizeof(hdr))
		goto err_close;
	memcpy(&magic, hdr, 4);
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS) {
		pf->nanoseconds = magic == PCAP_MAGIC_NS;
	} else if (__builtin_bswap32(magic) == PCAP_MAGIC_US ||
		   __builtin_bswap32(magic) == PCAP_MAGIC_NS) {
		pf->swapped = true;
		pf->nanoseconds = __builtin_bswap32(magic) == PCAP_MAGIC_NS;
	} else {
		goto err_close;
	}
	if (get32(pf, hdr + 20) != LINKTYPE_ETHERNET)
		goto err_close;
	return pf;

err_close:
	fclose(pf->f);
err_free:
	free(pf);
	errno = err;
	return NULL;
}

int pcap_read(struct pcap_file *pf, struct pcap_packet *pkt)
{
	uint8_t rec[16];
	uint32_t sec, frac, incl;
	size_t n = fread(rec, 1, sizeof(rec), pf->f);

	if (n == 0)
		return -1;
	if (n != sizeof(rec))
		return EIO;
	sec = get32(pf, rec);
	frac = get32(pf, rec + 4);
	incl = get32(pf, rec + 8);
	if (incl > PCAP_SNAPLEN)
		return EFBIG;
	pkt->ts_ns = (uint64_t)sec * 1000000000u + (pf->nanoseconds ? frac : frac * 1000ull);
	pkt->len = incl;
	pkt->orig_len = get32(pf, rec + 12);
	if (fread(pkt->data, 1, incl, pf->f) != incl)
		return EIO;
	return 0;
}

struct pcap_file *pcap_open_write(const char *path, bool nanoseconds)
{
	struct pcap_file *pf = calloc(1, sizeof(*pf));
	uint32_t hdr[6] = { nanoseconds ? PCAP_MAGIC_NS : PCAP_MAGIC_US,
			    2 | (4u << 16),
			    0,
			    0,
			    PCAP_SNAPLEN,
			    LINKTYPE_ETHERNET };
	int err;

	if (!pf)
		return NULL;
	pf->nanoseconds = nanoseconds;
	pf->f = fopen(path, "wb");
	if (!pf->f)
		goto err;
	if (fwrite(hdr, 1, sizeof(hdr), pf->f) != sizeof(hdr)) {
		fclose(pf->f);
		goto err;
	}
	return pf;

err:
	err = errno;
	free(pf);
	errno = err;
	return NULL;
}

int pcap_write(struct pcap_file *pf, uint64_t ts_ns, const void *data, size_t len)
{
	uint32_t rec[4];

	if (len > PCAP_SNAPLEN)
		return EFBIG;
	rec[0] = (uint32_t)(ts_ns / 1000000000u);
	rec[1] = (uint32_t)(ts_ns % 1000000000u / (pf->nanoseconds ? 1 : 1000));
	rec[2] = (uint32_t)len;
	rec[3] = (uint32_t)len;
	if (fwrite(rec, 1, sizeof(rec), pf->f) != sizeof(rec) || fwrite(data, 1, len, pf->f) != len)
		return errno ? errno : EIO;
	return 0;
}

int pcap_close(struct pcap_file *pf)
{
	int err = fclose(pf->f) ? errno : 0;

	free(pf);
	return err;
}
