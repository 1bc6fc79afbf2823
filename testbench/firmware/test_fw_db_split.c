// SPDX-License-Identifier: MIT
/*
 * Bench of axi_db_split, between the PCIe bridge's 512-bit BAR master and the register
 * path and doorbell pages of the board top.
 *
 * A writer and a reader on the bridge's side, each one burst at a time, with idle cycles:
 * writes of 1 to 4 beats below bit 21 (BAR0, BAR2) and of one beat at and above it (the
 * doorbell pages), reads of 1 to 4 beats to both. Slaves on both sides take each channel
 * with random back-pressure and answer with random responses. Checked: every write reaches
 * the side its address names, whole (address, length, every beat's data, strobes and
 * WLAST), the other side sees nothing; its B comes back with its ID and the response of
 * the side that took it; a register read gets the register side's beats with their ID and
 * RLAST; a read of the pages gets SLVERR and zeros on every beat, RLAST on the last.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

extern const struct vmodel_ops vmodel_Vfw_db_split;

#define BEAT 64
#define MAX_BEATS 4
#define DB_BASE 0x200000u

struct burst {
	uint32_t addr;
	unsigned int id, len; /* AWLEN/ARLEN */
	uint8_t data[MAX_BEATS][BEAT];
	uint64_t strb[MAX_BEATS];
	bool db;
};

/* A slave's side of the write channels: the burst it is taking, and its answer. */
struct wslave {
	bool aw_taken;
	uint32_t addr;
	unsigned int id, len, beats;
	uint8_t data[MAX_BEATS][BEAT];
	uint64_t strb[MAX_BEATS];
	bool last[MAX_BEATS];
	bool b_valid;
	unsigned int resp;
};

struct split_tb {
	struct dut d;
	struct bench *b;
	unsigned int idle_pct, busy_pct;
	/* writer */
	struct burst w;
	bool w_active, aw_sent, b_seen;
	unsigned int w_beat;
	bool w_offer;
	/* reader */
	struct burst r;
	bool r_active, ar_sent;
	unsigned int r_beat;
	/* register-side read slave: the burst it answers */
	bool rs_active;
	uint32_t rs_addr;
	unsigned int rs_id, rs_len, rs_beat;
	bool rs_valid;
	struct wslave reg, db;
	uint64_t writes, reads, db_writes, db_reads;
	char why[200];
};

static struct {
	const struct vmodel_port *s_awid, *s_awaddr, *s_awlen, *s_awsize, *s_awburst, *s_awvalid,
		*s_awready;
	const struct vmodel_port *s_wdata, *s_wstrb, *s_wlast, *s_wvalid, *s_wready, *s_bid,
		*s_bresp;
	const struct vmodel_port *s_bvalid, *s_bready, *s_arid, *s_araddr, *s_arlen, *s_arsize,
		*s_arburst;
	const struct vmodel_port *s_arvalid, *s_arready, *s_rid, *s_rdata, *s_rresp, *s_rlast,
		*s_rvalid;
	const struct vmodel_port *s_rready, *m_awid, *m_awaddr, *m_awlen, *m_awvalid, *m_awready,
		*m_wdata;
	const struct vmodel_port *m_wstrb, *m_wlast, *m_wvalid, *m_wready, *m_bid, *m_bresp,
		*m_bvalid;
	const struct vmodel_port *m_bready, *m_arid, *m_araddr, *m_arlen, *m_arvalid, *m_arready,
		*m_rid;
	const struct vmodel_port *m_rdata, *m_rresp, *m_rlast, *m_rvalid, *m_rready, *d_awaddr,
		*d_awlen;
	const struct vmodel_port *d_awvalid, *d_awready, *d_wdata, *d_wstrb, *d_wlast, *d_wvalid,
		*d_wready;
	const struct vmodel_port *d_bresp, *d_bvalid, *d_bready;
} p;

static void fail(struct split_tb *t, const char *what)
{
	if (!t->why[0])
		snprintf(t->why, sizeof(t->why), "%s (cycle %llu, write %llu, read %llu)", what,
			 (unsigned long long)t->d.cycle, (unsigned long long)t->writes,
			 (unsigned long long)t->reads);
}

/* The data a register-side read returns: a function of its address and beat. */
static void read_pattern(uint32_t addr, unsigned int beat, uint8_t *out)
{
	for (unsigned int i = 0; i < BEAT; i++)
		out[i] = (uint8_t)(addr * 7 + beat * 31 + i);
}

static void new_write(struct split_tb *t)
{
	struct burst *w = &t->w;

	memset(w, 0, sizeof(*w));
	w->db = bench_chance(t->b, 50);
	w->id = (unsigned int)bench_range(t->b, 0, 15);
	if (w->db) {
		w->addr = DB_BASE + (uint32_t)bench_range(t->b, 0, 1023) * BEAT;
	} else {
		w->addr = (uint32_t)bench_range(t->b, 0, DB_BASE / BEAT - 1) * BEAT;
		w->len = (unsigned int)bench_range(t->b, 0, MAX_BEATS - 1);
	}
	for (unsigned int i = 0; i <= w->len; i++) {
		bench_fill(t->b, w->data[i], BEAT);
		w->strb[i] = bench_rand(t->b);
	}
	t->w_active = true;
	t->aw_sent = t->b_seen = t->w_offer = false;
	t->w_beat = 0;
	t->d.pending++;
}

static void new_read(struct split_tb *t)
{
	struct burst *r = &t->r;

	memset(r, 0, sizeof(*r));
	r->db = bench_chance(t->b, 30);
	r->id = (unsigned int)bench_range(t->b, 0, 15);
	r->addr = (r->db ? DB_BASE : 0) + (uint32_t)bench_range(t->b, 0, 1023) * BEAT;
	r->len = (unsigned int)bench_range(t->b, 0, MAX_BEATS - 1);
	t->r_active = true;
	t->ar_sent = false;
	t->r_beat = 0;
	t->d.pending++;
}

static void drive(void *ctx)
{
	struct split_tb *t = ctx;
	struct burst *w = &t->w, *r = &t->r;

	/* writer: AW, and W beats with idle cycles between them */
	vport_set(p.s_awid, w->id);
	vport_set(p.s_awaddr, w->addr);
	vport_set(p.s_awlen, w->len);
	vport_set(p.s_awsize, 6);
	vport_set(p.s_awburst, 1);
	vport_set(p.s_awvalid, t->w_active && !t->aw_sent);
	if (t->w_active && t->w_beat <= w->len && !t->w_offer && !bench_chance(t->b, t->idle_pct))
		t->w_offer = true;
	vport_write(p.s_wdata, w->data[t->w_beat <= w->len ? t->w_beat : 0], BEAT);
	vport_set(p.s_wstrb, w->strb[t->w_beat <= w->len ? t->w_beat : 0]);
	vport_set(p.s_wlast, t->w_beat == w->len);
	vport_set(p.s_wvalid, t->w_offer);
	vport_set(p.s_bready, !bench_chance(t->b, t->busy_pct));
	/* reader */
	vport_set(p.s_arid, r->id);
	vport_set(p.s_araddr, r->addr);
	vport_set(p.s_arlen, r->len);
	vport_set(p.s_arsize, 6);
	vport_set(p.s_arburst, 1);
	vport_set(p.s_arvalid, t->r_active && !t->ar_sent);
	vport_set(p.s_rready, !bench_chance(t->b, t->busy_pct));
	/* the slaves */
	vport_set(p.m_awready, !bench_chance(t->b, t->busy_pct));
	vport_set(p.m_wready, !bench_chance(t->b, t->busy_pct));
	vport_set(p.m_bid, t->reg.id);
	vport_set(p.m_bresp, t->reg.resp);
	vport_set(p.m_bvalid, t->reg.b_valid);
	vport_set(p.d_awready, !bench_chance(t->b, t->busy_pct));
	vport_set(p.d_wready, !bench_chance(t->b, t->busy_pct));
	vport_set(p.d_bresp, t->db.resp);
	vport_set(p.d_bvalid, t->db.b_valid);
	vport_set(p.m_arready, !t->rs_active && !bench_chance(t->b, t->busy_pct));
	if (t->rs_active && !t->rs_valid && !bench_chance(t->b, t->idle_pct))
		t->rs_valid = true;
	{
		uint8_t beat[BEAT];

		read_pattern(t->rs_addr, t->rs_beat, beat);
		vport_write(p.m_rdata, beat, BEAT);
	}
	vport_set(p.m_rid, t->rs_id);
	vport_set(p.m_rresp, 0);
	vport_set(p.m_rlast, t->rs_beat == t->rs_len);
	vport_set(p.m_rvalid, t->rs_valid);
}

/* A write slave's channels at a clock edge; db: the doorbell side (no IDs). */
static void wslave_sample(struct split_tb *t, struct wslave *s, bool db)
{
	const struct vmodel_port *awv = db ? p.d_awvalid : p.m_awvalid;
	const struct vmodel_port *awr = db ? p.d_awready : p.m_awready;
	const struct vmodel_port *wv = db ? p.d_wvalid : p.m_wvalid;
	const struct vmodel_port *wr = db ? p.d_wready : p.m_wready;

	if (vport_get(awv) && vport_get(awr)) {
		if (s->aw_taken || !t->w_active || t->w.db != db)
			fail(t, db ? "an AW reached the doorbell side"
				   : "an AW reached the register side");
		s->aw_taken = true;
		s->addr = (uint32_t)vport_get(db ? p.d_awaddr : p.m_awaddr);
		s->len = (unsigned int)vport_get(db ? p.d_awlen : p.m_awlen);
		s->id = db ? 0 : (unsigned int)vport_get(p.m_awid);
	}
	if (vport_get(wv) && vport_get(wr)) {
		if (s->beats >= MAX_BEATS || !t->w_active || t->w.db != db) {
			fail(t, db ? "a W beat reached the doorbell side"
				   : "a W beat reached the register side");
		} else {
			vport_read(db ? p.d_wdata : p.m_wdata, s->data[s->beats], BEAT);
			s->strb[s->beats] = vport_get(db ? p.d_wstrb : p.m_wstrb);
			s->last[s->beats] = vport_get(db ? p.d_wlast : p.m_wlast);
			s->beats++;
		}
	}
	if (s->b_valid && vport_get(db ? p.d_bready : p.m_bready)) {
		s->b_valid = false;
		s->aw_taken = false;
		s->beats = 0;
	} else if (!s->b_valid && s->aw_taken && s->beats && s->last[s->beats - 1]) {
		const struct burst *w = &t->w;
		uint32_t want = db ? w->addr - DB_BASE : w->addr;

		if (s->addr != want || s->len != w->len || s->beats != w->len + 1 ||
		    (!db && s->id != w->id))
			fail(t, "a write arrived with another address, length or ID");
		for (unsigned int i = 0; i < s->beats && i <= w->len; i++)
			if (memcmp(s->data[i], w->data[i], BEAT) || s->strb[i] != w->strb[i] ||
			    s->last[i] != (i == w->len))
				fail(t, "a write beat arrived changed");
		s->resp = bench_chance(t->b, 20) ? 2 : 0;
		s->b_valid = true;
	}
}

static void sample(void *ctx)
{
	struct split_tb *t = ctx;
	struct burst *w = &t->w, *r = &t->r;

	/* bridge side, writer */
	if (vport_get(p.s_awvalid) && vport_get(p.s_awready)) {
		t->aw_sent = true;
		t->d.transfers++;
	}
	if (vport_get(p.s_wvalid) && vport_get(p.s_wready)) {
		t->w_beat++;
		t->w_offer = false;
		t->d.transfers++;
	}
	if (vport_get(p.s_bvalid) && vport_get(p.s_bready)) {
		const struct wslave *s = w->db ? &t->db : &t->reg;

		if (!t->w_active || !t->aw_sent || t->w_beat <= w->len)
			fail(t, "a B before its write was sent");
		else if (vport_get(p.s_bid) != w->id || vport_get(p.s_bresp) != s->resp)
			fail(t, "a B with another ID or response");
		t->w_active = false;
		t->writes++;
		t->db_writes += w->db;
		t->d.pending--;
		t->d.transfers++;
	}
	/* bridge side, reader */
	if (vport_get(p.s_arvalid) && vport_get(p.s_arready)) {
		t->ar_sent = true;
		t->d.transfers++;
	}
	if (vport_get(p.s_rvalid) && vport_get(p.s_rready)) {
		uint8_t got[BEAT], want[BEAT];

		vport_read(p.s_rdata, got, BEAT);
		if (r->db)
			memset(want, 0, BEAT);
		else
			read_pattern(r->addr, t->r_beat, want);
		if (!t->r_active || !t->ar_sent || t->r_beat > r->len)
			fail(t, "an R beat of no read");
		else if (vport_get(p.s_rid) != r->id || memcmp(got, want, BEAT) ||
			 vport_get(p.s_rresp) != (r->db ? 2u : 0u) ||
			 vport_get(p.s_rlast) != (t->r_beat == r->len))
			fail(t, "an R beat with another ID, data, response or RLAST");
		if (t->r_beat++ == r->len) {
			t->r_active = false;
			t->reads++;
			t->db_reads += r->db;
			t->d.pending--;
		}
		t->d.transfers++;
	}
	/* the slaves */
	wslave_sample(t, &t->reg, false);
	wslave_sample(t, &t->db, true);
	if (vport_get(p.m_arvalid) && vport_get(p.m_arready)) {
		if (!t->r_active || r->db)
			fail(t, "a read reached the register side");
		t->rs_active = true;
		t->rs_addr = (uint32_t)vport_get(p.m_araddr);
		t->rs_id = (unsigned int)vport_get(p.m_arid);
		t->rs_len = (unsigned int)vport_get(p.m_arlen);
		t->rs_beat = 0;
	}
	if (t->rs_valid && vport_get(p.m_rready)) {
		t->rs_valid = false;
		if (t->rs_beat++ == t->rs_len)
			t->rs_active = false;
	}
}

static const struct vmodel_port *port(struct split_tb *t, const char *side, const char *name)
{
	char full[48];

	snprintf(full, sizeof(full), "%s%s", side, name);
	return dut_port(&t->d, full);
}

static void bind(struct split_tb *t)
{
#define S(n) p.s_##n = port(t, "s_axi_", #n)
#define M(n) p.m_##n = port(t, "m_axi_", #n)
#define D(n) p.d_##n = port(t, "m_axi_db_", #n)
	S(awid), S(awaddr), S(awlen), S(awsize), S(awburst), S(awvalid), S(awready);
	S(wdata), S(wstrb), S(wlast), S(wvalid), S(wready), S(bid), S(bresp), S(bvalid);
	S(bready), S(arid), S(araddr), S(arlen), S(arsize), S(arburst), S(arvalid), S(arready);
	S(rid), S(rdata), S(rresp), S(rlast), S(rvalid), S(rready);
	M(awid), M(awaddr), M(awlen), M(awvalid), M(awready), M(wdata), M(wstrb), M(wlast);
	M(wvalid), M(wready), M(bid), M(bresp), M(bvalid), M(bready), M(arid), M(araddr);
	M(arlen), M(arvalid), M(arready), M(rid), M(rdata), M(rresp), M(rlast), M(rvalid);
	M(rready);
	D(awaddr), D(awlen), D(awvalid), D(awready), D(wdata), D(wstrb), D(wlast), D(wvalid);
	D(wready), D(bresp), D(bvalid), D(bready);
#undef S
#undef M
#undef D
}

static void run(struct bench *b, const char *name, unsigned int idle, unsigned int busy)
{
	static struct split_tb tb;
	struct split_tb *t = &tb;
	unsigned int bursts = b->quick ? 300 : 2000, hang = 0;

	memset(t, 0, sizeof(*t));
	t->b = b;
	t->idle_pct = idle;
	t->busy_pct = busy;
	dut_open(&t->d, b, &vmodel_Vfw_db_split);
	bind(t);
	dut_add_agent(&t->d, drive, sample, t);
	dut_reset(&t->d, 4);
	while ((t->writes < bursts || t->reads < bursts / 2) && !t->why[0] && hang < 5000) {
		uint64_t moved = t->d.transfers;

		if (!t->w_active && t->writes < bursts)
			new_write(t);
		if (!t->r_active && t->reads < bursts / 2)
			new_read(t);
		dut_step(&t->d);
		hang = t->d.transfers == moved ? hang + 1 : 0;
	}
	if (hang >= 5000)
		fail(t, "hang");
	bench_log(b, "%s: %llu writes (%llu to the pages), %llu reads (%llu), %llu cycles", name,
		  (unsigned long long)t->writes, (unsigned long long)t->db_writes,
		  (unsigned long long)t->reads, (unsigned long long)t->db_reads,
		  (unsigned long long)t->d.cycle);
	bench_result(b, name, !t->why[0], "%s", t->why);
	dut_close(&t->d);
}

int main(int argc, char **argv)
{
	struct bench b;

	bench_init(&b, "test_fw_db_split", argc, argv);
	run(&b, "db_split_random", 30, 30);
	run(&b, "db_split_busy", 10, 70);
	run(&b, "db_split_no_wait", 0, 0);
	return bench_finish(&b);
}
