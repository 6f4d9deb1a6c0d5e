/*
 * l4_shared.h - the layout of the shared global file of ckpt_io = 2
 * (docs/L4.md): header, index of every rank's piece, and the pieces. The
 * one description of it, written by l4_mpiio.c and read by l4_mpiio.c and
 * fti-ckpt (tools/ckpt_l4.c). MPI-free.
 *   header (64 B): magic "FTIL4SH\0", version u32, nranks u32, seq u64,
 *                  codec u32, 0 u32, data offset u64, 0 u64, 0 u64,
 *                  XXH3-64 of bytes 0-55
 *   index (32 B per rank): offset u64, length u64, rank u32, 0 u32,
 *                  XXH3-64 of the entry's first 24 bytes
 *   pieces: rank r's bytes (its local file, as is or compressed) at a
 *           4 KiB-aligned offset, in rank order.
 */
#ifndef FTI_L4_SHARED_H
#define FTI_L4_SHARED_H

#include <stdint.h>

#include "format/l4_codec.h"

#define FTI_L4SH_MAGIC "FTIL4SH\0"
#define FTI_L4SH_VERSION 1
#define FTI_L4SH_HEADER 64
#define FTI_L4SH_ENTRY 32
#define FTI_L4SH_ALIGN 4096

/* n rounded up to the pieces' alignment. */
uint64_t fti_l4sh_align(uint64_t n);

/* Where the first piece starts in a file of nranks ranks (after the index):
 * also the least size of a complete file. */
uint64_t fti_l4sh_data_offset(int nranks);

/* Fills the FTI_L4SH_HEADER bytes at h for checkpoint seq of nranks ranks. */
void fti_l4sh_encode_header(unsigned char *h, int nranks, uint64_t seq, uint32_t codec);

/* Fills the FTI_L4SH_ENTRY bytes at e: rank's piece is [offset, offset + length). */
void fti_l4sh_encode_entry(unsigned char *e, uint64_t offset, uint64_t length, int rank);

/* Finds rank's piece in a shared file of `size` bytes read through src
 * (src->read only), which must hold checkpoint seq of nranks ranks: checks
 * the header, rank's index entry, and that the piece lies inside the file.
 * *offset, *length: the piece. FTI_E_CORRUPT (or FTI_E_IO when a read
 * fails) with a message naming path, prefixed with "who: " when who is
 * not NULL. */
fti_err fti_l4sh_find_piece(const fti_l4_io *src, uint64_t size, int nranks, uint64_t seq,
                            int rank, const char *who, const char *path, uint64_t *offset,
                            uint64_t *length);

#endif /* FTI_L4_SHARED_H */
