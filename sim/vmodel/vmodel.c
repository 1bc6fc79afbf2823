// SPDX-License-Identifier: MIT
#include "vmodel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int vmodel_open(struct vmodel *vm, const struct vmodel_ops *ops)
{
	memset(vm, 0, sizeof(*vm));
	vm->ops = ops;
	vm->model = ops->create();
	if (!vm->model)
		return ENOMEM;
	vm->nports = ops->ports(vm->model, NULL, 0);
	vm->ports = calloc(vm->nports, sizeof(*vm->ports));
	if (!vm->ports) {
		ops->destroy(vm->model);
		return ENOMEM;
	}
	ops->ports(vm->model, vm->ports, vm->nports);
	return 0;
}

void vmodel_close(struct vmodel *vm)
{
	if (vm->tracing)
		vm->ops->trace_close(vm->model);
	if (vm->model)
		vm->ops->destroy(vm->model);
	free(vm->ports);
	memset(vm, 0, sizeof(*vm));
}

const struct vmodel_port *vmodel_port(const struct vmodel *vm, const char *name)
{
	for (unsigned int i = 0; i < vm->nports; i++)
		if (!strcmp(vm->ports[i].name, name))
			return &vm->ports[i];
	errno = ENOENT;
	return NULL;
}

void vport_write(const struct vmodel_port *p, const void *src, size_t len)
{
	size_t n = vport_bytes(p);

	memset(p->ptr, 0, n);
	memcpy(p->ptr, src, len < n ? len : n);
	if (p->width % 8) /* keep the bits above the port's width clear */
		((uint8_t *)p->ptr)[p->width / 8] &= (uint8_t)((1u << (p->width % 8)) - 1);
}

void vport_read(const struct vmodel_port *p, void *dst, size_t len)
{
	size_t n = vport_bytes(p);

	memset(dst, 0, len);
	memcpy(dst, p->ptr, len < n ? len : n);
}
