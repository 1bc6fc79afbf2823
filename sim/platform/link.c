// SPDX-License-Identifier: MIT
/* Links: a full-duplex Ethernet cable between two NICs' ports, one channel each way. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

struct hroce_sim_link *hroce_sim_link_connect(struct hroce_sim *a, struct hroce_sim *b,
					      const struct hroce_sim_link_params *p)
{
	struct sim_channel_params cp;
	struct sim_channel_hooks hooks = { sim_nic_frame_sent, sim_nic_frame_received, a, b };
	struct hroce_sim_link *l;
	int err;

	if (!a || !b || !p || a->w != b->w) {
		errno = EINVAL;
		return NULL;
	}
	if (a->link || b->link) {
		errno = EBUSY;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->a = a;
	l->b = b;
	if (p->pcap_path) {
		l->pcap = pcap_open_write(p->pcap_path, true);
		if (!l->pcap) {
			err = errno;
			sim_log(HROCE_SIM_LOG_ERR, "link %s-%s: cannot open %s: %s", a->name,
				b->name, p->pcap_path, strerror(err));
			goto err_free;
		}
	}
	cp = (struct sim_channel_params){
		.latency = sim_ns_to_cycles(a->w, p->latency_ns),
		.gbps = p->gbps,
		.clock_mhz = a->w->clock_mhz,
		.pcap = l->pcap,
	};
	if (!cp.latency)
		cp.latency = 1;
	err = sim_channel_init(&l->ch[0], &a->tx, &b->rx, &cp, &hooks);
	if (err)
		goto err_pcap;
	l->nch = 1;
	if (a != b) {
		hooks.tx_ctx = b;
		hooks.rx_ctx = a;
		err = sim_channel_init(&l->ch[1], &b->tx, &a->rx, &cp, &hooks);
		if (err)
			goto err_ch0;
		l->nch = 2;
	}
	a->tx_ch = &l->ch[0];
	b->rx_ch = &l->ch[0];
	if (a != b) {
		b->tx_ch = &l->ch[1];
		a->rx_ch = &l->ch[1];
	}
	a->link = b->link = l;
	return l;

err_ch0:
	sim_channel_fini(&l->ch[0]);
err_pcap:
	if (l->pcap)
		pcap_close(l->pcap);
err_free:
	free(l);
	errno = err;
	return NULL;
}

/* A port with no cable: what it sends is lost, nothing comes in. */
static void unplug(struct hroce_sim *s)
{
	s->link = NULL;
	s->tx_ch = s->rx_ch = NULL;
	*s->tx.tready = 1;
	*s->rx.tvalid = 0;
}

void hroce_sim_link_destroy(struct hroce_sim_link *l)
{
	int err;

	if (!l)
		return;
	unplug(l->a);
	unplug(l->b);
	for (unsigned int i = 0; i < l->nch; i++)
		sim_channel_fini(&l->ch[i]);
	if (l->pcap) {
		err = pcap_close(l->pcap);
		if (err)
			sim_log(HROCE_SIM_LOG_ERR, "link %s-%s: pcap: %s", l->a->name, l->b->name,
				strerror(err));
	}
	free(l);
}

int hroce_sim_link_inject(struct hroce_sim_link *l, const struct hroce_sim *to, const void *frame,
			  size_t len)
{
	if (!l || !frame || !len || len > 65535)
		return EINVAL;
	/* channel 0 runs from a to b, channel 1 from b to a */
	if (to == l->b)
		return sim_channel_inject(&l->ch[0], frame, len);
	if (to == l->a)
		return sim_channel_inject(&l->ch[l->nch - 1], frame, len);
	return EINVAL;
}

static void tap(void *ctx, const uint8_t *frame, size_t len)
{
	struct sim_link_tap *t = ctx;

	if (t->l->tap_fn)
		t->l->tap_fn(t->l->tap_ctx, t->from, frame, len);
}

void hroce_sim_link_set_tap(struct hroce_sim_link *l,
			    void (*fn)(void *ctx, const struct hroce_sim *from, const void *frame,
				       size_t len),
			    void *ctx)
{
	l->tap_fn = fn;
	l->tap_ctx = ctx;
	for (unsigned int i = 0; i < l->nch; i++) {
		l->taps[i] = (struct sim_link_tap){ l, i ? l->b : l->a };
		l->ch[i].tap = fn ? tap : NULL;
		l->ch[i].tap_ctx = &l->taps[i];
	}
}

/* The channel out of from: channel 0 runs from a to b, channel 1 from b to a. */
static struct sim_channel *channel_from(struct hroce_sim_link *l, const struct hroce_sim *from)
{
	if (!l)
		return NULL;
	if (from == l->a)
		return &l->ch[0];
	if (from == l->b)
		return &l->ch[l->nch - 1];
	return NULL;
}

int hroce_sim_link_set_faults(struct hroce_sim_link *l, const struct hroce_sim *from,
			      const struct hroce_sim_frame_faults *f)
{
	struct sim_channel *c = channel_from(l, from);
	char why[128];
	int err;

	if (!c)
		return EINVAL;
	if (f && sim_faults_check(f, why, sizeof(why))) {
		sim_log(HROCE_SIM_LOG_ERR, "link %s-%s: faults: %s", l->a->name, l->b->name, why);
		return EINVAL;
	}
	sim_world_lock(l->a->w);
	err = sim_faults_set(&c->faults, f);
	sim_world_unlock(l->a->w);
	return err;
}

int hroce_sim_link_fault_stats(struct hroce_sim_link *l, const struct hroce_sim *from,
			       struct hroce_sim_frame_fault_stats *st)
{
	struct sim_channel *c = channel_from(l, from);

	if (!c || !st)
		return EINVAL;
	sim_world_lock(l->a->w);
	*st = c->faults.st;
	sim_world_unlock(l->a->w);
	return 0;
}
