/*
 * device_api.h - FTI_ProtectDevice (fti_device.h) and the device backends
 * added at run time: a backend built outside libfti (the XRT backend
 * compiled against the XRT emulation library, in tests and examples) makes
 * itself known here so FTI_ProtectDevice and the FPGA monitor find it by name.
 */
#ifndef FTI_DEVICE_API_INTERNAL_H
#define FTI_DEVICE_API_INTERNAL_H

#include "device.h"

/* Adds ops to the backends found by name. Call before any other thread
 * uses the library (e.g. from a constructor). 0, or -1 when the table is
 * full, the ops version differs, or the name is already taken. */
int fti_device_register(const fti_device_ops *ops);

/* The backend called name: built in (device.c) first, then registered.
 * NULL when there is none. */
const fti_device_ops *fti_device_find(const char *name);

/* The names of every available backend, comma-separated, for messages. */
void fti_device_names(char *buf, size_t len);

#endif /* FTI_DEVICE_API_INTERNAL_H */
