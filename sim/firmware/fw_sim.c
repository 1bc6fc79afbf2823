// SPDX-License-Identifier: MIT
/* The board block's pins and a simulated board block (fw_sim.h). */
#include "fw_sim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct vmodel_port *port2(const struct vmodel *vm, const char *a, const char *b)
{
	const struct vmodel_port *p = vmodel_port(vm, a);

	return p ? p : vmodel_port(vm, b);
}

int fw_pins_bind(struct fw_pins *p, const struct vmodel *vm, struct flash_model *flash,
		 struct icap_model *icap)
{
	memset(p, 0, sizeof(*p));
	p->sck = port2(vm, "spi_sck", "flash_sck");
	p->cs_n = port2(vm, "spi_cs_n", "flash_cs_n");
	p->mosi = port2(vm, "spi_mosi", "flash_mosi");
	p->miso = port2(vm, "spi_miso", "flash_miso");
	p->csib = vmodel_port(vm, "icap_csib");
	p->rdwrb = vmodel_port(vm, "icap_rdwrb");
	p->icap_i = vmodel_port(vm, "icap_i");
	p->avail = vmodel_port(vm, "icap_avail");
	p->flash = flash;
	p->icap = icap;
	p->icap_every = 1;
	if (!p->sck || !p->cs_n || !p->mosi || !p->miso || !p->csib || !p->rdwrb || !p->icap_i ||
	    !p->avail)
		return ENOENT;
	vport_set(p->avail, 1);
	vport_set(p->miso, 1);
	return 0;
}

void fw_pins_eval(struct fw_pins *p, uint64_t now_ns)
{
	bool miso = flash_model_pins(p->flash, now_ns, vport_get(p->sck), vport_get(p->cs_n),
				     vport_get(p->mosi));

	vport_set(p->miso, miso);
	if (p->cycles++ % p->icap_every == 0)
		icap_model_clock(p->icap, vport_get(p->csib), vport_get(p->rdwrb),
				 (uint32_t)vport_get(p->icap_i));
}

uint64_t fw_sim_now_ns(const struct fw_sim *s)
{
	return s->cycle * FW_SIM_NS_PER_CYCLE;
}

int fw_flash_memory(const char *path, size_t size, uint8_t **mem, bool *mapped)
{
	struct stat st;
	int fd, err = 0;
	bool fresh;

	*mem = NULL;
	*mapped = false;
	if (!path) {
		*mem = malloc(size);
		if (!*mem)
			return ENOMEM;
		memset(*mem, 0xff, size);
		return 0;
	}
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return errno;
	if (fstat(fd, &st)) {
		err = errno;
		goto out;
	}
	fresh = st.st_size == 0;
	if (!fresh && (size_t)st.st_size != size) {
		err = EINVAL; /* a flash of another size */
		goto out;
	}
	if (fresh && ftruncate(fd, (off_t)size)) {
		err = errno;
		goto out;
	}
	*mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*mem == MAP_FAILED) {
		*mem = NULL;
		err = errno;
		goto out;
	}
	*mapped = true;
	if (fresh)
		memset(*mem, 0xff, size);
out:
	close(fd);
	return err;
}

void fw_flash_memory_free(uint8_t *mem, size_t size, bool mapped)
{
	if (mapped) {
		msync(mem, size, MS_SYNC);
		munmap(mem, size);
	} else {
		free(mem);
	}
}

int fw_sim_open(struct fw_sim *s, const struct vmodel_ops *ops, const char *flash_path, size_t size,
		unsigned int time_divisor)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->time_divisor = time_divisor ? time_divisor : 1;
	err = fw_flash_memory(flash_path, size, &s->mem, &s->mapped);
	if (err)
		return err;
	flash_model_init(&s->flash, s->mem, size);
	flash_model_scale_times(&s->flash, s->time_divisor);
	icap_model_init(&s->icap);
	err = vmodel_open(&s->vm, ops);
	if (err)
		goto fail_model;
	s->clk = vmodel_port(&s->vm, "clk");
	s->rst = vmodel_port(&s->vm, "rst");
	s->addr = vmodel_port(&s->vm, "addr");
	s->wdata = vmodel_port(&s->vm, "wdata");
	s->wstrb = vmodel_port(&s->vm, "wstrb");
	s->wr = vmodel_port(&s->vm, "wr");
	s->rdata = vmodel_port(&s->vm, "rdata");
	s->mac_rx_drop = vmodel_port(&s->vm, "mac_rx_drop");
	if (!s->clk || !s->rst || !s->addr || !s->wdata || !s->wstrb || !s->wr || !s->rdata ||
	    !s->mac_rx_drop || fw_pins_bind(&s->pins, &s->vm, &s->flash, &s->icap)) {
		err = ENOENT;
		goto fail_ports;
	}
	vport_set(s->rst, 1);
	for (int i = 0; i < 4; i++)
		fw_sim_step(s);
	vport_set(s->rst, 0);
	return 0;

fail_ports:
	vmodel_close(&s->vm);
fail_model:
	fw_flash_memory_free(s->mem, size, s->mapped);
	return err;
}

void fw_sim_close(struct fw_sim *s)
{
	vmodel_close(&s->vm);
	fw_flash_memory_free(s->mem, s->flash.size, s->mapped);
}

void fw_sim_step(struct fw_sim *s)
{
	vport_set(s->clk, 0);
	s->vm.ops->eval(s->vm.model);
	fw_pins_eval(&s->pins, fw_sim_now_ns(s));
	s->vm.ops->eval(s->vm.model);
	vport_set(s->clk, 1);
	s->vm.ops->eval(s->vm.model);
	s->cycle++;
}

uint32_t fw_sim_read(struct fw_sim *s, uint32_t off)
{
	uint32_t v;

	vport_set(s->addr, off);
	vport_set(s->wr, 0);
	vport_set(s->clk, 0);
	s->vm.ops->eval(s->vm.model);
	v = (uint32_t)vport_get(s->rdata);
	fw_sim_step(s); /* a read takes a cycle, so that polling moves time */
	return v;
}

void fw_sim_write(struct fw_sim *s, uint32_t off, uint32_t v)
{
	vport_set(s->addr, off);
	vport_set(s->wdata, v);
	vport_set(s->wstrb, 0xf);
	vport_set(s->wr, 1);
	fw_sim_step(s);
	vport_set(s->wr, 0);
}
